/**
 * The one writer of files the user names (docs/cli.md "Output files"): `simulate --html
 * FILE`, `export --report FILE` (writeOutputFile) and `test --save DIR` (saveInFolder).
 * One rule for all of them, decided before a byte is written:
 *
 *   1. nothing this command read is replaced, nor any file of a policy folder it read,
 *      nor is a YAML file added to such a folder (io/output-is-input, exit 2; input-registry.ts);
 *   2. an existing file is replaced only when it is quotient's own output (its mark,
 *      output-mark.ts) or with `--force`; a read-only one never;
 *   3. a replaced file keeps its mode, owner and group; a new one gets the umask's mode;
 *   4. the content goes to a temp file in the folder and is then renamed over the name (a
 *      replacement) or hard-linked to it (a new file: fails rather than clobber a file
 *      that appeared meanwhile), so a reader never sees half a file and a symlink at the
 *      name is replaced, never written through;
 *   5. the temp files a killed run left in the folder are swept first (temp-files.ts).
 */
import { linkSync, lstatSync, renameSync, statSync, unlinkSync, writeFileSync, type Stats } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { QuotientError } from '../errors.js';
import { stepPause, syncFolder } from './durable.js';
import { inputAt, inputFolderAt, type InputHit } from './input-registry.js';
import { carriesOutputMark, markOutput, type OutputKind } from './output-mark.js';
import { refuseReadOnly } from './replace-files.js';
import { sweepStaleTemps, tempPathFor, writeTempFile, type KeptFile } from './temp-files.js';
import { escapeDisplay } from '../model/display-text.js';

/** How an output file is written. */
export interface OutputFileOptions {
  /** The flag that named it (`--html`), for messages. */
  flag: string;
  /** Its kind: where its mark goes. */
  kind: OutputKind;
  /** Replace an existing file that is not quotient's output (never an input, never a read-only file). */
  force?: boolean;
}

/** What is at an output path: nothing (a new file), a device (written to, never replaced), or an entry to replace (a file's mode kept). */
type Target = { at: 'new' } | { at: 'device' } | { at: 'replace'; keep?: KeptFile };

function errno(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}

/** The flag's value must name something: an empty path is a flag error (exit 2), not "write nothing". Commands check it with their other flags. */
export function refuseEmptyPath(flag: string, path: string): void {
  if (path !== '') return;
  const example = flag === '--save' ? 'counterexamples/' : flag === '--report' ? 'mapping.txt' : 'report.html';
  throw new QuotientError('cli/empty-path', `${flag} was given an empty path`, `name what to write, e.g. ${flag} ${example}`);
}

/** The one-line refusal for an output that would replace or join an input. */
function inputRefusal(flag: string, path: string, hit: InputHit): QuotientError {
  const what =
    hit.how === 'read'
      ? `${hit.input === path ? 'it is' : `it is ${hit.input},`} an input this command read`
      : hit.how === 'inside'
        ? `it is a file of the policy folder ${hit.input}, which this command read`
        : `a new YAML file in the policy folder ${hit.input} would become part of that policy`;
  return new QuotientError(
    'io/output-is-input',
    `refusing to write ${flag} ${path}: ${what}; nothing was written`,
    hit.how === 'read' ? 'name a new file for the output: quotient never replaces a file it read' : 'write outputs outside the policy folder (or under another name that is not a policy file)',
  );
}

function keptOf(path: string, st: Stats): KeptFile {
  return { shown: path, mode: st.mode & 0o7777, uid: st.uid, gid: st.gid };
}

/**
 * Decides what writing `path` would do, refusing (a QuotientError, exit 2) everything
 * rule 1 and 2 forbid. Commands call it before their long work too (`simulate --html`),
 * so a refused path costs nothing.
 */
export function checkOutputFile(path: string, options: OutputFileOptions): void {
  targetOf(path, options);
}

/** One clear error for a file-system failure on the way (EACCES, ELOOP, ENOENT...), never a stack trace. */
function writeFailure(flag: string, path: string, e: unknown): QuotientError {
  if (e instanceof QuotientError) return e;
  return new QuotientError('cli/unwritable-file', `cannot write ${flag} ${path}: ${errno(e)}`, 'check the folder exists and is writable');
}

function targetOf(path: string, options: OutputFileOptions): Target {
  try {
    return judgeTarget(path, options);
  } catch (e) {
    throw writeFailure(options.flag, path, e);
  }
}

function judgeTarget(path: string, { flag, force = false }: OutputFileOptions): Target {
  refuseEmptyPath(flag, path);
  const hit = inputAt(path);
  if (hit && !(hit.how === 'inside' && carriesOutputMark(path))) throw inputRefusal(flag, path, hit);
  const link = lstatSync(path, { throwIfNoEntry: false });
  if (!link) return { at: 'new' };
  const st = statSync(path, { throwIfNoEntry: false });
  if (st && !st.isFile()) {
    if (st.isDirectory()) throw new QuotientError('cli/unwritable-file', `cannot write ${flag} ${path}: it is a folder`, 'name a file in it');
    // A device or pipe (/dev/null, /dev/stdout, a FIFO) is written to, never replaced.
    return { at: 'device' };
  }
  if (st) refuseReadOnly(path, path, st.mode, 'then run the command again');
  if (!force && !(st && carriesOutputMark(path)))
    throw new QuotientError(
      'io/not-quotient-output',
      `refusing to replace ${flag} ${path}: it exists and is not a file quotient wrote (${st ? 'it has no quotient-output mark' : 'it is a symbolic link to nothing'}); nothing was written`,
      `name a new file, or add --force to replace it`,
    );
  // A link to nothing (with --force) is replaced by a new file with the umask's mode.
  return { at: 'replace', keep: st ? keptOf(path, st) : undefined };
}

/**
 * Writes a file the user named by path: the one rule above, then the text with its mark.
 * Callers write it before printing their document, so a refused write (exit 2) prints
 * nothing; any failure is one QuotientError, never a stack trace.
 */
export function writeOutputFile(path: string, text: string, options: OutputFileOptions): void {
  const target = targetOf(path, options);
  const bytes = Buffer.from(markOutput(options.kind, text), 'utf8');
  try {
    if (target.at === 'device') writeFileSync(path, bytes);
    else if (!commitInFolder(dirname(path), basename(path), bytes, target.at === 'replace', target.at === 'replace' ? target.keep : undefined))
      throw new QuotientError('io/not-quotient-output', `refusing to replace ${options.flag} ${path}: a file appeared there while quotient was writing; nothing was replaced`, 'run the command again');
  } catch (e) {
    throw writeFailure(options.flag, path, e);
  }
}

/**
 * Refuses a folder to save into (`test --save DIR`) that is, or lies under, a policy
 * folder this command read: every file saved there would be read as part of the policy.
 * Commands call it before their work, as soon as the policy is read.
 */
export function checkOutputFolder(dir: string, flag: string): void {
  refuseEmptyPath(flag, dir);
  const folder = inputFolderAt(dir);
  if (folder !== undefined)
    throw new QuotientError(
      'io/output-is-input',
      `refusing to save into ${flag} ${dir}: it is ${folder === dir ? 'a policy folder' : `in the policy folder ${folder}`} this command read, and a file saved there would be read as part of the policy; nothing was saved`,
      'save into a folder outside the policy, e.g. --save counterexamples/',
    );
}

/** A file saved into a folder, and the names passed over on the way (each with why). */
export interface SavedFile {
  path: string;
  passed: Array<{ path: string; why: string }>;
}

/** Why a save may not take `path` (its name is taken by something not quotient's to replace); undefined when it may. */
function whyTaken(path: string): { why?: string; keep?: KeptFile } {
  const hit = inputAt(path);
  if (hit?.how === 'read') return { why: 'an input this command read' };
  const link = lstatSync(path, { throwIfNoEntry: false });
  if (!link) return {};
  if (link.isSymbolicLink()) return { why: 'a symbolic link' };
  if (!link.isFile()) return { why: 'not a regular file' };
  if (!carriesOutputMark(path)) return { why: 'a file quotient did not write' };
  if (link.nlink > 1) return { why: 'a file with other hard links' };
  try {
    refuseReadOnly(path, path, link.mode, '');
  } catch {
    return { why: 'read-only' };
  }
  return { keep: keptOf(path, link) };
}

/**
 * Saves `text` as `dir/name` (`name` one plain component, from safeFileName), or, when
 * that name is taken by anything but an earlier save of quotient's (an input, the user's
 * file, a link), as `name-2`, `name-3`... (never one of `avoid`: the names the other
 * saves of this run will take). The caller checked the folder with checkOutputFolder.
 */
export function saveInFolder(dir: string, name: string, text: string, avoid: ReadonlySet<string> = new Set()): SavedFile {
  if (name === '' || name === '.' || name === '..' || basename(name) !== name || name.includes('/') || name.includes('\\')) {
    throw new QuotientError('io/unsafe-file-name', `refusing to write "${name}": not a plain file name inside ${dir}`, 'make file names with safeFileName (src/io/safe-file-name.ts)');
  }
  const bytes = Buffer.from(markOutput('yaml', text), 'utf8');
  const ext = extname(name);
  const stem = name.slice(0, name.length - ext.length);
  const passed: SavedFile['passed'] = [];
  for (let k = 1; k <= 1000; k++) {
    const candidate = k === 1 ? name : `${stem}-${k}${ext}`;
    if (k > 1 && avoid.has(candidate.toLowerCase())) continue;
    const path = join(dir, candidate);
    const { why, keep } = whyTaken(path);
    if (why === undefined && commitInFolder(dir, candidate, bytes, keep !== undefined, keep)) return { path, passed };
    passed.push({ path, why: why ?? 'a file that appeared while quotient was writing' });
  }
  throw new QuotientError('io/no-free-name', `no free name for ${name} in ${dir} (tried ${name} to ${stem}-1000${ext})`, 'save into an empty folder');
}

/**
 * Writes `bytes` as `dir/name` through a temp file (with `keep`'s mode, owner and group,
 * else the umask's mode): renamed over the name when `replace`, else hard-linked to it,
 * which fails rather than replace a file that appeared since the name was judged free
 * (then false, nothing written). Sweeps the folder's stale temps first.
 */
function commitInFolder(dir: string, name: string, bytes: Uint8Array, replace: boolean, keep: KeptFile | undefined): boolean {
  const swept = sweepStaleTemps(dir);
  // Paths the user chose: escaped whole (model/display-text.ts), the one other writer to a terminal beside cli/output.ts.
  if (swept.length) process.stderr.write(`quotient: ${escapeDisplay(`removed ${swept.length} temp file(s) left in ${dir} by an interrupted quotient run: ${swept.join(', ')}`).text}\n`);
  const path = join(dir, name);
  const temp = tempPathFor(dir, name);
  writeTempFile(temp, bytes, keep);
  // The kill test's window (test/cli/output-files.test.ts): a run killed here leaves the temp for the next write to sweep.
  stepPause();
  let written = true;
  try {
    if (replace) renameSync(temp, path);
    else written = linkNew(temp, path);
  } catch (e) {
    try {
      unlinkSync(temp);
    } catch {
      // Already linked and dropped, or renamed.
    }
    throw e;
  }
  syncFolder(dir);
  return written;
}

/** Links `temp` to the new name `path` and drops the temp; false when the name is taken. File systems without hard links get a rename. */
function linkNew(temp: string, path: string): boolean {
  try {
    linkSync(temp, path);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') {
      unlinkSync(temp);
      return false;
    }
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS' && code !== 'EMLINK' && code !== 'EXDEV') throw e;
    renameSync(temp, path);
    return true;
  }
  unlinkSync(temp);
  return true;
}
