/**
 * Durable small-file operations: a file is on disk only once its bytes were fsynced, and
 * a rename or unlink only once its folder was fsynced (POSIX leaves both in the page
 * cache otherwise, so a power cut could undo them). Used by the lock and the journal.
 */
import { closeSync, fsyncSync, openSync, writeSync } from 'node:fs';

/** Writes `bytes` to a new file (`wx`: never over an existing one) with `mode`, fsynced, and returns nothing until it is on disk. */
export function writeNewFileDurably(path: string, bytes: Uint8Array, mode = 0o644): void {
  const fd = openSync(path, 'wx', mode);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Fsyncs a folder so the renames, creations and removals in it survive a crash. */
export function syncFolder(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch (e) {
    // Some file systems refuse fsync on a folder (EINVAL, EISDIR on a few); the rename is then as durable as they allow.
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EBADF') throw e;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** True when a process with this id runs on this machine (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

/** Blocks the thread for `ms` (the CLI is synchronous; used while waiting for a lock). */
export function sleepSync(ms: number): void {
  if (ms > 0) Atomics.wait(SLEEPER, 0, 0, ms);
}

/**
 * Fault-injection hook for the kill tests (test/cli/apply-kill.test.ts, and the output
 * files' temp sweep in test/cli/output-files.test.ts): with QUOTIENT_TEST_STEP_DELAY_MS
 * set, every durable step of a write waits that long, so a SIGKILL at a random time lands
 * between any two steps. Unset, it costs nothing.
 */
export function stepPause(): void {
  const ms = Number(process.env.QUOTIENT_TEST_STEP_DELAY_MS ?? 0);
  if (ms > 0) sleepSync(ms);
}

/**
 * Test barrier for two simultaneous writers (test/cli/apply-safety.test.ts): with
 * QUOTIENT_TEST_LOCK_AT set to an epoch time in ms, a writer waits until then before it
 * takes the folder lock, so two runs started together both read the files first and then
 * contend for the lock at the same instant. Unset, it costs nothing.
 */
export function lockBarrier(): void {
  const at = Number(process.env.QUOTIENT_TEST_LOCK_AT ?? 0);
  if (at > 0) sleepSync(at - Date.now());
}
