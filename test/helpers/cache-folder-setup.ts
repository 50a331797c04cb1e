/** Removes the compiled-policy cache folder the test run's CLIs wrote in (vitest.config.ts names it). */
import { rmSync } from 'node:fs';

export default function setup(): () => void {
  return () => {
    const dir = process.env.QUOTIENT_TEST_CACHE_DIR;
    if (dir) rmSync(dir, { recursive: true, force: true });
  };
}
