/**
 * Issue 18's reproductions, end to end: each once ran until memory ran out (or was
 * accepted); each is now refused at once, saying the limit. And `check` reads what
 * `simulate` reads: a market CSV `simulate` would refuse is a finding of `check`.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CRASH } from '../helpers/run-bounded.js';
import { quotient } from '../helpers/run-cli.js';

const tmp = mkdtempSync(join(tmpdir(), 'quotient-bounds-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const D306 = `1${'0'.repeat(305)}`;
const SPOT = 'policies/spot-market';
const JOBS = `${SPOT}/jobs.csv`;

/** A copy of the spot example in its own folder, with `files` written over it. */
function spotCopy(name: string, files: Record<string, string> = {}): string {
  const dir = join(tmp, name);
  cpSync(SPOT, dir, { recursive: true });
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, f), text);
  return dir;
}

/** A jobs file in the temporary folder. */
function jobs(name: string, rows: string): string {
  const path = join(tmp, name);
  writeFileSync(path, `name,submit,duration,quota,gpu\n${rows}\n`);
  return path;
}

const SYNTHETIC_MARKET = `apiVersion: quotient.dev/v1
kind: SpotMarket
metadata: { name: region-market }
spec:
  synthetic: { every: 1s }
  instanceTypes:
    - { name: ecs.gn7i-1gpu, type: general, gpus: 1, payAsYouGo: 12 }
`;

describe("issue 18's numbers, through the CLI", () => {
  it.each([
    ['a trace submit of 306 digits', ['simulate', SPOT, '--trace', jobs('submit.csv', `j,${D306},1h,TeamA,8`)], 'trace/out-of-range'],
    ['a trace duration of 20 nines + h', ['simulate', SPOT, '--trace', jobs('duration.csv', `j,0,${'9'.repeat(20)}h,TeamA,8`)], 'trace/out-of-range'],
    ['--until of 306 digits', ['simulate', SPOT, '--trace', JOBS, '--until', D306], '3650d'],
    ['--cycle 99999999999999999999', ['simulate', SPOT, '--trace', JOBS, '--cycle', '99999999999999999999'], '3650d'],
    ['--jobs 1000000000', ['simulate', SPOT, '--generate', 'pai', '--jobs', '1000000000'], '1,000,000'],
    ['whatif --market TYPE=11@<306 digits>', ['whatif', SPOT, '--trace', JOBS, '--market', `ecs.gn7i-1gpu=11@${D306}`], '3650d'],
    ['--seeds 1-1000000', ['simulate', SPOT, '--trace', JOBS, '--seeds', '1-1000000'], '100,000'],
    [
      'a trace job at 100000000h on a synthetic market',
      ['simulate', spotCopy('syn1', { 'market.yaml': SYNTHETIC_MARKET }), '--trace', jobs('far.csv', 'j,100000000h,1h,TeamA,8')],
      'trace/out-of-range',
    ],
    ['synthetic every 1s over a run of 30 days', ['simulate', spotCopy('syn2', { 'market.yaml': SYNTHETIC_MARKET }), '--trace', jobs('late.csv', 'j,30d,1h,TeamA,8')], '1,000,000'],
  ])('refuses %s at once, saying the limit (exit 2)', (_what, args, said) => {
    const r = quotient(args);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(said);
    expect(r.stderr).not.toMatch(CRASH);
  });

  it('gives simulate the seed rule test has: 4294967296 is refused by both, 4294967295 taken by both', () => {
    for (const args of [
      ['simulate', SPOT, '--trace', JOBS, '--seed'],
      ['test', 'policies/inference-preempts-training', '--runs', '1', '--seed'],
    ]) {
      expect(quotient([...args, '4294967296']).status).toBe(2);
      expect(quotient([...args, '4294967295']).status).toBe(0);
    }
  });
});

describe('check reads the market files simulate reads', () => {
  it('gives located findings for NaN, -5, Infinity and =1+2 in prices.csv, where it said "ok"', () => {
    const dir = spotCopy('bad-prices', {
      'prices.csv': 'at,instanceType,price\n0,ecs.gn7i-1gpu,NaN\n6h,ecs.gn7i-1gpu,-5\n12h,ecs.gn7i-1gpu,Infinity\n18h,ecs.gn7i-1gpu,=1+2\n0,lingjun.gu8-8gpu,28.8\n',
      'inventory.csv': 'at,instanceType,inventory\n0,ecs.gn7i-1gpu,1.5\n0,lingjun.gu8-8gpu,4\n',
    });
    const r = quotient(['check', dir, '--json']);
    expect(r.status).toBe(1);
    const findings = (JSON.parse(r.stdout) as { findings: Array<{ file: string; line: number; column: number; code: string; path: string }> }).findings;
    expect(findings.map((f) => [f.file.split('/').pop(), f.line, f.column, f.path, f.code])).toEqual([
      ['inventory.csv', 2, 17, 'inventory', 'market/bad-value'],
      ['prices.csv', 2, 17, 'price', 'market/bad-value'],
      ['prices.csv', 3, 18, 'price', 'market/bad-value'],
      ['prices.csv', 4, 19, 'price', 'market/bad-value'],
      ['prices.csv', 5, 19, 'price', 'market/bad-value'],
    ]);
    // simulate refuses the same rows, with the same reader.
    const sim = quotient(['simulate', dir, '--trace', JOBS]);
    expect(sim.status).toBe(2);
    expect(sim.stderr.match(/market\/bad-value/g)).toHaveLength(5);
  });

  it('says "ok" on the shipped example, which simulate runs', () => {
    expect(quotient(['check', SPOT]).status).toBe(0);
  });
});
