/**
 * Replacing several files of one policy at once, all or nothing (the journal protocol
 * of journal.ts), while respecting each file:
 *
 *   - a symlink is written through: its real target is replaced, the link stays;
 *   - a file with several hard links is refused (a rename would split it from its other
 *     names, which would keep the old content);
 *   - a read-only file (no owner write bit, or not writable by us) is refused;
 *   - the new file gets the old one's mode, and its owner and group (refused if they
 *     cannot be kept);
 *   - check before replace: each file's digest, size and mtime are recorded when it is
 *     read; just before the commit point they are compared again, and a file someone
 *     else saved meanwhile stops the whole write.
 *
 * Every refusal is a QuotientError (exit 2) naming the file, raised before any target
 * is touched. Callers hold the folder's lock (file-lock.ts).
 */
import { accessSync, constants, lstatSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { basename, dirname } from 'node:path';
import { QuotientError } from '../errors.js';
import { digestOf } from './digest.js';
import { stepPause, syncFolder } from './durable.js';
import { newJournal, removeJournal, writeJournal, type JournalEntry } from './journal.js';
import { tempPathFor, writeTempFile } from './temp-files.js';

/** A file read for replacement: where it really lives and what it held. */
export interface ReadFile {
  /** The path as the user named it. */
  shown: string;
  /** The real path (symlinks resolved). */
  real: string;
  bytes: Buffer;
  digest: string;
  size: number;
  mtimeMs: number;
  ino: number;
  mode: number;
  uid: number;
  gid: number;
}

function errno(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}

/** Reads a file that is about to be replaced, refusing the ones that cannot be replaced faithfully. */
export function readForReplace(path: string): ReadFile {
  let real: string;
  let st;
  try {
    real = lstatSync(path).isSymbolicLink() ? realpathSync(path) : path;
    st = statSync(real);
  } catch (e) {
    throw new QuotientError('io/unreadable', `cannot read ${path}: ${errno(e)}`, 'check the path and its permissions');
  }
  if (!st.isFile()) throw new QuotientError('io/not-a-file', `${path} is not a regular file; nothing was written`, 'name regular YAML files');
  if (st.nlink > 1)
    throw new QuotientError(
      'io/hard-linked',
      `${path} has ${st.nlink} hard links; replacing it would leave the other names with the old content, so nothing was written`,
      'make it a single file (copy it, remove the other links) or a symlink, then apply again',
    );
  refuseReadOnly(path, real, st.mode, 'then apply again');
  if (!canWrite(dirname(real)))
    throw new QuotientError(
      'io/folder-read-only',
      `the folder of ${path} (${dirname(real)}) is not writable; nothing was written`,
      'the new content is written next to the file and renamed over it: the folder must be writable',
    );
  let bytes: Buffer;
  try {
    bytes = readFileSync(real);
  } catch (e) {
    throw new QuotientError('io/unreadable', `cannot read ${path}: ${errno(e)}`, 'check the path and its permissions');
  }
  return { shown: path, real, bytes, digest: digestOf(bytes), size: st.size, mtimeMs: st.mtimeMs, ino: st.ino, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
}

/**
 * Refuses to replace a read-only file (no owner write bit, or not writable by us): its
 * owner marked it as not to be changed, and a rename in its folder would replace it anyway.
 * Shared by `scale --apply` and the files a user names for output (write-in-folder.ts).
 */
export function refuseReadOnly(path: string, real: string, mode: number, retry: string): void {
  if ((mode & 0o200) !== 0 && canWrite(real)) return;
  throw new QuotientError(
    'io/read-only',
    `${path} is read-only (mode ${(mode & 0o777).toString(8).padStart(4, '0')}); nothing was written`,
    `make it writable (chmod u+w ${path}) if it should be changed, ${retry}`,
  );
}

function canWrite(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** Throws when the file no longer holds what was read (someone else saved it). */
export function checkUnchanged(file: ReadFile): void {
  let same: boolean;
  try {
    const st = statSync(file.real);
    same = st.ino === file.ino && st.size === file.size && st.mtimeMs === file.mtimeMs && digestOf(readFileSync(file.real)) === file.digest;
  } catch {
    // Gone or unreadable: not what was read.
    same = false;
  }
  if (!same) throw new QuotientError('io/changed-on-disk', `${file.shown} was changed by someone else since quotient read it; nothing was written`, 'run the command again on the saved files');
}

/**
 * Replaces each file's content with its new bytes, all or nothing: after a crash at any
 * moment, the next recovery leaves every file old or every file new, and no temp file.
 * `dir` is the policy folder (where the journal lives); the caller holds its lock.
 */
export function replaceFiles(dir: string, changes: Array<{ file: ReadFile; bytes: Uint8Array }>, command: string): void {
  if (changes.length === 0) return;
  const entries: JournalEntry[] = changes.map(({ file, bytes }) => ({
    shown: file.shown,
    target: file.real,
    temp: tempPathFor(dirname(file.real), basename(file.real)),
    before: file.digest,
    after: digestOf(bytes),
  }));
  const journal = newJournal(command, entries);
  writeJournal(dir, journal);
  const undo = () => {
    for (const e of entries) {
      try {
        unlinkSync(e.temp);
      } catch {
        // Not written yet.
      }
    }
    removeJournal(dir);
  };
  try {
    changes.forEach(({ file, bytes }, i) => {
      const temp = entries[i]?.temp ?? '';
      try {
        writeTempFile(temp, bytes, { shown: file.shown, mode: file.mode, uid: file.uid, gid: file.gid });
      } catch (e) {
        if (e instanceof QuotientError) throw e;
        throw new QuotientError(
          'io/cannot-write',
          `cannot write the new content of ${file.shown} (${temp}): ${errno(e)}; nothing was changed`,
          "check free space and the folder's permissions, then apply again",
        );
      }
      stepPause();
    });
    for (const d of new Set(entries.map((e) => dirname(e.temp)))) syncFolder(d);
    // Check before replace, as late as the protocol allows: right before the commit point.
    for (const { file } of changes) checkUnchanged(file);
  } catch (e) {
    undo();
    throw e;
  }
  writeJournal(dir, { ...journal, state: 'committed' });
  for (const e of entries) {
    try {
      renameSync(e.temp, e.target);
    } catch (err) {
      // Committed: the journal still says so, and the next quotient command on the folder finishes the write.
      throw new QuotientError(
        'io/rename-failed',
        `the write was committed but renaming ${e.temp} over ${e.shown} failed: ${errno(err)}`,
        `the next quotient command that reads ${dir} finishes the write (or says why it cannot)`,
      );
    }
    stepPause();
  }
  for (const d of new Set(entries.map((e) => dirname(e.target)))) syncFolder(d);
  removeJournal(dir);
  stepPause();
}
