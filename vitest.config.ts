import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Hermetic: every CLI a test spawns caches compiled policies in this run's own folder, never
// in the user's cache (engine/policy-cache.ts); test/helpers/cache-folder-setup.ts removes it.
const cacheDir = (process.env.QUOTIENT_TEST_CACHE_DIR ??= join(tmpdir(), `quotient-test-cache-${process.pid}`));

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Generous: a test that is slow only on a loaded machine must not fail there; CI runs on a quiet 2-core machine.
    testTimeout: 240_000,
    hookTimeout: 240_000,
    pool: 'forks',
    env: { QUOTIENT_CACHE_DIR: cacheDir },
    globalSetup: ['test/helpers/cache-folder-setup.ts'],
  },
});
