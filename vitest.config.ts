import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/adk-server.global.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
