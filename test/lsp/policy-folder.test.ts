/**
 * Which policy an edited file belongs to (the folder `quotient check FOLDER` would read it
 * in), and the overlay: open buffers read instead of the disk, an unsaved new file joining
 * its folder's policy, and the compiled-policy cache left out once a buffer differs.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { policyRootOf, readPolicyFiles } from '../../src/lsp/policy-folder.js';
import { tempDirs } from '../helpers/temp-dirs.js';

const temp = tempDirs('quotient-lsp-folder-');

function tree(files: string[]): string {
  const root = temp();
  for (const f of files) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    writeFileSync(join(root, f), `# ${f}\n`);
  }
  return root;
}

describe('policyRootOf', () => {
  it('climbs while the folder above holds YAML files, within the workspace folder', () => {
    const ws = tree(['a/q.yaml', 'a/sub/x.yaml', 'b/c/x.yaml', 'b/readme.txt']);
    expect(policyRootOf(join(ws, 'a/sub/x.yaml'), [ws])).toBe(join(ws, 'a'));
    expect(policyRootOf(join(ws, 'a/q.yaml'), [ws])).toBe(join(ws, 'a'));
    // b holds no YAML of its own: b/c is a policy by itself, as `check b` reads it.
    expect(policyRootOf(join(ws, 'b/c/x.yaml'), [ws])).toBe(join(ws, 'b/c'));
  });

  it('never climbs above the workspace folder, and outside every workspace takes the file’s own folder', () => {
    const ws = tree(['top.yaml', 'p/q.yaml']);
    expect(policyRootOf(join(ws, 'p/q.yaml'), [join(ws, 'p')])).toBe(join(ws, 'p'));
    expect(policyRootOf(join(ws, 'p/q.yaml'), [])).toBe(join(ws, 'p'));
    expect(policyRootOf(join(ws, 'p/q.yaml'), [ws])).toBe(ws);
  });
});

describe('readPolicyFiles', () => {
  it('reads open buffers instead of the disk, adds an unsaved file of the folder, and says the policy is edited', () => {
    const ws = tree(['p/a.yaml', 'p/b.yaml', 'other/c.yaml']);
    const p = join(ws, 'p');
    const clean = readPolicyFiles(p, new Map());
    expect(clean.edited).toBe(false);
    expect(clean.files.map((f) => resolve(clean.base, f.path))).toEqual([join(p, 'a.yaml'), join(p, 'b.yaml')]);

    const overlay = new Map([
      [join(p, 'a.yaml'), 'edited: true\n'],
      [join(p, 'new.yaml'), 'unsaved: true\n'],
      [join(ws, 'other/c.yaml'), 'elsewhere: true\n'],
    ]);
    const read = readPolicyFiles(p, overlay);
    expect(read.edited).toBe(true);
    const byPath = new Map(read.files.map((f) => [resolve(read.base, f.path), f]));
    expect([...byPath.keys()]).toEqual([join(p, 'a.yaml'), join(p, 'b.yaml'), join(p, 'new.yaml')]);
    expect(byPath.get(join(p, 'a.yaml'))?.text).toBe('edited: true\n');
    // The disk's digest would key the cache to the disk's bytes: an edited buffer has none.
    expect(byPath.get(join(p, 'a.yaml'))?.digest).toBeUndefined();
    expect(byPath.get(join(p, 'b.yaml'))?.text).toBe('# p/b.yaml\n');
    expect(byPath.get(join(p, 'b.yaml'))?.digest).toBeDefined();
  });

  it('takes a buffer equal to the disk as unedited (the cache may serve it)', () => {
    const ws = tree(['p/a.yaml']);
    const p = join(ws, 'p');
    expect(readPolicyFiles(p, new Map([[join(p, 'a.yaml'), '# p/a.yaml\n']])).edited).toBe(false);
  });
});
