/**
 * A sweep split into shards run as separate processes, merged with `quotient report
 * merge`, equals the unsharded sweep byte for byte (docs/simulate.md "Sweeps and shards").
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readReport } from '../helpers/report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'quotient-shards-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const SWEEP = ['simulate', 'policies/spot-market', '--trace', 'policies/spot-market/jobs.csv', '--seeds', '1-4', '--until', '24h', '--json'];

function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const p = spawn(process.execPath, [MAIN, ...args], { cwd: ROOT, env: { ...process.env, NO_COLOR: '1' } });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    p.on('close', (status) => done({ status, stdout, stderr }));
  });
}

describe('quotient simulate --shard + quotient report merge', () => {
  it("merges N shards run as separate processes into exactly the single run's document", async () => {
    const N = 3;
    const [single, ...shards] = await Promise.all([run(SWEEP), ...Array.from({ length: N }, (_, i) => run([...SWEEP, '--shard', `${i}/${N}`]))]);
    expect(single.status, single.stderr).toBe(0);
    const files = shards.map((s, i) => {
      expect(s.status, s.stderr).toBe(0);
      expect(readReport(s.stdout, 'SweepReport').shard).toEqual({ index: i, count: N });
      const f = join(dir, `shard-${i}.json`);
      writeFileSync(f, s.stdout);
      return f;
    });
    const merged = spawnSync(process.execPath, [MAIN, 'report', 'merge', ...files.reverse(), '--json'], { cwd: ROOT, encoding: 'utf8' });
    expect(merged.status, merged.stderr).toBe(0);
    expect(merged.stdout).toBe(single.stdout);
    const doc = readReport(single.stdout, 'SweepReport');
    expect(doc.runs.map((r: { seed: number }) => r.seed)).toEqual([1, 2, 3, 4]);
  }, 120_000);

  it('refuses a merge with a shard missing or repeated (exit 2)', async () => {
    const a = await run([...SWEEP, '--shard', '0/2']);
    const f = join(dir, 'only.json');
    writeFileSync(f, a.stdout);
    const missing = spawnSync(process.execPath, [MAIN, 'report', 'merge', f], { cwd: ROOT, encoding: 'utf8' });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('shard(s) 1 of 2 are missing');
    const twice = spawnSync(process.execPath, [MAIN, 'report', 'merge', f, f], { cwd: ROOT, encoding: 'utf8' });
    expect(twice.status).toBe(2);
    expect(twice.stderr).toContain('repeats shard 0');
  }, 60_000);
});
