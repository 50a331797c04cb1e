/**
 * Where the compiled-policy cache lives, and whether this process uses it: a module of its
 * own that imports nothing heavy, so the CLI can turn the cache on before any command
 * loads the policy reader (engine/policy-cache.ts does the work).
 */
import type { Stats } from 'node:fs';
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

/**
 * Why a cache folder or entry with these stats may not be trusted, or undefined when it
 * may: as ssh (StrictModes) and git (safe.directory) do, it must be owned by this user
 * (the process's effective uid; root included: a folder another user owns is theirs to
 * plant entries in) and writable by no one else. The checksum of an entry (policy-cache.ts)
 * finds damage, not a forgery: anyone who can write an entry can write its checksum too.
 * Where there are no uids (Windows), ownership is not checked.
 */
export function distrust(what: 'folder' | 'entry', path: string, s: Pick<Stats, 'uid' | 'mode'>, uid: number | null = process.geteuid?.() ?? null): string | undefined {
  if (uid !== null && s.uid !== uid) return `the cache ${what} ${path} is owned by uid ${s.uid}, not by this user (uid ${uid})`;
  if ((s.mode & 0o022) !== 0) return `the cache ${what} ${path} is writable by ${(s.mode & 0o002) !== 0 ? 'every user' : 'its group'} (mode ${(s.mode & 0o777).toString(8).padStart(3, '0')})`;
  return undefined;
}

const warned = new Set<string>();
let warnSink: (message: string) => void = (message) => process.emitWarning(message, { code: 'QUOTIENT_CACHE_UNTRUSTED' });

/** Sets where a distrusted cache is reported (the CLI: a `warning:` line on stderr); each message once per process. */
export function onCacheWarning(sink: (message: string) => void): void {
  warnSink = sink;
}

/** Reports a distrusted cache folder or entry, once per message per process. */
export function warnCache(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  warnSink(message);
}
