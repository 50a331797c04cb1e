/** engine/cache-folder.ts: where the compiled-policy cache lives, and the switch that turns it off. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheOffByEnv, policyCacheDir, processPolicyCacheDir, usePolicyCacheDir } from '../../../src/engine/cache-folder.js';

describe('cache folder', () => {
  it('lives in QUOTIENT_CACHE_DIR, else $XDG_CACHE_HOME/quotient, else ~/.cache/quotient', () => {
    expect(policyCacheDir({ QUOTIENT_CACHE_DIR: '/a', XDG_CACHE_HOME: '/b' })).toBe('/a');
    expect(policyCacheDir({ XDG_CACHE_HOME: '/b' })).toBe(join('/b', 'quotient'));
    expect(policyCacheDir({})).toMatch(/\.cache[/\\]quotient$/);
  });

  it('is off when QUOTIENT_NO_CACHE is set to anything but empty and 0', () => {
    expect(cacheOffByEnv({ QUOTIENT_NO_CACHE: '1' })).toBe(true);
    expect(cacheOffByEnv({ QUOTIENT_NO_CACHE: 'yes' })).toBe(true);
    expect(cacheOffByEnv({ QUOTIENT_NO_CACHE: '0' })).toBe(false);
    expect(cacheOffByEnv({ QUOTIENT_NO_CACHE: '' })).toBe(false);
    expect(cacheOffByEnv({})).toBe(false);
  });

  it("is the process's folder only once the CLI sets one, and cleared again by undefined", () => {
    const before = processPolicyCacheDir();
    try {
      usePolicyCacheDir('/c');
      expect(processPolicyCacheDir()).toBe('/c');
      usePolicyCacheDir(undefined);
      expect(processPolicyCacheDir()).toBeUndefined();
    } finally {
      usePolicyCacheDir(before);
    }
  });
});
