/**
 * Which policy an edited file belongs to, and its files as the editor holds them.
 *
 * `quotient check FOLDER` makes a folder that directly holds YAML files one policy, with
 * every YAML file below it (policy/parse/read-files.ts). The server finds the same folder
 * for a file: from the file's folder upwards, as long as the folder above also holds YAML
 * files and stays inside the editor's workspace. The files are then read by `readBundles`
 * itself, so the server's policy is the one `check` reads, and each file open in the
 * editor is taken from its buffer instead of the disk (the overlay): diagnostics follow
 * unsaved text.
 */
import { readdirSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import type { InputFile } from '../policy/parse/source-doc.js';
import { readBundles } from '../policy/parse/read-files.js';

/** One policy folder, read with the editor's buffers laid over the disk. */
export interface PolicyFiles {
  /** The folder (absolute). */
  root: string;
  /** Where the files' display paths start (the process's folder, as for `check`): findings name files relative to it. */
  base: string;
  files: InputFile[];
  /** True when some file's text came from the editor and differs from the disk. */
  edited: boolean;
}

/** True when the folder directly holds a .yaml or .yml file. */
function holdsYaml(dir: string): boolean {
  try {
    return readdirSync(dir).some((n) => /\.ya?ml$/.test(n));
  } catch {
    return false;
  }
}

/** True when `path` is `dir` or below it. */
export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * The policy folder of a file: its own folder, then each folder above that holds YAML
 * files too, up to (and including) the workspace folder that contains it. Outside every
 * workspace folder the file's own folder is its policy.
 */
export function policyRootOf(file: string, workspaces: readonly string[]): string {
  let dir = dirname(resolve(file));
  const within = workspaces.filter((w) => isInside(dir, w)).sort((a, b) => b.length - a.length)[0];
  if (!within) return dir;
  while (dir !== within) {
    const up = dirname(dir);
    if (up === dir || !isInside(up, within) || !holdsYaml(up)) break;
    dir = up;
  }
  return dir;
}

/**
 * The files of the policy at `root`, read as `check root` reads them, with `overlay`'s
 * text (absolute path → the editor's text) in place of the disk's. A file open in the
 * editor but not yet on disk joins the policy when it lies under the folder.
 * Throws the reader's QuotientError when the folder cannot be read.
 */
export function readPolicyFiles(root: string, overlay: ReadonlyMap<string, string>): PolicyFiles {
  // Named as check names them: relative to the process's folder (absolute outside it), and read from there.
  const base = process.cwd();
  const bundles = holdsYaml(root) ? readBundles([root], base) : [];
  const files: InputFile[] = [];
  let edited = false;
  const seen = new Set<string>();
  for (const b of bundles)
    for (const f of b.files) {
      const abs = resolve(base, f.path);
      seen.add(abs);
      const text = overlay.get(abs);
      if (text === undefined || text === f.text) files.push(f);
      else {
        // The digest names the disk's bytes: dropped, so the cache keys the buffer's text.
        files.push({ path: f.path, text });
        edited = true;
      }
    }
  const unsaved = [...overlay.keys()].filter((p) => !seen.has(p) && /\.ya?ml$/.test(p) && isInside(p, root)).sort();
  for (const p of unsaved) {
    files.push({ path: relative(base, p).split(sep).join('/'), text: overlay.get(p) ?? '' });
    edited = true;
  }
  return { root, base, files, edited };
}
