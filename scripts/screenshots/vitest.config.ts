import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { workspaceSources } from '../../test/support/workspace-sources.js';

/**
 * `npm run docs:screenshots`: takes every screenshot in docs/ again from the sandbox (Chromium),
 * and records what they show in docs/screenshots.json. Not a test: it runs only when asked.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  plugins: [workspaceSources()],
  test: {
    include: ['scripts/screenshots/take.shots.ts'],
    disableConsoleIntercept: true,
    testTimeout: 300_000,
    hookTimeout: 240_000,
  },
});
