import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SlowestFirst from './test/support/slowest-first.js';
import { workspaceSources } from './test/support/workspace-sources.js';

/**
 * Two projects; `npm test` runs both.
 * - `unit`: pure tests. They start nothing: no Redis, no ADK server, no HTTP server, no browser.
 * - `integration`: tests that talk to real parts — Redis at 127.0.0.1:6379, one `adk api_server`
 *   booted for the whole run (global setup), the Slack sandbox, Chromium. A test is one when it
 *   lives in `test/e2e/` or `test/browser/`, or is named `*.integration.test.ts`.
 */
const INTEGRATION = [
  'test/e2e/**/*.test.ts',
  'test/browser/**/*.test.ts',
  '{test,packages/*/test}/**/*.integration.test.ts',
];

export default defineConfig({
  plugins: [workspaceSources()],
  test: {
    // The integration tests mostly wait (on the sandbox, the ADK server, Redis, timers): four at
    // once on a 2-core machine take the suite from 515 s to 271 s, and pass the same.
    maxWorkers: Math.max(4, availableParallelism()),
    // The slowest files first: a fresh clone has no cached durations to order by.
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          // Pure tests share a worker's modules (the app's modules evaluated once per worker, not
          // once per file): 82 files took 31.7 s and 52 s of CPU isolated, 12.5 s and 20 s not,
          // and pass the same in shuffled orders, on Node 20 and 24. So a unit test leaves nothing
          // global behind (fake timers, mocks, process.env). The integration tests stay isolated:
          // sharing modules, 16 of them failed in a shuffled order (one app's state in another's).
          isolate: false,
          include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: INTEGRATION,
          // Not a speed check: the property tests' hundreds of renders took over the default 5 s
          // with four workers on a loaded 2-core machine.
          testTimeout: 15_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: INTEGRATION,
          globalSetup: ['test/support/adk-server.global.ts'],
          // A hang guard, not a speed check: in a fresh-clone CI run tests that take 2-4 s alone
          // took 9-10 s (a stack or a child process started, 300 pauses recorded one by one),
          // and one that spawns a runbook ran past 20 s.
          testTimeout: 45_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
