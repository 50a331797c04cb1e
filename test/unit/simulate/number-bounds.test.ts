/**
 * Issue 18's numbers as simulate reads them: trace cells, market CSV cells, the market
 * what-if, sweeps and the numeric flags. A value past its limit is refused where it is
 * read, located (or naming its flag), with the limit said; nothing builds a run from it.
 * Trace names follow the policy's rule for invisible characters.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycleFlag, seedFlag, untilFlag } from '../../../src/cli/flags.js';
import { QuotientError } from '../../../src/errors.js';
import type { SpotMarket } from '../../../src/model/policy.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { MAX_SYNTHETIC_POINTS } from '../../../src/policy/parse/number-limits.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { parseMarketEvent } from '../../../src/simulate/market-event.js';
import { marketSeries, readMarketCsv, readMarketFiles } from '../../../src/simulate/market.js';
import { readJobs } from '../../../src/simulate/read-jobs.js';
import { parseSeeds, parseShard } from '../../../src/simulate/sweep.js';

const policy = loadPolicy(readBundles(['policies/spot-market'])[0]!.files, { now: 0 }).policy!;
const ctx = { policy, instanceTypes: new Map(policy.spotMarkets![0]!.instanceTypes.map((t) => [t.name, { pool: t.pool }])) };
const D306 = `1${'0'.repeat(305)}`;
const HEAD = 'name,submit,duration,quota,gpu,submittedBy';

/** [line, column, field, code] of each finding. */
const where = (fs: Array<{ line: number; column: number; path: string; code: string }>) => fs.map((f) => [f.line, f.column, f.path, f.code]);

/** The error `run` throws, for its code and message. */
function thrown(run: () => unknown): QuotientError {
  try {
    run();
  } catch (e) {
    if (e instanceof QuotientError) return e;
    throw e;
  }
  throw new Error('nothing was thrown');
}

describe('trace cells past their limits', () => {
  it('refuses a submit of 306 digits and a duration of 20 nines + h at their cells, naming the limit', () => {
    const w = readJobs('jobs.csv', `${HEAD}\nok,0,1h,TeamA,8,\nbig,${D306},1h,TeamA,8,\nlong,0,${'9'.repeat(20)}h,TeamA,8,\nedge,3650d,3650d,TeamA,8,\n`, ctx);
    expect(w.jobs.map((j) => j.spec.name)).toEqual(['ok', 'edge']);
    expect(where(w.rejected)).toEqual([
      [3, 5, 'submit', 'trace/out-of-range'],
      [4, 8, 'duration', 'trace/out-of-range'],
    ]);
    expect(w.rejected[0]!.message).toContain('3650d');
    // The message quotes the value cut short, not 306 columns of it.
    expect(w.rejected[0]!.message.length).toBeLessThan(200);
  });

  it('refuses a YAML number past the limit at its value', () => {
    const w = readJobs('jobs.yaml', '- { name: a, submit: 1e308, duration: 1h, quota: TeamA, gpu: 8 }\n', ctx);
    expect(where(w.rejected)).toEqual([[1, 22, 'submit', 'trace/out-of-range']]);
  });
});

describe('trace names', () => {
  it.each([
    ['C0 (ESC)', 'a\u001b[8mb'],
    ['a line feed', 'a\nb'],
    ['C1 (NEL)', 'a\u0085b'],
    ['bidi (RLO)', 'a\u202eb'],
    ['a line separator', 'a\u2028b'],
  ])('refuses a name holding %s at its cell, as policy names are', (_what, name) => {
    const w = readJobs('jobs.csv', `${HEAD}\nok,0,1h,TeamA,8,\n"${name}",0,1h,TeamA,8,\n`, ctx);
    expect(w.jobs.map((j) => j.spec.name)).toEqual(['ok']);
    expect(where(w.rejected)).toEqual([[3, 1, 'name', 'trace/control-character']]);
    // The finding shows the character escaped, never raw.
    // eslint-disable-next-line no-control-regex -- control characters are what must not be there
    expect(w.rejected[0]!.message).not.toMatch(/[\u0000-\u001f\u0085\u202e\u2028]/);
  });

  it('refuses a submittedBy holding one, at its cell', () => {
    const w = readJobs('jobs.csv', `${HEAD}\nx,0,1h,TeamA,8,ali\u202ece\n`, ctx);
    expect(where(w.rejected)).toEqual([[2, 16, 'submittedBy', 'trace/control-character']]);
  });

  it("refuses a job named like one of the snapshot's running jobs as a duplicate", () => {
    const running = [{ name: 'train-1', src: { file: 'cluster.yaml', line: 12, column: 7, path: 'spec.jobs[0]' } }];
    const w = readJobs('jobs.csv', `${HEAD}\ntrain-1,0,1h,TeamA,8,\ntrain-2,0,1h,TeamA,8,\n`, { ...ctx, running });
    expect(w.jobs.map((j) => j.spec.name)).toEqual(['train-2']);
    expect(where(w.rejected)).toEqual([[2, 1, 'name', 'trace/duplicate-job']]);
    expect(w.rejected[0]!.message).toContain('cluster.yaml:12');
  });
});

describe('market CSV cells', () => {
  const known = new Set(['ecs.gn7i-1gpu']);

  it('refuses NaN, -5, Infinity, =1+2, 1e400 and a blank price at their cells, and reads the rest', () => {
    const csv =
      'at,instanceType,price\n0,ecs.gn7i-1gpu,3\n1h,ecs.gn7i-1gpu,NaN\n2h,ecs.gn7i-1gpu,-5\n3h,ecs.gn7i-1gpu,Infinity\n4h,ecs.gn7i-1gpu,=1+2\n5h,ecs.gn7i-1gpu,1e400\n6h,ecs.gn7i-1gpu,\n7h,ecs.gn7i-1gpu,4.5\n';
    const r = readMarketCsv('prices.csv', csv, 'price', known);
    expect(where(r.findings)).toEqual([3, 4, 5, 6, 7, 8].map((line) => [line, 18, 'price', 'market/bad-value']));
    expect(r.series.get('ecs.gn7i-1gpu')).toEqual([
      { at: 0, value: 3 },
      { at: 7 * 3_600_000, value: 4.5 },
    ]);
  });

  it('refuses a fractional inventory as a bad value and one past the limit as out of range, and a time past 3650d', () => {
    const csv = 'at,instanceType,inventory\n0,ecs.gn7i-1gpu,1.5\n1h,ecs.gn7i-1gpu,2000000\n3651d,ecs.gn7i-1gpu,4\n';
    expect(where(readMarketCsv('inventory.csv', csv, 'inventory', known).findings)).toEqual([
      [2, 17, 'inventory', 'market/bad-value'],
      [3, 18, 'inventory', 'market/out-of-range'],
      [4, 1, 'at', 'market/out-of-range'],
    ]);
  });

  it('refuses an unknown or a missing column at the header', () => {
    expect(where(readMarketCsv('p.csv', 'at,instanceType,price,note\n0,ecs.gn7i-1gpu,3,x\n', 'price', known).findings)).toEqual([[1, 23, '', 'market/unknown-column']]);
    expect(where(readMarketCsv('p.csv', 'at,price\n0,3\n', 'price', known).findings)).toEqual([[1, 1, '', 'market/missing-column']]);
  });
});

describe('readMarketFiles: what check and simulate read beside the policy', () => {
  it('reads the shipped example clean', () => {
    expect(readMarketFiles(policy.spotMarkets!).findings).toEqual([]);
  });

  it('locates a file that cannot be read at the field naming it, and a type left without a series at the type', () => {
    const dir = mkdtempSync(join(tmpdir(), 'quotient-market-'));
    const yaml = `apiVersion: quotient.dev/v1
kind: SpotMarket
metadata: { name: m }
spec:
  pricesFile: nowhere.csv
  inventoryFile: inventory.csv
  instanceTypes:
    - { name: t1, gpus: 1, payAsYouGo: 12 }
`;
    writeFileSync(join(dir, 'market.yaml'), yaml);
    writeFileSync(join(dir, 'inventory.csv'), 'at,instanceType,inventory\n0,t1,4\n');
    const files = [{ path: join(dir, 'market.yaml'), text: yaml }, ...readBundles(['policies/spot-market'])[0]!.files.filter((f) => !f.path.endsWith('market.yaml'))];
    const market = loadPolicy(files, { now: 0 }).policy!.spotMarkets!;
    expect(where(readMarketFiles(market).findings)).toEqual([[5, 15, 'spec.pricesFile', 'market/unreadable-file']]);
    writeFileSync(join(dir, 'nowhere.csv'), 'at,instanceType,price\n');
    expect(where(readMarketFiles(market).findings)).toEqual([[8, 7, 'spec.instanceTypes[0]', 'policy/no-market-series']]);
  });
});

describe('synthetic market points', () => {
  const market = (every: number): SpotMarket[] => [
    {
      name: 'm',
      protectionPeriod: 3_600_000,
      instanceTypes: [{ name: 't', pool: 'general', gpus: 1, payAsYouGo: 10, prices: [], inventory: [], src: { file: 'm.yaml', line: 8, column: 7, path: '' } }],
      synthetic: { every, meanDiscount: 0.35, volatility: 0.08, inventory: 64 },
      src: { file: 'm.yaml', line: 1, column: 1, path: '' },
    },
  ];
  const none = { prices: new Map(), inventory: new Map() };

  it('makes the points of a run within the limit, and refuses one past it before making any', () => {
    const fits = (MAX_SYNTHETIC_POINTS - 2) * 1000;
    expect(marketSeries(market(1000), none, 1, fits)[0]!.prices).toHaveLength(MAX_SYNTHETIC_POINTS);
    // Just past the limit, so that without it the test fails cleanly instead of filling the memory.
    const e = thrown(() => marketSeries(market(1000), none, 1, fits + 1000));
    expect(e.code).toBe('simulate/too-many-points');
    expect(e.message).toContain('1,000,000');
    expect(e.hint).toMatch(/synthetic\.every to \S+ or longer/);
  });
});

describe('whatif --market TYPE=PRICE@TIME', () => {
  it.each([
    [`t=11@${D306}`, true],
    ['t=11@3651d', true],
    ['t=1000001@1h', true],
    ['t=inventory:1000001@1h', true],
    ['t=inventory:1.5@1h', false],
    ['t=NaN@1h', false],
    ['t=11@-5', false],
  ])('refuses %s (past a limit: %s)', (value, pastLimit) => {
    expect(parseMarketEvent(value)).toEqual({ refused: expect.any(String), pastLimit });
  });

  it('reads an event at the limits', () => {
    expect(parseMarketEvent('t=1000000@3650d')).toEqual({ instanceType: 't', at: 3650 * 86_400_000, price: 1_000_000 });
  });
});

describe('sweeps', () => {
  it('says the limit of --seeds, and takes each seed by the --seed rule', () => {
    const many = parseSeeds('1-1000000');
    expect(many).toEqual({ refused: expect.stringContaining('100,000'), pastLimit: true });
    expect(parseSeeds('4294967290-4294967296')).toEqual({ refused: expect.stringContaining('4294967295'), pastLimit: true });
    expect(parseSeeds('1,99999999999999999999')).toMatchObject({ pastLimit: true });
    expect(parseSeeds('8-1')).toMatchObject({ pastLimit: false });
    expect(parseSeeds('1-3')).toEqual([1, 2, 3]);
    expect(parseSeeds('4294967295')).toEqual([4294967295]);
  });

  it('bounds the shard count', () => {
    expect(parseShard('0/99999999999999999999')).toEqual(expect.stringContaining('100,000'));
    expect(parseShard('3/4')).toEqual({ index: 3, count: 4 });
  });
});

describe('numeric flags', () => {
  it('refuses --until and --cycle past 3650d as out of range, naming the flag and the limit', () => {
    for (const [run, flag] of [
      [() => untilFlag(D306), '--until'],
      [() => cycleFlag('99999999999999999999'), '--cycle'],
    ] as const) {
      const e = thrown(run);
      expect(e.code).toBe('cli/out-of-range');
      expect(e.message).toContain(flag);
      expect(e.message).toContain('3650d');
    }
    expect(thrown(() => untilFlag('0')).code).toBe('cli/bad-until');
    expect(thrown(() => cycleFlag('1e3')).code).toBe('cli/bad-cycle');
    expect(untilFlag('72h')).toBe(72 * 3_600_000);
  });

  it('gives simulate, whatif --market and test one seed rule', () => {
    expect(thrown(() => seedFlag('4294967296')).code).toBe('cli/bad-seed');
    expect(seedFlag('4294967295')).toBe(4294967295);
  });
});
