/**
 * Files the user gave are never replaced (issue 18, "Files the user gave are replaced"),
 * each reproduction run as a user runs it: the real CLI, then the exit code, an empty
 * stdout, and every file of the scratch folder byte-identical (and of the same mode)
 * afterwards. Then: an existing output keeps its mode, `--html ''` is a flag error, and
 * the temp file of a killed run is swept by the next write.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fingerprint, makeFixture, quotientIn } from './output-fixture.js';
import { ROOT } from '../helpers/run-cli.js';

const root = makeFixture('quotient-outputs-');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Runs the command and expects exit 2 with nothing on stdout and nothing under the scratch folder changed; returns stderr. */
function refused(args: string[]): string {
  const before = fingerprint(root);
  const r = quotientIn(root, args);
  expect(r.status, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(fingerprint(root)).toEqual(before);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  return r.stderr;
}

describe('output files never replace the files the user gave', () => {
  it('simulate --html onto a policy file of the policy it reads: refused, naming the file', () => {
    expect(refused(['simulate', 'P', '--trace', 'jobs.csv', '--html', 'P/quotas.yaml'])).toContain('P/quotas.yaml');
  });

  it('simulate --html onto the trace it just read: refused, naming the trace', () => {
    expect(refused(['simulate', 'P', '--trace', 'jobs.csv', '--html', 'jobs.csv'])).toContain('jobs.csv');
    // --force changes nothing for an input, outside the policy folder or in it.
    refused(['simulate', 'P', '--trace', 'jobs.csv', '--html', 'jobs.csv', '--force']);
    refused(['simulate', 'P', '--trace', 'P/jobs.csv', '--html', 'P/jobs.csv', '--force']);
  });

  it('export pai --report onto a policy file: refused, and so is a file of the policy folder export does not read', () => {
    expect(refused(['export', 'pai', 'P', '--report', 'P/quotas.yaml'])).toContain('P/quotas.yaml');
    expect(refused(['export', 'pai', 'P', '--report', 'P/prices.csv', '--force'])).toContain('P/prices.csv');
  });

  it('test DIR --save DIR with a promise named policy: refused before any state is generated; policy.yaml kept', () => {
    expect(refused(['test', 'B', '--seed', '7', '--save', 'B'])).toContain('B');
    refused(['test', 'B', '--seed', '7', '--save', 'B/counterexamples']);
    // The policy's files named one by one: their folder gets no new YAML file either.
    refused(['test', 'B/policy.yaml', 'B/promises.yaml', 'B/cluster.yaml', '--seed', '7', '--save', 'B']);
  });

  it("test --save into a folder where the user's policy.yaml sits: saved under another name, and stderr says which and why", () => {
    mkdirSync(join(root, 'saves'));
    writeFileSync(join(root, 'saves/policy.yaml'), 'mine\n');
    const r = quotientIn(root, ['test', 'B', '--seed', '7', '--save', 'saves']);
    expect(r.status, r.stderr).toBe(1);
    expect(readFileSync(join(root, 'saves/policy.yaml'), 'utf8')).toBe('mine\n');
    expect(readdirSync(join(root, 'saves')).sort()).toEqual(['policy-2.yaml', 'policy.yaml']);
    expect(r.stderr).toMatch(/saved saves\/policy-2\.yaml \(saves\/policy\.yaml .*\)/);
    expect(readFileSync(join(root, 'saves/policy-2.yaml'), 'utf8')).toContain('kind: WhatIf');
    rmSync(join(root, 'saves'), { recursive: true });
  });

  it('--html onto an existing 0600 file keeps 0600: its own earlier report, or a file replaced with --force', () => {
    const out = join(root, 'out');
    mkdirSync(out);
    try {
      expect(quotientIn(root, ['simulate', 'P', '--trace', 'jobs.csv', '--html', 'out/r.html']).status).toBe(0);
      chmodSync(join(out, 'r.html'), 0o600);
      expect(quotientIn(root, ['simulate', 'P', '--trace', 'jobs.csv', '--html', 'out/r.html']).status).toBe(0);
      expect(statSync(join(out, 'r.html')).mode & 0o777).toBe(0o600);
      writeFileSync(join(out, 'private.html'), 'secret', { mode: 0o600 });
      refused(['simulate', 'P', '--trace', 'jobs.csv', '--html', 'out/private.html']);
      expect(quotientIn(root, ['simulate', 'P', '--trace', 'jobs.csv', '--html', 'out/private.html', '--force']).status).toBe(0);
      expect(statSync(join(out, 'private.html')).mode & 0o777).toBe(0o600);
      expect(readFileSync(join(out, 'private.html'), 'utf8')).toContain('quotient-output:');
    } finally {
      rmSync(out, { recursive: true });
    }
  });

  it("--html '' (and --report '', --save '') is a flag error: exit 2, nothing written", () => {
    refused(['simulate', 'P', '--trace', 'jobs.csv', '--html', '']);
    refused(['export', 'kueue', 'P', '--report', '']);
    refused(['test', 'B', '--seed', '7', '--save', '']);
  });

  it('a run killed between its temp file and the rename leaves the temp; the next write to the folder sweeps it', async () => {
    const out = join(root, 'killed');
    mkdirSync(out);
    try {
      const child = spawn(process.execPath, [join(ROOT, 'dist/cli/main.js'), 'export', 'kueue', 'P', '--report', 'killed/r.txt'], {
        cwd: root,
        env: { ...process.env, NO_COLOR: '1', QUOTIENT_TEST_STEP_DELAY_MS: '60000' },
        stdio: 'ignore',
      });
      const temps = () => readdirSync(out).filter((f) => /^\.r\.txt\.quotient-\d+-[0-9a-f]{8}\.tmp$/.test(f));
      const deadline = Date.now() + 60_000;
      while (temps().length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const closed = new Promise((r) => child.on('close', r));
      child.kill('SIGKILL');
      await closed;
      expect(temps()).toHaveLength(1);
      expect(existsSync(join(out, 'r.txt'))).toBe(false);
      const again = quotientIn(root, ['export', 'kueue', 'P', '--report', 'killed/r.txt']);
      expect(again.status, again.stderr).toBe(0);
      expect(again.stderr).toContain('removed 1 temp file(s)');
      expect(readdirSync(out)).toEqual(['r.txt']);
    } finally {
      rmSync(out, { recursive: true });
    }
  });
});
