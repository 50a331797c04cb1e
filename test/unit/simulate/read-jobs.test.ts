/** Jobs files: every bad field of every row is a located finding (file:line, field, value); nothing is dropped silently. */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { readPrice } from '../../../src/policy/parse/number-text.js';
import { readJobs } from '../../../src/simulate/read-jobs.js';

const policy = loadPolicy(readBundles(['policies/spot-market'])[0]!.files, { now: 0 }).policy!;
const instanceTypes = new Map(policy.spotMarkets![0]!.instanceTypes.map((t) => [t.name, { pool: t.pool }]));
const ctx = { policy, instanceTypes };
const HEAD = 'name,submit,duration,quota,priority,pods,gpu,idleResources,instanceType,priceLimit,discountLimit,checkpoint,autoRestart,maxRestarts';

function findings(text: string, file = 'jobs.csv', strict = false) {
  const w = readJobs(file, text, ctx, { strict });
  return { w, got: w.rejected.map((f) => [f.line, f.path, f.code]) };
}

describe('readJobs', () => {
  it('reads good rows with defaults (workspace from the quota, module DLC, priority 1, pods 1)', () => {
    const { w } = findings(`${HEAD}\na,0,2h,TeamA,,,8,,,,,,,\nb,90m,3600,TeamB,4,2,4,acceptable,,,,30m,true,\n`);
    expect(w.rejected).toEqual([]);
    expect(w.jobs.map((j) => [j.spec.name, j.submit, j.duration, j.spec.workspace, j.spec.module, j.spec.priority, j.spec.pods])).toEqual([
      ['a', 0, 7_200_000, 'team-a', 'DLC', 1, 1],
      ['b', 5_400_000, 3_600_000, 'team-b', 'DLC', 4, 2],
    ]);
    expect(w.jobs[1]!.spec.faultTolerance).toEqual({ autoRestart: true, maxRestarts: 3 });
    expect(w.jobs[1]!.spec.checkpoint).toEqual({ every: 1_800_000 });
  });

  it('locates each bad field of a row and leaves the row out', () => {
    const { w, got } = findings(`${HEAD}\nok,0,1h,TeamA,,,8,,,,,,,\nbad,soon,-1,TeamZ,12,0,64,sometimes,,,,5 minutes,maybe,\n`);
    expect(w.jobs.map((j) => j.spec.name)).toEqual(['ok']);
    expect(got).toEqual([
      [3, 'submit', 'trace/bad-value'],
      [3, 'duration', 'trace/bad-value'],
      [3, 'quota', 'trace/bad-value'],
      [3, 'idleResources', 'trace/bad-value'],
      // Past the field's maximum (priority 12 > 9, gpu 64 > 32) is out of range; not a value of the form (pods 0), a bad value.
      [3, 'priority', 'trace/out-of-range'],
      [3, 'pods', 'trace/bad-value'],
      [3, 'gpu', 'trace/out-of-range'],
      [3, 'checkpoint', 'trace/bad-value'],
      [3, 'autoRestart', 'trace/bad-value'],
    ]);
    // The text is the behaviour here: the finding shows the cell's field and value.
    expect(w.rejected[0]!.message).toContain('submit = "soon"');
  });

  it('enforces the spot bid rules of SEMANTICS 6', () => {
    const { got } = findings(
      `${HEAD}\n` +
        'both,0,1h,TeamA,,,1,,ecs.gn7i-1gpu,5,0.5,,,\n' +
        'discount-general,0,1h,TeamA,,,1,,ecs.gn7i-1gpu,,0.5,,,\n' +
        'odd-step,0,1h,TeamA,,,8,,lingjun.gu8-8gpu,,0.55,,,\n' +
        'no-bid,0,1h,TeamA,,,8,,lingjun.gu8-8gpu,,,,,\n' +
        'restart-general,0,1h,TeamA,,,1,,ecs.gn7i-1gpu,5,,,true,\n' +
        'unknown-type,0,1h,TeamA,,,1,,ecs.nope,5,,,,\n' +
        'ok,0,1h,TeamA,,,8,,lingjun.gu8-8gpu,,0.5,,true,2\n',
    );
    expect(got).toEqual([
      [2, 'discountLimit', 'trace/bad-value'],
      [3, 'discountLimit', 'trace/bad-value'],
      [4, 'discountLimit', 'trace/bad-value'],
      [5, 'instanceType', 'trace/bad-value'],
      [6, 'autoRestart', 'trace/bad-value'],
      [7, 'instanceType', 'trace/bad-value'],
    ]);
  });

  it('converts a per-minute bid to per hour', () => {
    expect(readPrice('0.2/min', true)).toBeCloseTo(12);
    expect(readPrice('12/h', true)).toBe(12);
    expect(readPrice(12.5, true)).toBe(12.5);
    expect(readPrice('cheap', true)).toMatchObject({ pastLimit: false });
  });

  it('stops at the first bad row with --strict', () => {
    const { w } = findings(`${HEAD}\nx,zz,1h,TeamA,,,8,,,,,,,\ny,0,1h,TeamQ,,,8,,,,,,,\n`, 'jobs.csv', true);
    expect(w.jobs).toEqual([]);
    expect(w.rejected.map((f) => [f.line, f.path])).toEqual([[2, 'submit']]);
  });

  it('reads YAML with line numbers, and names unknown columns and duplicate names', () => {
    const yaml =
      'jobs:\n  - { name: a, submit: 0, duration: 1h, quota: TeamA, gpu: 8 }\n  - name: b\n    submit: 1h\n    duration: 1h\n    quota: TeamB\n    gpus: 8\n  - { name: a, submit: 0, duration: 1h, quota: TeamA, gpu: 8 }\n';
    const { got } = findings(yaml, 'jobs.yaml');
    expect(got).toEqual([
      [7, 'gpus', 'trace/unknown-field'],
      [8, 'name', 'trace/duplicate-job'],
    ]);
    const csv = findings('name,submit,duration,quota,gpus\na,0,1h,TeamA,8\n');
    expect(csv.got[0]).toEqual([1, 'gpus', 'trace/unknown-field']);
  });

  it('points a bad value at its cell: line and 1-based column, a quoted cell with commas being one cell', () => {
    const head = 'name,submit,duration,quota,gpu';
    // Row 3: the quoted name holds a comma, so "soon" (the 3rd field) starts at column 14, not 1 and not 18.
    // Row 5: a quoted name spans lines 4-5 (and is refused for its line break, at its cell), so its bad gpu sits on
    // line 5; row 6 is one field short (a row finding).
    const text = `${head}\nok,0,1h,TeamA,8\n"job, one",0,soon,TeamA,8\n"two\nlines",0,1h, TeamA ,x\nshort,0\n`;
    const { w } = findings(text);
    expect(w.rejected.map((f) => [f.line, f.column, f.path, f.code])).toEqual([
      [3, 14, 'duration', 'trace/bad-value'],
      [4, 1, 'name', 'trace/control-character'],
      [5, 21, 'gpu', 'trace/bad-value'],
      [6, 1, '', 'trace/bad-csv'],
    ]);
    // The text is the behaviour here: the finding shows the cell's field and value.
    expect(w.rejected[0]!.message).toContain('duration = "soon"');
    // A header cell that names no field is located the same way (after a comment line and a BOM).
    const header = readJobs('jobs.csv', `\uFEFF# jobs\nname,"submit",gpus,duration,quota\n`, ctx).rejected;
    expect(header.map((f) => [f.line, f.column, f.path])).toEqual([[2, 15, 'gpus']]);
  });

  it('points a bad value of a YAML or JSON jobs file at the value, not at the job', () => {
    const yaml = 'jobs:\n  - name: b\n    submit: zz\n    duration: 1h\n    quota: TeamA\n    gpu: 8\n  - { name: c, submit: 0, duration: 1h, quota: TeamA, gpu: 48 }\n';
    expect(readJobs('jobs.yaml', yaml, ctx).rejected.map((f) => [f.line, f.column, f.path])).toEqual([
      [3, 13, 'submit'],
      [7, 60, 'gpu'],
    ]);
    const json = '[\n  {"name": "a", "submit": 0, "duration": "1h",\n   "quota": "TeamA", "gpu": 48}\n]\n';
    expect(readJobs('jobs.json', json, ctx).rejected.map((f) => [f.line, f.column, f.path])).toEqual([[3, 29, 'gpu']]);
  });

  it('leaves out only the CSV rows the parser cannot read (too few or many fields, a stray quote), in line order', () => {
    const head = 'name,submit,duration,quota,gpu';
    const { w, got } = findings(`${head}\na,0,1h,TeamA,8\noops,2h,4h\nb,0,1h,TeamA,x"8"\nc,0,1h,TeamA,8,9\nd,zz,1h,TeamA,8\ne,0,1h,TeamB,4\n`);
    expect(w.jobs.map((j) => j.spec.name)).toEqual(['a', 'e']);
    expect(got).toEqual([
      [3, '', 'trace/bad-csv'],
      [4, '', 'trace/bad-csv'],
      [5, '', 'trace/bad-csv'],
      [6, 'submit', 'trace/bad-value'],
    ]);
    // The text is the behaviour here: the finding counts the row's fields and the header's columns.
    expect(w.rejected[0]!.message).toBe('the row has 3 field(s), the header 5 column(s)');
    // --strict stops at the first bad row by line, a parser one included.
    expect(findings(`${head}\na,0,1h,TeamA,8\noops,2h\nd,zz,1h,TeamA,8\n`, 'jobs.csv', true).got).toEqual([[3, '', 'trace/bad-csv']]);
  });

  it('reads no row of a file that is not text, has a bad header, or an unclosed quote', () => {
    const good = 'a,0,1h,TeamA,8\n';
    for (const [text, code] of [
      [`name,submit,duration,quota,gpu\n${good}\u0000\u0001\n`, 'trace/not-text'],
      [`name,submit,duration,quota,gpu\n${good}b,0,1h,TeamA,\uFFFD\n`, 'trace/not-text'],
      [`name,submit,duration,quota,gpus\n${good}`, 'trace/unknown-field'],
      [`name,submit,duration,quota,gpu,gpu\na,0,1h,TeamA,8,9\n`, 'trace/duplicate-column'],
      [`name,submit,duration,quota,gpu\n${good}b,0,"1h,TeamA,8\n${good}`, 'trace/bad-csv'],
    ] as const) {
      const { w, got } = findings(text);
      expect(w.jobs, text).toEqual([]);
      expect(
        got.map((g) => g[2]),
        text,
      ).toContain(code);
    }
  });
});
