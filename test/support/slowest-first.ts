import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The test files that take longest, longest first (CI, 4 workers on 2 cores): python-adk 199 s
 * (nine runs of a real google-adk Runner, each starting Python), the sandbox in Chromium 49 s,
 * the dev commands 45 s, the ADK plugin 39 s, the Redis store's contract 37 s, the sandbox page
 * 32 s. Vitest orders files by the durations it cached on an earlier run; a fresh clone (CI) has
 * none, and a file that starts late and runs for minutes keeps the whole run waiting on it.
 */
const SLOWEST = [
  'test/e2e/python-adk.test.ts',
  'test/browser/sandbox-approvals.test.ts',
  'test/cli/dev-commands.integration.test.ts',
  'test/e2e/adk-plugin.test.ts',
  'test/approvals/store/redis-store.integration.test.ts',
  'test/page.integration.test.ts',
];

function rank(spec: TestSpecification): number {
  const at = SLOWEST.findIndex((file) => spec.moduleId.endsWith(file));
  return at < 0 ? SLOWEST.length : at;
}

/** Vitest's order, with the slowest files (above) started first. */
export default class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    return sorted.sort((a, b) => rank(a) - rank(b));
  }
}
