import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { workspaceSources } from '../support/workspace-sources.js';

/**
 * `npm run test:docs` (part of `npm run check`): runs the code blocks of README.md and docs/ as a
 * reader would (test/docs/docs.run.ts). Alone, after the other tests: it starts the app the way
 * the docs say (`npm start`, which builds), and nothing else should build or serve meanwhile.
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  plugins: [workspaceSources()],
  test: {
    include: ['test/docs/**/*.run.ts'],
    fileParallelism: false,
    testTimeout: 1_200_000,
    hookTimeout: 120_000,
  },
});
