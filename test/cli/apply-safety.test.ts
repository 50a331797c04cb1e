/**
 * `quotient scale --apply` never loses or corrupts a policy, end to end through the
 * built CLI: the block-style corruption of issue 7, bytes that are not UTF-8, read-only
 * files, symlinks, hard links, an edit the proof rejects, a file saved by someone else
 * mid-write, and two applies at once.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const SET = ['--set', 'Quota1.1=56', '--set', 'Quota1.2=72'];
const ENV = { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, QUOTIENT_USER: undefined };

function quotient(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...ENV, ...env }, timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The same run, not waited for. */
function start(args: string[], env: Record<string, string> = {}): Promise<{ status: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env: { ...ENV, ...env } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => done({ status, stderr }));
  });
}

const tmp = mkdtempSync(join(tmpdir(), 'quotient-apply-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;

/** A copy of policies/quota-scaling whose jobs are block mappings, a comment after each name. */
function blockCopy(): string {
  const dir = join(tmp, `p${n++}`);
  cpSync(join(ROOT, 'policies/quota-scaling'), dir, { recursive: true });
  const file = join(dir, 'cluster.yaml');
  const text = readFileSync(file, 'utf8').replace(
    /^ {4}- \{ (name: .*) \}$/gm,
    (_l, body: string) =>
      `    - ${body
        .split(/, (?![^{]*\})/)
        .join('\n      ')
        .replace('\n', '   # a job\n')}`,
  );
  writeFileSync(file, text);
  return dir;
}

const files = (dir: string) => Object.fromEntries(readdirSync(dir).map((f) => [f, statSync(join(dir, f)).isFile() ? readFileSync(join(dir, f), 'latin1') : '(dir)']));
const leftovers = (dir: string) => readdirSync(dir).filter((f) => f.startsWith('.'));

describe('scale --apply writes a policy that loads to exactly the intent', () => {
  it("adds a block job's standing on its own line (the issue 7 corruption), and check passes", () => {
    const dir = blockCopy();
    const before = readFileSync(join(dir, 'cluster.yaml'), 'utf8');
    const r = quotient(['scale', dir, ...SET, '--apply']);
    expect(r.stderr).toContain('applied: Quota1.1=56, Quota1.2=72');
    expect(r.status).toBe(0);
    expect(readFileSync(join(dir, 'cluster.yaml'), 'utf8')).toBe(before.replace('- name: dsw-c-notebooks   # a job\n', '- name: dsw-c-notebooks   # a job\n      standing: borrowing\n'));
    const check = quotient(['check', dir]);
    expect(check.status).toBe(0);
    expect(leftovers(dir)).toEqual([]);
  });

  it('never rewrites a file that is not UTF-8: the loader refuses it (policy/invalid-utf8) and no byte changes', () => {
    const dir = blockCopy();
    const quotas = join(dir, 'quotas.yaml');
    // "# équipe" in Latin-1: E9 is not valid UTF-8.
    const before = Buffer.concat([Buffer.from('# \xe9quipe B\n', 'latin1'), readFileSync(quotas)]);
    writeFileSync(quotas, before);
    const r = quotient(['scale', dir, ...SET, '--apply']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('policy/invalid-utf8');
    expect(readFileSync(quotas).equals(before)).toBe(true);
  });

  it('refuses an edit whose result the loader reads differently (a shared anchor), writing nothing', () => {
    const dir = blockCopy();
    const quotas = join(dir, 'quotas.yaml');
    // Quota2 shares Quota1.1's min through an anchor: editing the one token would change both.
    writeFileSync(quotas, readFileSync(quotas, 'utf8').replace('min: { gpu: 48 }', 'min: &same { gpu: 48 }').replace('min: { gpu: 80 }\n', 'min: { gpu: 80 }\n    - name: Quota2\n      min: *same\n'));
    writeFileSync(join(dir, 'cluster.yaml'), readFileSync(join(dir, 'cluster.yaml'), 'utf8').replace('count: 16', 'count: 24'));
    const before = files(dir);
    const r = quotient(['scale', dir, ...SET, '--apply', '--json']);
    expect(r.stderr).toMatch(/would not load to the intended policy \(policy\.quotas\[3\]\.min\.gpu: 48 ≠ 56\); nothing was written/);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(files(dir)).toEqual(before);
  });
});

describe('scale --apply respects the files', () => {
  it('refuses a read-only file with exit 2 and keeps it and its mode', () => {
    const dir = blockCopy();
    chmodSync(join(dir, 'cluster.yaml'), 0o444);
    const before = files(dir);
    const r = quotient(['scale', dir, ...SET, '--apply']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/cluster\.yaml is read-only \(mode 0444\); nothing was written/);
    expect(files(dir)).toEqual(before);
    expect(statSync(join(dir, 'cluster.yaml')).mode & 0o777).toBe(0o444);
  });

  it('writes a symlinked file through to its target, and refuses a hard-linked one', () => {
    const dir = blockCopy();
    mkdirSync(join(tmp, `shared${n}`));
    const target = join(tmp, `shared${n}`, 'cluster.yaml');
    renameSync(join(dir, 'cluster.yaml'), target);
    symlinkSync(target, join(dir, 'cluster.yaml'));
    expect(quotient(['scale', dir, ...SET, '--apply']).status).toBe(0);
    expect(statSync(join(dir, 'cluster.yaml')).isFile()).toBe(true);
    expect(readFileSync(target, 'utf8')).toContain('standing: borrowing');
    expect(readdirSync(dirname(target))).toEqual(['cluster.yaml']);

    const linked = blockCopy();
    linkSync(join(linked, 'quotas.yaml'), join(tmp, `hard${n}.yaml`));
    const before = files(linked);
    const r = quotient(['scale', linked, ...SET, '--apply']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/quotas\.yaml has 2 hard links/);
    expect(files(linked)).toEqual(before);
  });

  it('never overwrites a file someone saved while the apply was writing, and writes no file', async () => {
    const dir = blockCopy();
    const run = start(['scale', dir, ...SET, '--apply'], { QUOTIENT_TEST_STEP_DELAY_MS: '300' });
    // Once the journal appears the apply has read the files; save one of them "in an editor".
    const deadline = Date.now() + 20_000;
    while (!existsSync(join(dir, '.quotient-journal.json')) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    const cluster = readFileSync(join(dir, 'cluster.yaml'), 'utf8');
    const quotas = `${readFileSync(join(dir, 'quotas.yaml'), 'utf8')}# saved by someone else\n`;
    writeFileSync(join(dir, 'quotas.yaml'), quotas);
    const r = await run;
    expect(r.stderr).toMatch(/quotas\.yaml was changed by someone else since quotient read it; nothing was written/);
    expect(r.status).toBe(2);
    expect(readFileSync(join(dir, 'quotas.yaml'), 'utf8')).toBe(quotas);
    expect(readFileSync(join(dir, 'cluster.yaml'), 'utf8')).toBe(cluster);
    expect(leftovers(dir)).toEqual([]);
  });

  it('lets only one of two simultaneous applies write; the other exits 2', async () => {
    const dir = blockCopy();
    // Both read the files, then contend for the lock at the same instant (a test barrier).
    const slow = { QUOTIENT_TEST_STEP_DELAY_MS: '100', QUOTIENT_TEST_LOCK_AT: String(Date.now() + 8_000) };
    const [a, b] = await Promise.all([start(['scale', dir, ...SET, '--apply'], slow), start(['scale', dir, '--set', 'Quota1.1=52', '--set', 'Quota1.2=76', '--apply'], slow)]);
    const results = [a, b];
    expect(results.map((r) => r.status).sort()).toEqual([0, 2]);
    const winner = results[0]?.status === 0 ? 0 : 1;
    expect(results[1 - winner]?.stderr).toMatch(/locked by pid \d+ on .+, quotient scale --apply since/);
    const quotas = readFileSync(join(dir, 'quotas.yaml'), 'utf8');
    expect(quotas).toContain(winner === 0 ? 'min: { gpu: 56 }' : 'min: { gpu: 52 }');
    expect(quotient(['check', dir]).status).toBe(0);
    expect(leftovers(dir)).toEqual([]);
  });
});
