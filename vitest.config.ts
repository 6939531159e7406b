import { defineConfig } from 'vitest/config';
import { workspaceSources } from './test/support/workspace-sources.js';

export default defineConfig({
  plugins: [workspaceSources()],
  test: {
    include: ['test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
    globalSetup: ['test/support/adk-server.global.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
