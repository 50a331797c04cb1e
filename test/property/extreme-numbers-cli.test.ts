/**
 * Issue 18 item 2 as a seeded property over the real CLI: extreme values (306 digits,
 * 1e308, -0, 1e999, NaN and Infinity as text, fractions where counts belong, 2^53+1,
 * formulas, hex, long generated digit runs with and without units) in every numeric
 * field and flag `simulate`, `whatif --market`, `check` and `test` read. Every run must
 * end by itself with exit 0, 1 or 2 within a time budget and under a memory budget (the
 * process is killed past either, and that fails), with no stack trace on stderr and
 * nothing on stdout when it could not run. Before the limits, a 306-digit submit or
 * `--until`, `--cycle 99999999999999999999`, `--jobs 1000000000` or a synthetic series
 * every 1s over a long run each grew to gigabytes.
 *
 * Fields of a file (a jobs file's columns, a market CSV's) take several values in one
 * run, one row each; a policy's fields and the flags take one value a run. It spawns
 * about 60 processes, two at a time. `QUOTIENT_EXTREME_VALUES` sets the values per field
 * (default 2), `QUOTIENT_EXTREME_SEED` the seed.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { CRASH, inPool, runBounded, type BoundedRun } from '../helpers/run-bounded.js';
import { ROOT } from '../helpers/run-cli.js';

const PER_FIELD = Number(process.env.QUOTIENT_EXTREME_VALUES ?? 2);
const SEED = Number(process.env.QUOTIENT_EXTREME_SEED ?? 18_0002);
/** A run that has not ended by then hangs (a quiet 2-core machine answers each in about a second; a loaded one in five). */
const BUDGET = { ms: 30_000, rssMb: 512 };

const tmp = mkdtempSync(join(tmpdir(), 'quotient-extreme-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Values chosen by hand: each once broke or could break a reader. */
const EXTREMES = [
  `1${'0'.repeat(305)}`,
  '9'.repeat(20),
  `${'9'.repeat(20)}h`,
  '100000000h',
  '1e308',
  '1e999',
  '-0',
  '0',
  '1',
  '1.5',
  '9007199254740993',
  '4294967296',
  '4294967295',
  'NaN',
  'Infinity',
  '-5',
  '=1+2',
  '0x10',
  '',
  '3650d',
  '3651d',
  '1e-320',
];

/**
 * Generated values, none of them a legal large count (a legal `--jobs 900000` would only
 * be slow): digit runs of 16 to 400 (past every limit) with or without a unit, exponents,
 * signs, and fractions with long zero runs.
 */
const generated = fc.oneof(
  fc.tuple(fc.stringMatching(/^[1-9]\d{15,400}$/), fc.constantFrom('', 'h', 'd', 's', 'm', '/min')).map(([d, u]) => d + u),
  fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: -400, max: 400 })).map(([m, e]) => `${m}e${e}`),
  fc.integer({ min: 1, max: 400 }).map((n) => `0.${'0'.repeat(n)}1`),
  fc.stringMatching(/^\d{1,30}$/).map((d) => `-${d}`),
);
const valueArb = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...EXTREMES) }, { weight: 2, arbitrary: generated });

/** A field or flag under test: its values go into one run (`rows`) or one run each. */
interface Target {
  name: string;
  rows: boolean;
  /** Writes what the run reads into `dir` (a copy of policies/spot-market is at `dir/p`) and returns its arguments. */
  setup(dir: string, values: string[]): string[];
}

const SPOT = 'policies/spot-market';
const cell = (v: string) => `"${v.replace(/"/g, '""')}"`;
const JOB_HEAD = 'name,submit,duration,quota,priority,pods,gpu,instanceType,priceLimit,discountLimit,checkpoint,autoRestart,maxRestarts,cpu,memory';
/** A good row of each kind: a quota job, a general-purpose spot bid, a Lingjun discount bid. */
const GOOD: Record<string, string[]> = {
  quota: ['', '1h', '2h', 'TeamA', '5', '1', '8', '', '', '', '30m', 'true', '3', '8', '64Gi'],
  price: ['', '1h', '2h', 'TeamB', '2', '1', '1', 'ecs.gn7i-1gpu', '9', '', '30m', 'false', '', '', ''],
  discount: ['', '1h', '2h', 'TeamB', '2', '1', '8', 'lingjun.gu8-8gpu', '', '0.5', '30m', 'true', '3', '', ''],
};
const COLUMNS = JOB_HEAD.split(',');

/** A jobs-file column: a good row, then one row per value in that column. */
function traceColumn(column: string, kind: keyof typeof GOOD = 'quota'): Target {
  return {
    name: `jobs file ${column}`,
    rows: true,
    setup: (dir, values) => {
      const at = COLUMNS.indexOf(column);
      const row = (name: string, v?: string) => GOOD[kind]!.map((x, i) => (i === 0 ? name : i === at && v !== undefined ? v : x)).map(cell);
      const lines = [JOB_HEAD, row('ok').join(','), ...values.map((v, k) => row(`x${k}`, v).join(','))];
      writeFileSync(join(dir, 'jobs.csv'), `${lines.join('\n')}\n`);
      return ['simulate', 'p', '--trace', 'jobs.csv'];
    },
  };
}

/** A market CSV column: the shipped rows, then one row per value, read by `check` (the reader simulate shares). */
function marketColumn(file: 'prices.csv' | 'inventory.csv', column: 'at' | 'value'): Target {
  return {
    name: `${file} ${column}`,
    rows: true,
    setup: (dir, values) => {
      const text = readFileSync(join(dir, 'p', file), 'utf8').trimEnd();
      const rows = values.map((v, k) => (column === 'at' ? `${cell(v)},ecs.gn7i-1gpu,5` : `${400 + k}h,ecs.gn7i-1gpu,${cell(v)}`));
      writeFileSync(join(dir, 'p', file), `${text}\n${rows.join('\n')}\n`);
      return ['check', 'p'];
    },
  };
}

/** A policy field: `from` in `file` of the copy is replaced by `to` with the value in it; then the policy is simulated. */
function policyField(name: string, file: string, from: string, to: (v: string) => string): Target {
  return {
    name,
    rows: false,
    setup: (dir, [v]) => {
      const path = join(dir, 'p', file);
      const text = readFileSync(path, 'utf8');
      if (!text.includes(from)) throw new Error(`${from} is not in ${file}`);
      writeFileSync(path, text.replace(from, to(v!)));
      return ['simulate', 'p', '--trace', 'p/jobs.csv'];
    },
  };
}

/** A flag: the command with the value after it. */
function flag(name: string, args: (v: string) => string[]): Target {
  return { name, rows: false, setup: (_dir, [v]) => args(v!) };
}

const SIM = ['simulate', 'p', '--trace', 'p/jobs.csv'];
const SYNTHETIC_TYPE = '  instanceTypes:\n';
const withSynthetic = (synthetic: string) => `  synthetic: ${synthetic}\n${SYNTHETIC_TYPE}    - { name: ecs.extra, type: general, gpus: 1, payAsYouGo: 10 }\n`;

const TARGETS: Target[] = [
  traceColumn('submit'),
  traceColumn('duration'),
  traceColumn('priority'),
  traceColumn('pods'),
  traceColumn('gpu'),
  traceColumn('checkpoint'),
  traceColumn('maxRestarts'),
  traceColumn('cpu'),
  traceColumn('memory'),
  traceColumn('priceLimit', 'price'),
  traceColumn('discountLimit', 'discount'),
  marketColumn('prices.csv', 'at'),
  marketColumn('prices.csv', 'value'),
  marketColumn('inventory.csv', 'value'),
  policyField('protectionPeriod', 'market.yaml', 'protectionPeriod: 1h', (v) => `protectionPeriod: ${v}`),
  policyField('synthetic.every', 'market.yaml', SYNTHETIC_TYPE, (v) => withSynthetic(`{ every: ${v} }`)),
  policyField('synthetic.seed', 'market.yaml', SYNTHETIC_TYPE, (v) => withSynthetic(`{ seed: ${v} }`)),
  policyField('synthetic.inventory', 'market.yaml', SYNTHETIC_TYPE, (v) => withSynthetic(`{ inventory: ${v} }`)),
  policyField('inline price time', 'market.yaml', 'payAsYouGo: 96 }', (v) => `payAsYouGo: 96, prices: [ { at: 0, price: 20 }, { at: ${v}, price: 30 } ] }`),
  policyField('inline price', 'market.yaml', 'payAsYouGo: 96 }', (v) => `payAsYouGo: 96, prices: [ { at: 0, price: ${v} } ] }`),
  policyField('inline inventory count', 'market.yaml', 'payAsYouGo: 96 }', (v) => `payAsYouGo: 96, inventory: [ { at: 0, count: ${v} } ] }`),
  policyField('payAsYouGo', 'market.yaml', 'payAsYouGo: 12', (v) => `payAsYouGo: ${v}`),
  policyField('nodeGroups count', 'cluster.yaml', 'count: 4', (v) => `count: ${v}`),
  flag('--until', (v) => [...SIM, '--until', v]),
  flag('--cycle', (v) => [...SIM, '--cycle', v]),
  flag('simulate --seed', (v) => [...SIM, '--seed', v]),
  flag('--seeds', (v) => [...SIM, '--seeds', v]),
  flag('--shard', (v) => [...SIM, '--seeds', '1-2', '--shard', v]),
  flag('--jobs', (v) => ['simulate', 'p', '--generate', 'pai', '--days', '1', '--jobs', v]),
  flag('--days', (v) => ['simulate', 'p', '--generate', 'pai', '--jobs', '20', '--days', v]),
  flag('whatif --market price', (v) => ['whatif', 'p', '--trace', 'p/jobs.csv', '--market', `ecs.gn7i-1gpu=${v}@10h`]),
  flag('whatif --market time', (v) => ['whatif', 'p', '--trace', 'p/jobs.csv', '--market', `ecs.gn7i-1gpu=11@${v}`]),
  flag('whatif --market inventory', (v) => ['whatif', 'p', '--trace', 'p/jobs.csv', '--market', `lingjun.gu8-8gpu=inventory:${v}@10h`]),
  flag('test --seed', (v) => ['test', 'p-promises', '--runs', '2', '--seed', v]),
  flag('test --runs', (v) => ['test', 'p-promises', '--seed', '1', '--runs', v]),
];

interface Case {
  target: Target;
  values: string[];
}

/** The runs: per target its values (seeded), one run for a file's column, one run per value otherwise. */
function plan(): Case[] {
  const cases: Case[] = [];
  TARGETS.forEach((target, i) => {
    const values = fc.sample(valueArb, { seed: SEED + i, numRuns: target.rows ? PER_FIELD * 3 : PER_FIELD });
    if (target.rows) cases.push({ target, values });
    else for (const v of values) cases.push({ target, values: [v] });
  });
  return cases;
}

/** Sets one case up in its own folder and runs it. */
async function run(c: Case, k: number): Promise<BoundedRun & { args: string[] }> {
  const dir = join(tmp, String(k));
  mkdirSync(dir);
  cpSync(join(ROOT, SPOT), join(dir, 'p'), { recursive: true });
  cpSync(join(ROOT, 'policies/inference-preempts-training'), join(dir, 'p-promises'), { recursive: true });
  const args = c.target.setup(dir, c.values);
  return { ...(await runBounded(args, BUDGET, dir)), args };
}

describe('extreme numbers in every numeric field and flag, through the CLI', () => {
  it('ends with exit 0, 1 or 2 in bounded time and memory, without a stack trace', async () => {
    const cases = plan();
    const runs = await inPool(
      cases.map((c, k) => () => run(c, k)),
      2,
    );
    const exits = { 0: 0, 1: 0, 2: 0 } as Record<number, number>;
    const codes: Record<string, number> = {};
    runs.forEach((r, k) => {
      const what = `${cases[k]!.target.name} = ${JSON.stringify(cases[k]!.values).slice(0, 300)}: quotient ${r.args.join(' ').slice(0, 200)}`;
      expect(r.killed, `${what} was killed (${r.ms} ms, ${r.maxRssMb} MiB)`).toBeUndefined();
      expect([0, 1, 2], `${what} exited ${r.status}\n${r.stderr.slice(0, 2000)}`).toContain(r.status);
      expect(r.stderr, what).not.toMatch(CRASH);
      if (r.status === 2) expect(r.stdout, `${what}: a run that could not run prints no document`).toBe('');
      exits[r.status!]!++;
      // Findings go to stderr, except `check`'s: its findings are its document.
      for (const m of `${r.stderr}\n${r.stdout}`.matchAll(/\b(trace|market|policy)\/([a-z-]+)/g)) codes[`${m[1]}/${m[2]}`] = (codes[`${m[1]}/${m[2]}`] ?? 0) + 1;
    });
    const rssPeak = Math.max(...runs.map((r) => r.maxRssMb));
    // Every branch reached: runs that ran, runs that left rows out or found problems, runs refused; values past a
    // limit and values of the wrong form each refused at a located finding.
    const tally = JSON.stringify({ exits, codes, rssPeak });
    expect(exits[0], tally).toBeGreaterThanOrEqual(3);
    expect(exits[1], tally).toBeGreaterThanOrEqual(5);
    expect(exits[2], tally).toBeGreaterThanOrEqual(15);
    expect(codes['trace/out-of-range'] ?? 0, tally).toBeGreaterThanOrEqual(5);
    expect(codes['trace/bad-value'] ?? 0, tally).toBeGreaterThanOrEqual(5);
    expect((codes['market/out-of-range'] ?? 0) + (codes['market/bad-value'] ?? 0), tally).toBeGreaterThanOrEqual(3);
    expect((codes['policy/out-of-range'] ?? 0) + (codes['policy/bad-duration'] ?? 0) + (codes['policy/invalid-type'] ?? 0), tally).toBeGreaterThanOrEqual(5);
    console.log(`extreme numbers: ${runs.length} runs, ${tally}`);
  });
});
