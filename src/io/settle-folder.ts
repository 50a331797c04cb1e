/**
 * What every command does before reading a policy folder: if an earlier write was
 * interrupted (a journal, a lock or a temp file of ours is there), finish or undo it
 * under the folder's lock, and remove what a killed quotient left behind. A folder
 * with none of these is not touched (so read-only folders read as before), and a live
 * writer is waited for (up to LOCK_WAIT_MS), so a reader never sees half a write.
 */
import { readdirSync, unlinkSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { processAlive, syncFolder } from './durable.js';
import { acquireLock, holderText, LOCK_NAME } from './file-lock.js';
import { JOURNAL_NAME, recoverJournal } from './journal.js';

/** How long a reader waits for a live writer before giving up with exit 2. */
export const LOCK_WAIT_MS = 10_000;

/** Lock and journal temps (`.quotient.lock.<pid>[.stale].tmp`, `.quotient-journal.<pid>.tmp`) and content temps (`.<file>.quotient-<pid>[-<hex>].tmp`). */
const OURS = /^\.(?:quotient(?:\.lock|-journal)\.(\d+)(?:\.stale)?|.+\.quotient-(\d+)(?:-[0-9a-f]+)?)\.tmp$/;

function leftovers(dir: string): string[] {
  try {
    return readdirSync(dir).filter((n) => n === LOCK_NAME || n === JOURNAL_NAME || OURS.test(n));
  } catch {
    // An unreadable folder is reported by the reader with its own message.
    return [];
  }
}

/**
 * Settles `dir` before it is read; returns the sentences to print on stderr (what was
 * finished, undone or removed). Throws a QuotientError (exit 2) when the folder stays
 * locked by a live writer or an interrupted write cannot be finished.
 */
export function settleFolder(dir: string): string[] {
  if (leftovers(dir).length === 0) return [];
  const notes: string[] = [];
  const lock = acquireLock(dir, 'quotient (recovery)', LOCK_WAIT_MS);
  try {
    for (const h of lock.broke) notes.push(`removed a stale lock in ${dir} (${holderText(h)}, no longer running)`);
    const done = recoverJournal(dir);
    if (done) notes.push(done);
    const removed: string[] = [];
    for (const name of leftovers(dir)) {
      const m = OURS.exec(name);
      const pid = Number(m?.[1] ?? m?.[2]);
      if (!m || pid === process.pid || processAlive(pid)) continue;
      try {
        unlinkSync(join(dir, name));
        removed.push(name);
      } catch {
        // Gone meanwhile.
      }
    }
    if (removed.length) {
      syncFolder(dir);
      notes.push(`removed ${removed.length} temp file(s) left in ${dir} by an interrupted quotient run: ${removed.join(', ')}`);
    }
  } finally {
    lock.release();
  }
  return notes;
}

/**
 * The folder a policy's lock and journal live in: the deepest folder holding all its
 * files. For a folder named on the command line that is the folder itself (it holds
 * YAML directly, or it would not be one policy); for files, the folder they share.
 */
export function policyFolder(paths: string[]): string {
  const dirs = paths.map((p) => dirname(resolve(p)).split(sep));
  const first = dirs[0] ?? [resolve('.')];
  let n = first.length;
  for (const d of dirs) {
    let i = 0;
    while (i < n && i < d.length && d[i] === first[i]) i++;
    n = i;
  }
  return first.slice(0, n).join(sep) || sep;
}
