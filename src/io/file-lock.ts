/**
 * A lock on a policy folder, so two `scale --apply` runs on one policy never both write
 * (and never both report "applied"). The lock is a file, `.quotient.lock`, created with
 * its content already in place: the holder's pid, host and start time are written to a
 * private temp file first and then hard-linked to the lock name, which fails with EEXIST
 * when the lock is held — so nobody ever sees an empty lock. A lock whose holder is on
 * this host and no longer runs is stale: it is moved aside (an atomic rename), checked to
 * still be the one judged stale, and removed.
 */
import { linkSync, readFileSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { QuotientError } from '../errors.js';
import { processAlive, sleepSync, syncFolder, writeNewFileDurably } from './durable.js';

/** The lock file's name in the policy folder. */
export const LOCK_NAME = '.quotient.lock';

/** Who holds a lock. */
export interface LockHolder {
  pid: number;
  host: string;
  since: string;
  command: string;
}

/** A held lock; release() removes it. */
export interface FolderLock {
  dir: string;
  /** Locks that were found stale and removed on the way (for a notice). */
  broke: LockHolder[];
  release(): void;
}

/** The temp name this process prepares its lock in (swept by recovery if it is killed). */
function lockTemp(dir: string, suffix = ''): string {
  return join(dir, `.quotient.lock.${process.pid}${suffix}.tmp`);
}

function readHolder(path: string): { holder?: LockHolder; text: string; ageMs: number } | undefined {
  try {
    const text = readFileSync(path, 'utf8');
    const ageMs = Date.now() - statSync(path).mtimeMs;
    try {
      const v = JSON.parse(text) as Partial<LockHolder>;
      if (typeof v.pid === 'number' && typeof v.host === 'string') return { holder: { pid: v.pid, host: v.host, since: String(v.since ?? ''), command: String(v.command ?? '') }, text, ageMs };
    } catch {
      // A lock written by something else: judged by its age below.
    }
    return { text, ageMs };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** True when the lock can be broken: its holder ran on this host and is gone (or it is unreadable and over a minute old). */
function isStale(found: { holder?: LockHolder; ageMs: number }): boolean {
  if (!found.holder) return found.ageMs > 60_000;
  return found.holder.host === hostname() && found.holder.pid !== process.pid && !processAlive(found.holder.pid);
}

/** Removes a stale lock unless someone replaced it meanwhile; true when it was removed. */
function breakStale(dir: string, seen: string): boolean {
  const path = join(dir, LOCK_NAME);
  const aside = lockTemp(dir, '.stale');
  try {
    renameSync(path, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw e;
  }
  let moved = '';
  try {
    moved = readFileSync(aside, 'utf8');
  } catch {
    // Unreadable: treated as not the one judged stale.
  }
  if (moved !== seen) {
    // Another process took the lock between our read and our rename: give it back.
    try {
      linkSync(aside, path);
    } catch {
      // A third process holds it now; the moved one is still live for its owner's release, which tolerates ENOENT.
    }
    unlinkSync(aside);
    return false;
  }
  unlinkSync(aside);
  syncFolder(dir);
  return true;
}

/** Tries once to take the lock: the lock, or who holds it. */
export function tryLock(dir: string, command: string): { lock: FolderLock } | { holder: LockHolder | undefined } {
  const path = join(dir, LOCK_NAME);
  const me: LockHolder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), command };
  const text = `${JSON.stringify(me)}\n`;
  const broke: LockHolder[] = [];
  for (let attempt = 0; attempt < 5; attempt++) {
    const temp = lockTemp(dir);
    try {
      unlinkSync(temp);
    } catch {
      // Usually absent.
    }
    writeNewFileDurably(temp, Buffer.from(text, 'utf8'));
    try {
      linkSync(temp, path);
      unlinkSync(temp);
      syncFolder(dir);
      return { lock: { dir, broke, release: () => releaseLock(dir, text) } };
    } catch (e) {
      unlinkSync(temp);
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const found = readHolder(path);
    if (!found) continue;
    if (!isStale(found)) return { holder: found.holder };
    if (breakStale(dir, found.text) && found.holder) broke.push(found.holder);
  }
  return { holder: readHolder(path)?.holder };
}

function releaseLock(dir: string, text: string): void {
  const path = join(dir, LOCK_NAME);
  // Only our own lock: never remove one a stale-lock breaker handed to someone else.
  if (readHolder(path)?.text !== text) return;
  unlinkSync(path);
  syncFolder(dir);
}

/** Describes a lock holder for a message. */
export function holderText(h: LockHolder | undefined): string {
  return h ? `pid ${h.pid} on ${h.host}, ${h.command || 'quotient'} since ${h.since}` : 'an unknown process';
}

/**
 * Takes the lock, waiting up to `waitMs` for a live holder to finish; a QuotientError
 * (exit 2) naming the holder when it does not.
 */
export function acquireLock(dir: string, command: string, waitMs = 0): FolderLock {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const r = tryLock(dir, command);
    if ('lock' in r) return r.lock;
    if (Date.now() >= deadline) {
      throw new QuotientError(
        'io/locked',
        `the policy folder ${dir} is locked by ${holderText(r.holder)}`,
        `another quotient command is writing this policy; wait for it to finish and run this again (a lock left by a crash on another host can be removed by hand: ${join(dir, LOCK_NAME)})`,
      );
    }
    sleepSync(50);
  }
}
