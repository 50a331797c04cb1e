/**
 * Reading policy files from disk into bundles. A bundle is one policy: its files merge
 * into one model. Files named on the command line form one bundle together; a folder
 * that holds YAML files is one bundle (its files, recursively); a folder that holds
 * only folders stands for each of them, so `quotient check policies/` checks every
 * shipped example on its own.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { QuotientError } from '../errors.js';
import { compareText } from '../model/order.js';
import type { InputFile } from './source-doc.js';

export interface Bundle {
  /** What the user named: the folder, or the files joined by spaces. */
  label: string;
  files: InputFile[];
}

/** Reads the paths into bundles. Unreadable or empty paths are a QuotientError (exit 2). */
export function readBundles(paths: string[], cwd = process.cwd()): Bundle[] {
  if (paths.length === 0) throw new QuotientError('cli/no-files', 'no policy files given', 'name one or more YAML files or folders, e.g. `quotient check policies/`');
  const bundles: Bundle[] = [];
  const loose: string[] = [];
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      throw new QuotientError('cli/no-such-file', `no such file or folder: ${p}`, 'check the path');
    }
    if (st.isDirectory()) bundles.push(...folderBundles(p, cwd));
    else loose.push(p);
  }
  if (loose.length > 0) bundles.unshift({ label: loose.join(' '), files: loose.map(readOne) });
  return bundles;
}

function folderBundles(dir: string, cwd: string): Bundle[] {
  const entries = readdirSync(dir, { withFileTypes: true }).sort((a, b) => compareText(a.name, b.name));
  const hasYaml = entries.some((e) => e.isFile() && isYaml(e.name));
  if (hasYaml) {
    return [{ label: display(dir, cwd), files: listYaml(dir).map((f) => readOne(display(f, cwd))) }];
  }
  const subs = entries.filter((e) => e.isDirectory()).flatMap((e) => folderBundles(join(dir, e.name), cwd));
  if (subs.length === 0) throw new QuotientError('cli/empty-folder', `folder ${dir} holds no .yaml or .yml files`, 'name a folder with policy files, or the files themselves');
  return subs;
}

function readOne(path: string): InputFile {
  try {
    return { path, text: readFileSync(path, 'utf8') };
  } catch (e) {
    throw new QuotientError('cli/unreadable-file', `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'check the path and its permissions');
  }
}

function isYaml(name: string): boolean {
  return /\.ya?ml$/.test(name);
}

function listYaml(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => compareText(a.name, b.name))) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listYaml(full));
    else if (isYaml(entry.name)) out.push(full);
  }
  return out;
}

function display(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === '' ? '.' : rel.startsWith('..') ? path : rel;
}
