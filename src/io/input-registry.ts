/**
 * What this command read, so that no output it writes replaces it (issue 18: `simulate
 * --html jobs.csv` overwrote the trace it had just read). Every reader of a file the user
 * named records it here in one line (`noteReadFile`), and the policy reader records every
 * folder it walks (`noteReadFolder`); the output writer (write-in-folder.ts) asks
 * `inputAt` before it writes. A policy file's own folder counts too, for new YAML files
 * only: `check DIR` would read one with the files named from DIR.
 *
 * A file is known by its real path AND by its device and inode, so neither a symlink, a
 * hard link, `/dev/stdin`, nor another spelling of the path (`./a/../a/x.yaml`) gets an
 * output past the check. A folder stands for everything under it: an existing file there
 * is part of the policy the user keeps (a market CSV `export` did not read is still the
 * policy's), and a new `.yaml`/`.yml` file there would be read as part of the policy next
 * time.
 */
import { realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';

interface Seen {
  /** The path as the reader was given it (for messages). */
  shown: string;
  /** The real path (links resolved) when it was read. */
  real: string;
  /** `dev:ino` when it was read. */
  id: string;
}

const files = new Map<string, Seen>();
const folders = new Map<string, Seen>();
/** The folders that hold a policy file named on its own (`test a/p.yaml`): a new YAML file there would be read with it as one policy folder. */
const besidePolicy = new Map<string, Seen>();

function identify(path: string): { real: string; id: string; isDirectory: boolean } | undefined {
  try {
    // bigint: an inode number past 2^53 (some network and copy-on-write file systems) stays exact.
    const st = statSync(path, { bigint: true });
    return { real: realpathSync(path), id: `${st.dev}:${st.ino}`, isDirectory: st.isDirectory() };
  } catch {
    return undefined;
  }
}

function note(into: Map<string, Seen>, path: string): void {
  const at = identify(path);
  // A path that cannot be stated now was not read (the reader fails with its own message).
  if (at && !into.has(at.id)) into.set(at.id, { shown: path, real: at.real, id: at.id });
}

/**
 * Records a file this command read (`-`, stdin, is recorded by the caller as
 * `/dev/stdin`); `policy`: it is a policy file, so its folder gets no new YAML file.
 */
export function noteReadFile(path: string, kind: 'policy' | 'data' = 'data'): void {
  note(files, path);
  if (kind === 'policy') note(besidePolicy, dirname(path));
}

/** Records a folder this command read as (part of) a policy: nothing under it may be replaced, and no YAML file added. */
export function noteReadFolder(path: string): void {
  note(folders, path);
}

/** Forgets everything recorded (tests run several commands in one process). */
export function forgetReadInputs(): void {
  files.clear();
  folders.clear();
  besidePolicy.clear();
}

/**
 * What an output at a path would hit:
 *   - `read`: the path is (by real path or device and inode) a file or folder this command read;
 *   - `inside`: an existing file at or under a policy folder this command read;
 *   - `joins`: no file yet, but a YAML name at or under such a folder: the policy would read it.
 * `input` is the file or folder, as its reader named it.
 */
export interface InputHit {
  how: 'read' | 'inside' | 'joins';
  input: string;
}

function isPolicyName(name: string): boolean {
  return /\.ya?ml$/i.test(name);
}

/** The folder a new YAML file at `real` (a folder's real path) would join: a policy folder at or above it, or the folder of a policy file read. */
function policyFolderFor(real: string): Seen | undefined {
  return folderHolding(real) ?? besidePolicy.get(identify(real)?.id ?? '') ?? [...besidePolicy.values()].find((f) => f.real === real);
}

/** The recorded folder that holds `real` (a real path) or is it, walking up by path and by identity. */
function folderHolding(real: string): Seen | undefined {
  const byPath = new Map([...folders.values()].map((f) => [f.real, f]));
  for (let dir = real; ; dir = dirname(dir)) {
    const found = byPath.get(dir) ?? folders.get(identify(dir)?.id ?? '');
    if (found) return found;
    if (dirname(dir) === dir) return undefined;
  }
}

/** The real path `path` leads to, or, when it does not exist, its deepest existing folder's real path joined with the rest. */
function realOrPlanned(path: string): string | undefined {
  const missing: string[] = [];
  for (let p = resolve(path); ; p = dirname(p)) {
    const at = identify(p);
    if (at) return join(at.real, ...missing.reverse());
    if (dirname(p) === p) return undefined;
    missing.push(basename(p));
  }
}

/** What writing a file at `target` would replace or join among this command's inputs; undefined when nothing. */
export function inputAt(target: string): InputHit | undefined {
  const at = identify(target);
  if (at) {
    const read = files.get(at.id) ?? [...files.values()].find((f) => f.real === at.real) ?? folders.get(at.id) ?? [...folders.values()].find((f) => f.real === at.real);
    if (read) return { how: 'read', input: read.shown };
    const folder = folderHolding(at.isDirectory ? at.real : dirname(at.real));
    return folder ? { how: 'inside', input: folder.shown } : undefined;
  }
  const planned = realOrPlanned(target);
  if (planned === undefined || !isPolicyName(basename(planned))) return undefined;
  const folder = policyFolderFor(dirname(planned));
  return folder ? { how: 'joins', input: folder.shown } : undefined;
}

/** The policy folder this command read that `dir` is, or lies under (existing or not yet made), or that holds a policy file it read; undefined when none. */
export function inputFolderAt(dir: string): string | undefined {
  const planned = realOrPlanned(dir);
  return planned === undefined ? undefined : policyFolderFor(planned)?.shown;
}
