/**
 * Reading policy files from disk into bundles. A bundle is one policy: its files merge
 * into one model. Files named on the command line form one bundle together; a folder
 * that holds YAML files is one bundle (its files, recursively); a folder that holds
 * only folders stands for each of them, so `quotient check policies/` checks every
 * shipped example on its own.
 *
 * Symbolic links are followed, to files and to folders (a folder linked twice, or a
 * link that points back into its own folder, is a loop and refused). Anything that
 * is not a regular file is refused before it is opened: a FIFO or a device would block
 * a read forever. Every file-system failure is a QuotientError (exit 2) with one line
 * naming the path and what went wrong (`fs-failure.ts`); problems in the bytes (not
 * UTF-8, over the size limit) are findings of the file, reported with the parse stage.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync, realpathSync, statSync, type Stats } from 'node:fs';
import { join, relative } from 'node:path';
import { QuotientError, type Finding } from '../../errors.js';
import { escapeDisplay } from '../../model/display-text.js';
import { compareText } from '../../model/order.js';
import { fsFailure, kindOf } from './fs-failure.js';
import { currentLimits, formatBytes, raiseHint, type Limits } from './limits.js';
import type { InputFile } from './source-doc.js';
import { decodeUtf8 } from './utf8.js';
import { digestOf } from '../../io/digest.js';
import { policyFolder, settleFolder } from '../../io/settle-folder.js';
import { noteReadFile, noteReadFolder } from '../../io/input-registry.js';

export interface Bundle {
  /** What the user named: the folder, the files joined by spaces, or `folder + files` when files were named beside a folder. */
  label: string;
  files: InputFile[];
  /** The paths that make this policy again on a command line (the folder, then any files named beside it). */
  paths: string[];
}

/** What was read, by display path: renderers print the line a finding points at from it. */
const readTexts = new Map<string, string>();

/** The text of a file read by `readBundles` in this process, by the path findings carry. */
export function readSourceText(path: string): string | undefined {
  return readTexts.get(path);
}

/**
 * Reads the paths into bundles. Unreadable or empty paths are a QuotientError (exit 2).
 *
 * Files named without a folder form one bundle. Files named beside folders join every
 * bundle the folders stand for (`quotient whatif policy/ cluster.yaml`): they are marked
 * `beside`, and when they hold a Cluster it replaces the folder's (beside-cluster.ts). A
 * named file that is already one of the folder's is not read twice, nor is a file or
 * folder named twice (a note on stderr says so).
 */
export function readBundles(paths: string[], cwd = process.cwd(), limits: Limits = currentLimits()): Bundle[] {
  if (paths.length === 0) throw new QuotientError('cli/no-files', 'no policy files given', 'name one or more YAML files or folders, e.g. `quotient check policies/`');
  const bundles: Bundle[] = [];
  const loose: string[] = [];
  // A file or folder named twice (`a.yaml ./a.yaml`, or through a link) is read once: read
  // twice, every name it declares would be "already declared" at itself. Identity is the
  // device and inode the path leads to, which sees through links and spellings alike.
  const named = new Map<string, string>();
  // Folders made into bundles so far, by the same identity: `check policies/ policies/a` checks a once.
  const made = new Map<string, string>();
  for (const p of paths) {
    const st = statPath(p, true);
    const id = `${st.dev}:${st.ino}`;
    const first = named.get(id);
    if (first !== undefined) {
      sayNote(`${p === first ? `${p} is named more than once` : `${p} is the same ${st.isDirectory() ? 'folder' : 'file'} as ${first}`}; it is read once`);
      continue;
    }
    named.set(id, p);
    if (st.isDirectory()) bundles.push(...folderBundles(p, cwd, limits, new Set(), made));
    else if (st.isFile()) loose.push(p);
    else throw new QuotientError('cli/not-a-file', `${p} is ${kindOf(st)}, not a policy file`, 'name YAML files or folders of them');
  }
  if (loose.length === 0) return bundles;
  settle(policyFolder(loose));
  if (bundles.length === 0) return [{ label: loose.join(' '), files: readAll(loose, limits), paths: loose }];
  return bundles.map((b) => withBeside(b, loose, limits));
}

/** `b` with the files named beside its folder added, each read once and marked `beside`. */
function withBeside(b: Bundle, loose: string[], limits: Limits): Bundle {
  const inside = new Set(b.files.map((f) => realPathOf(f.path)));
  const extra = loose.filter((p) => !inside.has(realPathOf(p)));
  if (extra.length === 0) return b;
  // The size limit is for the whole policy: the folder's bytes count against the files beside it.
  const already = b.files.reduce((n, f) => n + Buffer.byteLength(f.text), 0);
  const files = readAll(extra, { ...limits, maxBytes: Math.max(0, limits.maxBytes - already) }).map((f) => Object.assign(f, { beside: true as const }));
  return { label: `${b.label} + ${extra.join(' ')}`, files: [...b.files, ...files], paths: [...b.paths, ...extra] };
}

function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Finishes or undoes an interrupted `scale --apply` in the folder before it is read
 * (io/settle-folder.ts), saying so on stderr, so no command ever reads half a write.
 */
function settle(dir: string): void {
  for (const note of settleFolder(dir)) sayNote(note);
}

/**
 * A note on stderr while reading (a path named twice, an interrupted write settled): one
 * line, escaped whole (model/display-text.ts), since it names paths the user gave. The
 * policy layer's only writer to a terminal (test/unit/cli/display-sites.test.ts).
 */
function sayNote(text: string): void {
  process.stderr.write(`quotient: ${escapeDisplay(text).text}\n`);
}

/** The text of a policy file's bytes, as every command reads it. */
export function decodePolicyBytes(bytes: Buffer): string {
  return decodeUtf8(bytes).text;
}

/** `stat` that follows links, with each failure (a dangling link, a loop, no permission) named; `named`: the user typed this path. */
function statPath(path: string, named = false): Stats {
  try {
    return statSync(path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      // A link whose target is gone is not "no such file": the link is there.
      if (isLink(path)) throw new QuotientError('cli/broken-link', `${path} is a symbolic link to a file that does not exist`, 'fix or remove the link');
      if (named) throw new QuotientError('cli/no-such-file', `no such file or folder: ${path}`, 'check the path');
    }
    throw fsFailure(e, path);
  }
}

function tryStat(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The bundles under a folder. `seen` holds the real paths of the folders on the way
 * down: meeting one again through a link is a loop. `made` holds the folders already made
 * into bundles in this call of readBundles (by device and inode): one met again gives none.
 */
function folderBundles(dir: string, cwd: string, limits: Limits, seen: Set<string>, made: Map<string, string>): Bundle[] {
  const entries = listFolder(dir, seen);
  if (entries.some((e) => e.st.isFile() && isYaml(e.name))) {
    const st = statPath(dir);
    const id = `${st.dev}:${st.ino}`;
    const first = made.get(id);
    if (first !== undefined) {
      const here = display(dir, cwd);
      sayNote(`${here === first ? `${here} is named more than once` : `${here} is the same folder as ${first}`}; it is checked once`);
      return [];
    }
    made.set(id, display(dir, cwd));
    settle(dir);
    return [
      {
        label: display(dir, cwd),
        paths: [display(dir, cwd)],
        files: readAll(
          yamlFiles(entries, seen).map((f) => display(f, cwd)),
          limits,
        ),
      },
    ];
  }
  const subs = entries.filter((e) => e.st.isDirectory()).flatMap((e) => folderBundles(e.full, cwd, limits, new Set(seen), made));
  // A sub-folder gives no bundle only when it was read already (an empty one is refused), so only a folder without folders is empty.
  if (subs.length === 0 && !entries.some((e) => e.st.isDirectory()))
    throw new QuotientError('cli/empty-folder', `folder ${dir} holds no .yaml or .yml files`, 'name a folder with policy files, or the files themselves');
  return subs;
}

interface Entry {
  name: string;
  full: string;
  st: Stats;
}

/** A folder's entries in name order, links followed, each file's kind known; a YAML name that is not a regular file is refused. */
function listFolder(dir: string, seen: Set<string>): Entry[] {
  let real: string;
  let names: string[];
  try {
    real = realpathSync(dir);
    names = readdirSync(dir);
  } catch (e) {
    throw fsFailure(e, dir);
  }
  if (seen.has(real)) throw new QuotientError('cli/link-loop', `${dir} leads back to a folder above it through symbolic links`, 'remove the link that makes the loop');
  seen.add(real);
  noteReadFolder(dir);
  const out: Entry[] = [];
  for (const name of names.sort(compareText)) {
    const full = join(dir, name);
    // Only YAML files and folders are the policy's business: a broken link named notes.txt is not.
    const st = isYaml(name) ? statPath(full) : tryStat(full);
    if (!st) continue;
    if (isYaml(name) && !st.isFile() && !st.isDirectory()) {
      throw new QuotientError('cli/not-a-file', `${full} is ${kindOf(st)}, not a policy file`, 'remove it from the folder, or name the policy files themselves');
    }
    out.push({ name, full, st });
  }
  return out;
}

/** Every YAML file among `entries` and under their folders, recursively, in name order; `seen` as for folderBundles. */
function yamlFiles(entries: Entry[], seen: Set<string>): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (e.st.isDirectory()) {
      const below = new Set(seen);
      out.push(...yamlFiles(listFolder(e.full, below), below));
    } else if (e.st.isFile() && isYaml(e.name)) out.push(e.full);
  }
  return out;
}

/** Reads the files of one bundle, counting bytes against the limit before reading each. */
function readAll(paths: string[], limits: Limits): InputFile[] {
  let total = 0;
  let over = false;
  return paths.map((path) => {
    // Past the limit the policy is refused: the files after it are not read at all.
    if (over) return { path, text: '' };
    const file = readOne(path, limits.maxBytes - total);
    total += file.bytes;
    if (file.tooBig) {
      over = true;
      const finding: Finding = {
        file: path,
        line: 1,
        column: 1,
        code: 'policy/too-large',
        severity: 'error',
        path: '',
        message: `the policy's files come to ${formatBytes(total)} with this one, more than the limit of ${formatBytes(limits.maxBytes)}`,
        hint: raiseHint('maxBytes', limits.maxBytes),
      };
      return { path, text: '', findings: [finding] };
    }
    readTexts.set(path, file.input.text);
    return file.input;
  });
}

/**
 * Reads one file: opened without blocking (a file swapped for a FIFO after it was
 * listed must not hang the read), checked to be a regular file on the open descriptor,
 * and read only when its size fits in `room` bytes (else `tooBig`, and nothing is read).
 */
export function readOne(path: string, room = Number.MAX_SAFE_INTEGER): { input: InputFile; bytes: number; tooBig: boolean } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (e) {
    throw fsFailure(e, path);
  }
  noteReadFile(path, 'policy');
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new QuotientError('cli/not-a-file', `${path} is ${kindOf(st)}, not a policy file`, 'name YAML files or folders of them');
    if (st.size > room) return { input: { path, text: '' }, bytes: st.size, tooBig: true };
    const bytes = readFileSync(fd);
    const decoded = decodeUtf8(bytes);
    const bad = decoded.invalid;
    if (bad === undefined) return { input: { path, text: decoded.text, digest: digestOf(bytes) }, bytes: bytes.length, tooBig: false };
    const finding: Finding = {
      file: path,
      line: bad.line,
      column: bad.column,
      start: bad.offset,
      end: bad.offset + 1,
      code: 'policy/invalid-utf8',
      severity: 'error',
      path: '',
      message: `byte 0x${bad.byte.toString(16).toUpperCase().padStart(2, '0')} (byte ${bad.byteOffset} of the file) is not UTF-8`,
      hint: 'save the file as UTF-8 (for example `iconv -f latin1 -t utf-8`); policies are read as UTF-8 only',
    };
    return { input: { path, text: decoded.text, findings: [finding], digest: digestOf(bytes) }, bytes: bytes.length, tooBig: false };
  } catch (e) {
    throw fsFailure(e, path);
  } finally {
    closeSync(fd);
  }
}

function isYaml(name: string): boolean {
  return /\.ya?ml$/.test(name);
}

function display(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}
