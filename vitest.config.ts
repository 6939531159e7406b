import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: [],
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
