import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { workspaceSources } from '../test/support/workspace-sources.js';

/**
 * `npm run bench`: every `bench/*.bench.ts` file, one after the other (they measure the same
 * machine), printing figures straight to stdout. Benchmarks assert nothing.
 */
export default defineConfig({
  root: fileURLToPath(new URL('..', import.meta.url)),
  plugins: [workspaceSources()],
  test: {
    include: ['bench/**/*.bench.ts'],
    fileParallelism: false,
    disableConsoleIntercept: true,
    testTimeout: 120_000,
    hookTimeout: 60_000,
  },
});
