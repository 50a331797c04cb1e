/**
 * Where the compiled-policy cache lives, and whether this process uses it: a module of its
 * own that imports nothing heavy, so the CLI can turn the cache on before any command
 * loads the policy reader (engine/policy-cache.ts does the work).
 */
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The folder entries live in: QUOTIENT_CACHE_DIR, else $XDG_CACHE_HOME/quotient, else ~/.cache/quotient. */
export function policyCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.QUOTIENT_CACHE_DIR) return env.QUOTIENT_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'quotient');
  return join(homedir(), '.cache', 'quotient');
}

/** True when QUOTIENT_NO_CACHE turns the cache off (any value but empty and `0`). */
export function cacheOffByEnv(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.QUOTIENT_NO_CACHE;
  return v !== undefined && v !== '' && v !== '0';
}

let processDir: string | undefined;

/** Sets (undefined: clears) the folder Session.open caches in when its options name none: the CLI's, unless --no-cache. */
export function usePolicyCacheDir(dir: string | undefined): void {
  processDir = dir;
}

/** The folder set by usePolicyCacheDir, if any (a library caller's process has none unless it sets one). */
export function processPolicyCacheDir(): string | undefined {
  return processDir;
}
