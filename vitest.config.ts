import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: a test that is slow only on a loaded machine must not fail there; CI runs on a quiet 2-core machine.
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
  },
});
