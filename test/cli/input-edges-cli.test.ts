/**
 * The input edges as a user meets them through the built CLI: file-system faults are
 * exit 2 with one line naming the path (never a hang, a stack trace or "internal
 * error"), bytes that are not UTF-8 and names that would drive the terminal are
 * findings (exit 1), and the human output shows the offending line with a caret.
 * Every fixture is made here, in a temporary folder.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, openSync, closeSync, readdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const SEEDS = join(ROOT, 'policies/inference-preempts-training');

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function quotient(args: string[], options: { env?: NodeJS.ProcessEnv; stdout?: number; prefix?: readonly string[] } = {}): Run {
  const argv = [MAIN, ...args];
  // `prefix`: a command that runs the CLI where mode bits stop a read (see `boundByModes`).
  const [cmd, full] = options.prefix?.length ? [options.prefix[0]!, [...options.prefix.slice(1), process.execPath, ...argv]] : [process.execPath, argv];
  const r = spawnSync(cmd, full, {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, ...options.env },
    stdio: ['ignore', options.stdout ?? 'pipe', 'pipe'],
    timeout: 20_000,
  });
  return { status: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Exit 2 and one message line (plus its hint line), with no stack trace and no "internal error". */
function expectFsFailure(r: Run, mention: RegExp): void {
  expect(r.status, r.stderr).toBe(2);
  const lines = r.stderr.trim().split('\n');
  expect(lines[0]).toMatch(/^quotient: /);
  expect(lines[0]).toMatch(mention);
  expect(lines.slice(1).every((l) => l.startsWith('  hint: '))).toBe(true);
  expect(r.stderr).not.toMatch(/internal error|\n\s+at |Error:/);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'quotient-edges-'));
  // mkdtemp makes the folder 0700: open it to every user, as the folders a user's policies sit in are.
  chmodSync(dir, 0o755);
});

/**
 * How to run the CLI so that a folder's mode bits stop it from reading: as it is for a
 * user who is not root; as root, with the capabilities that read through any mode
 * (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) dropped, or else as nobody (65534). Each way
 * is tried first: the CLI must start (`--version`; nobody cannot when the clone sits in
 * a 0700 folder such as `mktemp -d`'s, which fails with MODULE_NOT_FOUND) and a folder
 * of mode 000 must refuse it. `why` says why no way works, for the skip.
 */
function boundByModes(): { prefix: readonly string[] } | { why: string } {
  if (process.getuid?.() !== 0) return { prefix: [] };
  const probe = join(dir, 'probe-locked');
  mkdirSync(probe);
  chmodSync(probe, 0o000);
  const tried: string[] = [];
  try {
    const ways: Array<readonly string[]> = [
      ['setpriv', '--bounding-set=-dac_override,-dac_read_search', '--inh-caps=-all', '--'],
      ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'],
    ];
    for (const prefix of ways) {
      const starts = quotient(['--version'], { prefix });
      const refused = spawnSync(prefix[0]!, [
        ...prefix.slice(1),
        process.execPath,
        '-e',
        'try { require("fs").readdirSync(process.argv[1]); process.exit(3) } catch (e) { process.exit(e.code === "EACCES" ? 0 : 4) }',
        probe,
      ]);
      if (starts.status === 0 && refused.status === 0) return { prefix };
      tried.push(`${prefix.slice(0, 2).join(' ')}: ${starts.status === 0 ? 'a folder of mode 000 is still read' : `the CLI does not start (${starts.stderr.trim().split('\n')[0] ?? starts.status})`}`);
    }
  } finally {
    chmodSync(probe, 0o755);
  }
  return { why: `running as root, and no way to run the CLI that mode bits stop was found (${tried.join('; ')})` };
}
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh copy of the shipped example in `name`, to break. */
function seedsCopy(name: string): string {
  const to = join(dir, name);
  cpSync(SEEDS, to, { recursive: true });
  return to;
}

describe('file-system faults exit 2 with one line', () => {
  it('refuses a FIFO among the YAML files instead of blocking on it', () => {
    const p = seedsCopy('fifo');
    expect(spawnSync('mkfifo', [join(p, 'zz.yaml')]).status).toBe(0);
    expectFsFailure(quotient(['check', p]), /zz\.yaml is a FIFO/);
    expectFsFailure(quotient(['check', join(p, 'zz.yaml')]), /FIFO/);
  });

  it('refuses a device named as a policy file', () => {
    expectFsFailure(quotient(['check', '/dev/zero']), /\/dev\/zero is a character device/);
  });

  it('names a loop of symbolic links as a loop', () => {
    const p = join(dir, 'loop');
    mkdirSync(p);
    symlinkSync('b.yaml', join(p, 'a.yaml'));
    symlinkSync('a.yaml', join(p, 'b.yaml'));
    expectFsFailure(quotient(['check', p]), /loop of symbolic links/);
    expectFsFailure(quotient(['check', join(p, 'a.yaml')]), /loop of symbolic links/);
  });

  it('names a folder that links back to itself as a loop', () => {
    const p = seedsCopy('dirloop');
    mkdirSync(join(p, 'sub'));
    symlinkSync('..', join(p, 'sub', 'up'));
    expectFsFailure(quotient(['check', p]), /leads back to a folder above it/);
  });

  it('names a link to a file that is gone', () => {
    const p = seedsCopy('dangling');
    symlinkSync('nowhere.yaml', join(p, 'z.yaml'));
    expectFsFailure(quotient(['check', p]), /z\.yaml is a symbolic link to a file that does not exist/);
  });

  it('refuses an unreadable folder with "permission denied", not an internal error', (ctx) => {
    // Root reads through any mode bits: the run drops that power first (boundByModes).
    const way = boundByModes();
    if ('why' in way) return ctx.skip(way.why);
    const p = seedsCopy('locked');
    chmodSync(p, 0o000);
    try {
      expectFsFailure(quotient(['check', p], { prefix: way.prefix }), /locked cannot be read: permission denied/);
    } finally {
      chmodSync(p, 0o755);
    }
  });

  it('reads a folder of symbolic links to YAML files as the files', () => {
    const p = join(dir, 'links');
    mkdirSync(p);
    for (const f of readdirSync(SEEDS)) symlinkSync(join(SEEDS, f), join(p, f));
    const r = quotient(['check', p]);
    expect(r.status, r.stderr + r.stdout).toBe(0);
    // The YAML files are the policy; a jobs file beside them (risk's example trace) is not read.
    expect(r.stdout).toContain(`ok: ${readdirSync(SEEDS).filter((f) => f.endsWith('.yaml')).length} file(s)`);
  });

  it('stops with one line when stdout is a full disk', () => {
    const full = openSync('/dev/full', 'w');
    try {
      const r = quotient(['check', SEEDS, '--json'], { stdout: full });
      expectFsFailure(r, /cannot write the output: no space left on device/);
    } finally {
      closeSync(full);
    }
  });

  it('ends quietly when the reader of stdout goes away', async () => {
    const child = spawn(process.execPath, [MAIN, 'whatif', join(ROOT, 'policies'), '--json'], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.destroy();
    const status = await new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    expect(stderr).not.toMatch(/internal error|\n\s+at |EPIPE/);
    expect([0, 1]).toContain(status);
  });
});

describe('bytes and names that must not be read as they are', () => {
  it('reports bytes that are not UTF-8 as a finding at their line and column', () => {
    const p = seedsCopy('latin1');
    writeFileSync(join(p, 'quotas.yaml'), Buffer.concat([Buffer.from('# caf'), Buffer.from([0xe9]), Buffer.from('\napiVersion: x\n')]));
    const r = quotient(['check', p, '--json']);
    expect(r.status).toBe(1);
    const { findings } = JSON.parse(r.stdout) as { findings: Array<{ code: string; file: string; line: number; column: number }> };
    expect(findings.map((f) => [f.code, f.line, f.column])).toEqual([['policy/invalid-utf8', 1, 6]]);
  });

  it('refuses a name that would clear the screen, and never prints it raw', () => {
    const p = seedsCopy('escape');
    const whatif = join(p, 'whatif.yaml');
    writeFileSync(
      whatif,
      `apiVersion: quotient.dev/v1\nkind: WhatIf\nmetadata: { name: "clear\\e[2J\\u202Eme" }\nspec:\n  submit: { name: j, workspace: workspace-a, quota: Quota1, module: EAS, priority: 9, pods: 1, resources: { gpu: 8 } }\n`,
    );
    for (const args of [
      ['check', p],
      ['whatif', p],
      ['check', p, '--json'],
      ['check', p, '-o', 'yaml'],
    ]) {
      const r = quotient(args);
      expect(r.status, args.join(' ')).not.toBe(0);
      // eslint-disable-next-line no-control-regex -- control characters are what this matches
      expect(r.stdout + r.stderr).not.toMatch(/\u001b\[2J|\u202e/);
    }
    const r = quotient(['check', p, '--json']);
    const { findings } = JSON.parse(r.stdout) as { findings: Array<{ code: string; line: number; path: string }> };
    expect(findings.map((f) => [f.code, f.line, f.path])).toEqual([['policy/control-character', 3, 'metadata.name']]);
  });

  it('escapes control characters in a file name it prints', () => {
    const p = seedsCopy('name\u001b[2Jx');
    writeFileSync(join(p, 'quotas.yaml'), 'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: t }\nspec: { pool: { name: p }, quotas: [{ name: A, mni: { gpu: 1 } }] }\n');
    const r = quotient(['check', p]);
    expect(r.status).toBe(1);
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).toContain('name\\e[2Jx');
  });

  it('refuses a policy over the byte limit before reading it, saying how to raise the limit', () => {
    const p = join(dir, 'huge');
    mkdirSync(p);
    // 17 MiB, sparse: nothing is written and, if the limit holds, nothing is read.
    writeFileSync(join(p, 'cluster.yaml'), '');
    truncateSync(join(p, 'cluster.yaml'), 17 * 1024 * 1024);
    const r = quotient(['check', p]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/policy\/too-large/);
    expect(r.stdout).toMatch(/16 MiB/);
    expect(r.stdout).toMatch(/QUOTIENT_MAX_POLICY_BYTES/);
    const small = quotient(['check', SEEDS], { env: { QUOTIENT_MAX_POLICY_BYTES: '2000' } });
    expect(small.status).toBe(1);
    expect(small.stdout).toMatch(/policy\/too-large/);
    expectFsFailure(quotient(['check', SEEDS], { env: { QUOTIENT_MAX_POLICY_BYTES: 'lots' } }), /QUOTIENT_MAX_POLICY_BYTES must be a whole number/);
  });
});

describe('a YAML alias inside the node it names', () => {
  it('is a located finding in every command that loads a policy, never a run out of memory', () => {
    const p = seedsCopy('recursive-alias');
    const quotas = join(p, 'quotas.yaml');
    // Quota1.2 made its own child: `*q2` inside the mapping anchored `&q2`.
    writeFileSync(
      quotas,
      'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: platform }\nspec:\n  pool: { name: gpu-pool }\n  quotas:\n    - name: Quota1\n      min: { gpu: 128 }\n      children:\n        - { name: Quota1.1, min: { gpu: 48 } }\n        - &q2\n          name: Quota1.2\n          min: { gpu: 80 }\n          children: [ *q2 ]\n',
    );
    writeFileSync(join(dir, 'no-jobs.csv'), 'name,submit,quota,workspace,gpus,priority,duration\n');
    const check = quotient(['check', p, '--json']);
    expect(check.status, check.stderr).toBe(1);
    const { findings } = JSON.parse(check.stdout) as { findings: Array<{ code: string; file: string; line: number; column: number; path: string; hint: string }> };
    expect(findings.map((f) => [f.code, f.file, f.line, f.column, f.path])).toEqual([['policy/recursive-alias', quotas, 14, 23, 'spec.quotas[0].children[1].children[0]']]);
    // The text is the behaviour here: the hint says why the alias cannot stand.
    expect(findings[0]?.hint).toMatch(/cannot refer to the node that contains it/);
    for (const args of [
      ['whatif', p],
      ['explain', p],
      ['test', p],
      ['scale', p, '--set', 'Quota1=100'],
      ['simulate', p, '--trace', join(dir, 'no-jobs.csv')],
      ['diff', SEEDS, p],
      ['export', 'kueue', p],
    ]) {
      const r = quotient(args);
      // These commands cannot run on a policy with errors: exit 2, the finding located on stderr.
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(`${quotas}:14:23  error  policy/recursive-alias`);
      // No stack trace (its frames name .js files); `at spec.…` lines are the finding's field path.
      expect(r.stderr).not.toMatch(/heap|internal error|\.js:\d+:\d+/);
    }
  });
});

describe('paths named twice', () => {
  it('read the same file once, not as a second file that redeclares every name', () => {
    const quotas = join(SEEDS, 'quotas.yaml');
    const r = quotient(['check', quotas, quotas]);
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toContain('1 file(s) in 1 policy');
    expect(r.stderr).toContain('is named more than once; it is read once');
    const folder = quotient(['check', SEEDS, `${SEEDS}/`]);
    expect(folder.status, folder.stdout).toBe(0);
    expect(folder.stdout).toContain('4 file(s) in 1 policy');
  });
});

describe('findings for people', () => {
  it('print the source line with a caret under the spot', () => {
    const p = seedsCopy('caret');
    writeFileSync(
      join(p, 'quotas.yaml'),
      'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: t }\nspec:\n  pool: { name: gpu-pool }\n  quotas:\n    - name: Quota1\n      mni: { gpu: 128 }\n',
    );
    const r = quotient(['check', join(p, 'quotas.yaml')]);
    expect(r.status).toBe(1);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.includes('8 |       mni: { gpu: 128 }'));
    expect(at, r.stdout).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('      |       ^^^');
  });
});

describe('flag values at their edges', () => {
  it('refuses an empty seed and seeds past 32 bits instead of wrapping them', () => {
    for (const seed of ['', '4294967296', '-1', '1e3', '12abc']) {
      const r = quotient(['test', SEEDS, '--seed', seed]);
      expect(r.status, `--seed "${seed}"`).toBe(2);
      expect(r.stderr).toMatch(/--seed must be a whole number from 0 to 4294967295/);
    }
  });

  it('refuses --runs past the budget', () => {
    const r = quotient(['test', SEEDS, '--runs', '100000000']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/budget of 100,000/);
  });
});
