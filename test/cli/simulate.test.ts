/** `quotient simulate` end to end, as a user runs it (the built CLI). */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { readReport } from '../helpers/report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'quotient-sim-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function quotient(...args: string[]) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined }, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const SPOT = ['simulate', 'policies/spot-market', '--trace', 'policies/spot-market/jobs.csv'];

describe('quotient simulate', () => {
  it('prints the same JSON report for the same seed, byte for byte, and only the document on stdout', () => {
    const a = quotient(...SPOT, '--json', '--seed', '7');
    const b = quotient(...SPOT, '--json', '--seed', '7');
    expect(a.status).toBe(0);
    expect(a.stderr).toBe('');
    expect(b.stdout).toBe(a.stdout);
    const r = readReport(a.stdout, 'SimulateReport');
    expect(r.seed).toBe(7);
    expect(r.totals.usedGpuHours + r.totals.idleGpuHours).toBeCloseTo(r.totals.capacityGpuHours, 1);
  });

  it('prints a table with the key figures, and YAML with -o yaml', () => {
    const t = quotient(...SPOT);
    expect(t.status).toBe(0);
    expect(t.stdout).toMatch(/GPU-hours: [\d.]+ used \+ [\d.]+ idle = 2112 capacity/);
    expect(t.stdout).toContain('market/spot-release');
    expect(t.stdout).toContain('reclaim/idle');
    const y = quotient(...SPOT, '-o', 'yaml');
    expect(parseYaml(y.stdout).cluster).toEqual({ nodes: 4, gpus: 32, runningAtStart: 0 });
  });

  it('leaves bad rows out with a located summary (exit 1), or stops at the first with --strict (exit 2)', () => {
    const trace = join(dir, 'jobs.csv');
    writeFileSync(trace, 'name,submit,duration,quota,gpu\ngood,0,1h,TeamA,8\nbad,0,1h,TeamA,48\n');
    const r = quotient('simulate', 'policies/spot-market', '--trace', trace, '--json');
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).workload).toMatchObject({ jobs: 1, rejectedRows: 1 });
    expect(r.stderr).toContain(`${trace}:3:16  error  trace/bad-value`);
    expect(r.stderr).toContain('1 row(s) left out');
    const s = quotient('simulate', 'policies/spot-market', '--trace', trace, '--strict');
    expect(s.status).toBe(2);
    expect(s.stdout).toBe('');
    expect(s.stderr).toContain('--strict stops at the first');
  });

  it('leaves out only a short CSV row; a file of no readable job is refused with exit 2 and no report', () => {
    const short = join(dir, 'short.csv');
    writeFileSync(short, `${readFileSync(join(ROOT, 'policies/spot-market/jobs.csv'), 'utf8')}oops,2h,4h,TeamA\n`);
    const r = quotient('simulate', 'policies/spot-market', '--trace', short, '--json');
    expect(r.status).toBe(1);
    expect(JSON.parse(r.stdout).workload).toMatchObject({ jobs: 36, rejectedRows: 1 });
    expect(r.stderr).toContain(`${short}:38:1`);
    expect(r.stderr).toContain('1 row(s) left out');
    const header = join(dir, 'header.csv');
    writeFileSync(header, 'foo,bar\n1,2\n');
    const binary = join(dir, 'binary.csv');
    writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x00, 0x00, 0x0a, 0x2c, 0x2c, 0x0a]));
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, '');
    // A finding shows its code on stderr; an empty file is a QuotientError, whose code stderr does not show.
    for (const [file, said] of [
      [header, '1:1  error  trace/unknown-field'],
      [binary, '1:1  error  trace/not-text'],
      [empty, 'holds no jobs'],
    ] as const) {
      const x = quotient('simulate', 'policies/spot-market', '--trace', file, '--json');
      expect(x.status, file).toBe(2);
      expect(x.stdout, file).toBe('');
      expect(x.stderr, file).toContain(said);
    }
  });

  it('says a generated workload once: its source names the jobs and the seed', () => {
    const r = quotient('simulate', 'policies/spot-market', '--generate', 'pai', '--jobs', '20', '--days', '1', '--seed', '3', '--until', '6h');
    expect(r.status).toBe(0);
    const line = r.stdout.split('\n').find((l) => l.trimStart().startsWith('workload:'));
    expect(line?.trim()).toBe('workload: PAI-2020-shaped generator (synthetic): 20 jobs over 1 days, seed 3');
  });

  it('refuses bad flags with exit 2 and a hint', () => {
    expect(quotient(...SPOT, '--seed', 'x').status).toBe(2);
    expect(quotient(...SPOT, '--until', 'later').stderr).toContain('--until');
    expect(quotient('simulate', 'policies/spot-market').stderr).toContain('--trace');
  });
});
