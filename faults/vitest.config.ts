import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { workspaceSources } from '../test/support/workspace-sources.js';

/**
 * `npm run test:faults`: fault-injection trials that take minutes (kill -9 at random points,
 * restarts), one file after the other. They print their figures; see the README.
 */
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  plugins: [workspaceSources()],
  test: {
    include: ['faults/**/*.faults.ts'],
    fileParallelism: false,
    disableConsoleIntercept: true,
    globalSetup: ['test/support/adk-server.global.ts'],
    testTimeout: 900_000,
    hookTimeout: 200_000,
  },
});
