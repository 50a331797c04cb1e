/**
 * The journal of a multi-file replacement (docs/scale.md "How --apply writes"). A policy
 * spans files, and POSIX renames one file at a time, so the whole replacement is made
 * atomic by a journal in the policy folder, `.quotient-journal.json`:
 *
 *   1. the journal is written `prepared`, listing every target (its real path), the temp
 *      file that will hold its new content, and the digests before and after;
 *   2. the temp files are written and fsynced;
 *   3. the journal is rewritten `committed` (temp + fsync + rename): the commit point;
 *   4. each temp file is renamed over its target;
 *   5. the journal is removed.
 *
 * Every journal write is itself a temp file fsynced and renamed, so the journal on disk
 * is always whole. After a crash, recovery (recoverJournal) rolls a `prepared` journal
 * back (removes its temp files: no target was touched) and rolls a `committed` one
 * forward (renames what is left), so the policy is all old or all new.
 */
import { existsSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { QuotientError } from '../errors.js';
import { digestOf } from './digest.js';
import { stepPause, syncFolder, writeNewFileDurably } from './durable.js';

/** The journal's name in the policy folder. */
export const JOURNAL_NAME = '.quotient-journal.json';

/** One file of a replacement. */
export interface JournalEntry {
  /** The path the user named (for messages). */
  shown: string;
  /** The real file replaced (symlinks resolved). */
  target: string;
  /** The temp file, next to the target, holding the new content. */
  temp: string;
  /** SHA-256 of the target's content before, and of the new content. */
  before: string;
  after: string;
}

/** The journal file's content. */
export interface Journal {
  format: 'quotient-journal/1';
  state: 'prepared' | 'committed';
  pid: number;
  host: string;
  since: string;
  command: string;
  entries: JournalEntry[];
}

/** Writes the journal atomically (temp, fsync, rename, folder fsync). */
export function writeJournal(dir: string, journal: Journal): void {
  const temp = join(dir, `.quotient-journal.${process.pid}.tmp`);
  try {
    unlinkSync(temp);
  } catch {
    // Usually absent.
  }
  writeNewFileDurably(temp, Buffer.from(`${JSON.stringify(journal, null, 2)}\n`, 'utf8'));
  stepPause();
  renameSync(temp, join(dir, JOURNAL_NAME));
  syncFolder(dir);
  stepPause();
}

/** Removes the journal (the last step of a replacement or a recovery). */
export function removeJournal(dir: string): void {
  unlinkSync(join(dir, JOURNAL_NAME));
  syncFolder(dir);
}

/** The folder's journal, if any; a QuotientError when it cannot be understood. */
export function readJournal(dir: string): Journal | undefined {
  const path = join(dir, JOURNAL_NAME);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new QuotientError(
      'io/journal-unreadable',
      `cannot read the journal of an interrupted write, ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      "check the folder's permissions; quotient must finish or undo that write before reading the policy",
    );
  }
  try {
    const j = JSON.parse(text) as Journal;
    if (j.format === 'quotient-journal/1' && (j.state === 'prepared' || j.state === 'committed') && Array.isArray(j.entries)) return j;
  } catch {
    // Reported below.
  }
  throw new QuotientError(
    'io/journal-unreadable',
    `${path} is not a journal this version of quotient understands`,
    'if no quotient command is running, compare the files it lists with their .tmp files by hand, then remove it',
  );
}

function digestOrMissing(path: string): string | undefined {
  try {
    return digestOf(readFileSync(path));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

/** A new, empty journal for this process. */
export function newJournal(command: string, entries: JournalEntry[]): Journal {
  return { format: 'quotient-journal/1', state: 'prepared', pid: process.pid, host: hostname(), since: new Date().toISOString(), command, entries };
}

/**
 * Finishes or undoes the write an unfinished journal describes; the caller holds the
 * folder's lock. Returns a sentence for stderr, or undefined when there was no journal.
 * A target that holds neither its old nor its new content was changed by someone after
 * the crash: nothing more is done and the journal stays, with a QuotientError naming it.
 */
export function recoverJournal(dir: string): string | undefined {
  const j = readJournal(dir);
  if (!j) return undefined;
  const who = `pid ${j.pid}, ${j.command}, ${j.since}`;
  if (j.state === 'prepared') {
    for (const e of j.entries) if (existsSync(e.temp)) unlinkSync(e.temp);
    for (const d of new Set(j.entries.map((e) => dirname(e.temp)))) syncFolder(d);
    removeJournal(dir);
    return `rolled back an interrupted write in ${dir} (${who}): it had not committed, so every file keeps its old content`;
  }
  // Committed: every temp file is whole (fsynced before the commit); rename what is left.
  const plan = j.entries.map((e) => {
    const current = digestOrMissing(e.target);
    const temp = existsSync(e.temp) ? digestOrMissing(e.temp) : undefined;
    if (temp === undefined) {
      if (current !== e.after) throw conflict(dir, e, 'its new content is missing and the file does not hold it');
      return { e, rename: false };
    }
    if (temp !== e.after) throw conflict(dir, e, `its temp file ${e.temp} does not hold the new content`);
    if (current === e.after) return { e, rename: false, drop: true };
    if (current !== e.before) throw conflict(dir, e, 'it was changed after the interrupted write');
    return { e, rename: true };
  });
  for (const p of plan) {
    if (p.rename) renameSync(p.e.temp, p.e.target);
    else if ('drop' in p) unlinkSync(p.e.temp);
  }
  for (const d of new Set(j.entries.map((e) => dirname(e.target)))) syncFolder(d);
  removeJournal(dir);
  return `completed an interrupted write in ${dir} (${who}): ${j.entries.map((e) => e.shown).join(', ')} now hold the new content`;
}

function conflict(dir: string, e: JournalEntry, why: string): QuotientError {
  return new QuotientError(
    'io/journal-conflict',
    `cannot finish the interrupted write in ${dir}: ${e.shown} (${e.target}): ${why}`,
    `nothing more was changed; compare ${e.target} with ${e.temp} by hand, keep the right one, then remove ${join(dir, JOURNAL_NAME)}`,
  );
}
