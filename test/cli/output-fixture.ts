/**
 * A scratch folder for the output-file tests (output-files.test.ts and its property): the
 * spot-market policy as `P` (its trace `P/jobs.csv` inside it), a copy of the trace as
 * `jobs.csv` beside it, and the broken-promise example as `B` with its promise renamed
 * `policy`, so `test B --save DIR` saves `DIR/policy.yaml`, the name of B's own file.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, copyFileSync, lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../helpers/run-cli.js';

const MAIN = join(ROOT, 'dist/cli/main.js');

/** Makes the scratch folder and returns its path. */
export function makeFixture(prefix: string): string {
  const root = mkdtempSync(join(tmpdir(), prefix));
  cpSync(join(ROOT, 'policies/spot-market'), join(root, 'P'), { recursive: true });
  copyFileSync(join(root, 'P/jobs.csv'), join(root, 'jobs.csv'));
  cpSync(join(ROOT, 'docs/examples/broken-promise'), join(root, 'B'), { recursive: true });
  const promises = join(root, 'B/promises.yaml');
  const text = readFileSync(promises, 'utf8');
  const renamed = text.replace('metadata: { name: workspace-b-loses-little }', 'metadata: { name: policy }');
  if (renamed === text) throw new Error('the broken-promise example changed: rename its promise to `policy` another way');
  writeFileSync(promises, renamed);
  return root;
}

/** Runs `quotient ARGS` in `cwd` (relative paths as a user types them). */
export function quotientIn(cwd: string, args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...env }, timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Every entry under `dir` (relative path → digest and mode of a file, or `-> target` of a link), to compare before and after. */
export function fingerprint(dir: string, prefix = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    const rel = join(prefix, name);
    const st = lstatSync(join(dir, rel));
    if (st.isSymbolicLink()) out[rel] = `-> ${readlinkSync(join(dir, rel))}`;
    else if (st.isDirectory()) Object.assign(out, fingerprint(dir, rel));
    else
      out[rel] = `${createHash('sha256')
        .update(readFileSync(join(dir, rel)))
        .digest('hex')} ${(st.mode & 0o7777).toString(8)}`;
  }
  return out;
}
