/**
 * Quotient's content temp files: every file it writes (an output, a policy file `scale
 * --apply` replaces) is first written whole to `.<name>.quotient-<pid>-<8 hex>.tmp` in
 * the target's folder and then renamed (or linked) to the name. This file owns the name,
 * the writing of one (a new file with the umask's mode, or a replacement with the old
 * file's mode and owner), and the sweep of the ones a killed run left behind.
 */
import { closeSync, existsSync, fchmodSync, fchownSync, fsyncSync, lstatSync, openSync, readdirSync, unlinkSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, join } from 'node:path';
import { QuotientError } from '../errors.js';
import { processAlive, syncFolder } from './durable.js';
import { JOURNAL_NAME } from './journal.js';

/** A content temp file's name: the target's name, the writer's pid, 8 random hex digits. */
const TEMP = /^\.(.+)\.quotient-(\d+)-[0-9a-f]{8}\.tmp$/;

/** A fresh temp path next to `dir/name`, for this process. */
export function tempPathFor(dir: string, name: string): string {
  return join(dir, `.${name}.quotient-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
}

/** The mode, owner and group a replaced file had, kept by its replacement. */
export interface KeptFile {
  /** The file as the user named it (for messages). */
  shown: string;
  mode: number;
  uid: number;
  gid: number;
}

/**
 * Writes `bytes` to a new temp file (exclusive create), fsynced. With `like`, the temp
 * gets that file's mode, owner and group (a 0600 report stays 0600; refused when the
 * owner cannot be kept); without, the mode is 0666 less the umask, as any new file.
 */
export function writeTempFile(temp: string, bytes: Uint8Array, like?: KeptFile): void {
  // Created private, then opened up to the kept mode: the content is never readable by more than the old file was.
  const fd = openSync(temp, 'wx', like ? 0o600 : 0o666);
  try {
    if (like) {
      fchmodSync(fd, like.mode & 0o7777);
      const uid = process.getuid?.();
      const gid = process.getgid?.();
      if (uid !== undefined && (like.uid !== uid || like.gid !== gid)) {
        try {
          fchownSync(fd, like.uid, like.gid);
        } catch (e) {
          throw new QuotientError(
            'io/cannot-keep-owner',
            `${like.shown} belongs to uid ${like.uid} gid ${like.gid}, which quotient cannot give the new file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); nothing was written`,
            "run the command as the file's owner",
          );
        }
      }
    }
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** True when `dir` or a folder above it holds a journal: its temp files are the journal's to finish or undo (settle-folder.ts). */
function underJournal(dir: string): boolean {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, JOURNAL_NAME))) return true;
    if (dirname(d) === d) return false;
  }
}

/**
 * Removes the content temp files in `dir` whose writer is dead (a run killed between
 * writing its temp and renaming it) and returns their names. Only regular files (a
 * link is never followed nor removed) named exactly as tempPathFor names them, of a pid
 * that is not this process and runs no longer; nothing at all in a folder under an
 * unfinished journal, whose recovery may still need them.
 */
export function sweepStaleTemps(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => TEMP.test(n));
  } catch {
    return [];
  }
  if (names.length === 0 || underJournal(dir)) return [];
  const removed: string[] = [];
  for (const name of names) {
    const pid = Number(TEMP.exec(name)?.[2]);
    if (pid === process.pid || processAlive(pid)) continue;
    const path = join(dir, name);
    try {
      if (!lstatSync(path).isFile()) continue;
      unlinkSync(path);
      removed.push(name);
    } catch {
      // Gone meanwhile, or not ours to remove (another user's, in a sticky folder).
    }
  }
  if (removed.length) syncFolder(dir);
  return removed;
}
