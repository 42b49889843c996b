import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    setupFiles: ['tests/setup/fast-check.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores on CI: more workers than that only adds contention.
    maxWorkers: 2,
  },
});
