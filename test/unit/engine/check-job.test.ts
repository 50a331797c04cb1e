/**
 * A job handed to the library is checked before it is answered (engine/check-job.ts):
 * a bad one is an `engine/invalid-job` QuotientError naming each bad field, its value and
 * what is allowed, in the calling thread and through a BatchPool; never a TypeError,
 * never an answer; never kept by the answer memo. Valid jobs answer as before (the golden
 * and property suites hold that; here: a running job asked about as a submission).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchPool } from '../../../src/engine/batch-pool.js';
import { compileJobSchema, InvalidJobError, type JobProblem } from '../../../src/engine/check-job.js';
import { Session } from '../../../src/engine/session.js';
import { QuotientError } from '../../../src/errors.js';
import type { JobSpec } from '../../../src/model/policy.js';
import { jobSpec } from '../../../src/policy/schema.js';
import type { InputFile } from '../../../src/policy/source-doc.js';

const NOW = Date.parse('2026-11-20T12:00:00Z');
const NAME = 'inference-preempts-training';
const DIR = join(import.meta.dirname, '../../../policies', NAME);
const FILES: InputFile[] = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => ({ path: `policies/${NAME}/${f}`, text: readFileSync(join(DIR, f), 'utf8') }));

function open(answerMemo: boolean): Session {
  const { session, findings } = Session.open(FILES, { now: NOW, answerMemo });
  if (!session) throw new Error(JSON.stringify(findings));
  return session;
}

/** The first WhatIf's job (team-a-inference: it preempts). */
function good(session: Session): JobSpec {
  return session.policy.whatIfs[0]!.submit;
}

/** The first WhatIf's job with `field` set to `value` (undefined: the field present but undefined, as a caller's spread leaves it). */
function bad(session: Session, field: string, value: unknown): JobSpec {
  return { ...good(session), [field]: value };
}

/** The faults measured before the check (brief): each was a TypeError, a bare Error or an answer. */
const FAULTS: Array<{ field: string; value: unknown; path: string; code: string }> = [
  { field: 'workspace', value: 'nope', path: 'job.workspace', code: 'policy/unknown-workspace' },
  { field: 'quota', value: 'nope', path: 'job.quota', code: 'policy/unknown-quota' },
  { field: 'pods', value: 0, path: 'job.pods', code: 'policy/non-positive' },
  { field: 'priority', value: 'x', path: 'job.priority', code: 'policy/invalid-type' },
  { field: 'resources', value: undefined, path: 'job.resources', code: 'policy/missing-field' },
];

/** The rejection of `p`, which must be a promise that rejects (a check that throws synchronously fails here). */
async function rejection(p: Promise<unknown>): Promise<unknown> {
  expect(p).toBeInstanceOf(Promise);
  return p.then(
    (a) => {
      throw new Error(`answered instead of refusing: ${JSON.stringify(a).slice(0, 200)}`);
    },
    (e: unknown) => e,
  );
}

/** A value as the message shows it: printable strings quoted, numbers and null as written; others only by their path. */
function shown(v: unknown): string {
  if (v === undefined) return 'missing';
  if (typeof v === 'string') return /^[\x20-\x7e]*$/.test(v) ? JSON.stringify(v) : '"';
  return typeof v === 'number' || v === null ? String(v) : '';
}

/** Asserts `e` is the invalid-job error with exactly these (path, value) problems. */
function expectInvalid(e: unknown, expected: Array<Pick<JobProblem, 'path' | 'value'> & { code?: string }>): InvalidJobError {
  expect(e).toBeInstanceOf(QuotientError);
  expect(e).toBeInstanceOf(InvalidJobError);
  const err = e as InvalidJobError;
  expect(err.code).toBe('engine/invalid-job');
  expect(err.problems.map((p) => ({ path: p.path, value: p.value }))).toEqual(expected.map((x) => ({ path: x.path, value: x.value })));
  for (const [i, x] of expected.entries()) {
    if (x.code) expect(err.problems[i]!.code).toBe(x.code);
    expect(err.message).toContain(`${x.path} = ${shown(x.value)}`);
  }
  expect(err.hint.length).toBeGreaterThan(10);
  return err;
}

describe('a bad job, in the calling thread', () => {
  for (const memo of [true, false]) {
    it.each(FAULTS)(`$field = $value is engine/invalid-job naming $path and the value (memo ${memo ? 'on' : 'off'})`, async ({ field, value, path, code }) => {
      const s = open(memo);
      const err = expectInvalid(await rejection(s.answer('q', bad(s, field, value))), [{ path, value, code }]);
      expect(err.message).toContain('job "infer-a"');
    });
  }

  it.each(FAULTS)('$field = $value is refused by answerAs too', async ({ field, value, path }) => {
    const s = open(true);
    expectInvalid(await rejection(s.answerAs('q', bad(s, field, value), 'alice', { outsider: true })), [{ path, value }]);
  });

  it('says what is allowed in the hint', async () => {
    const s = open(true);
    const ws = (await rejection(s.answer('q', bad(s, 'workspace', 'workspace-aa')))) as InvalidJobError;
    expect(ws.hint).toContain('workspace-a');
    const pods = (await rejection(s.answer('q', bad(s, 'pods', 0)))) as InvalidJobError;
    expect(pods.hint).toContain('1 or more');
    const prio = (await rejection(s.answer('q', bad(s, 'priority', 12)))) as InvalidJobError;
    expect(prio.hint).toContain('1 (least important) to 9');
  });

  it('reports every bad field at once, the names too when the shape is also wrong', async () => {
    const s = open(true);
    const job = { ...good(s), name: 'x', pods: 0, priority: 12, workspace: 'nope', prority: 3 } as unknown as JobSpec;
    const err = expectInvalid(await rejection(s.answer('q', job)), [
      { path: 'job.prority', value: 3, code: 'policy/unknown-field' },
      { path: 'job.priority', value: 12, code: 'policy/priority-out-of-range' },
      { path: 'job.pods', value: 0, code: 'policy/non-positive' },
      { path: 'job.workspace', value: 'nope', code: 'policy/unknown-workspace' },
    ]);
    expect(err.message).toContain('(4 problems)');
  });

  it('checks the fields in model units and the fields a JobSpec must state, in the order the job holds them', async () => {
    const s = open(false);
    const { pods: _pods, ...noPods } = good(s);
    const job = { ...noPods, resources: { gpu: 0.5, cpu: '500m', memory: -1 }, checkpoint: { every: 0 }, maxRuntime: 1.5, faultTolerance: { autoRestart: true } } as unknown as JobSpec;
    expectInvalid(await rejection(s.answer('q', job)), [
      { path: 'job.resources.cpu', value: '500m', code: 'policy/invalid-type' },
      { path: 'job.resources.memory', value: -1, code: 'policy/out-of-range' },
      { path: 'job.checkpoint.every', value: 0, code: 'policy/out-of-range' },
      { path: 'job.faultTolerance.maxRestarts', value: undefined, code: 'policy/missing-field' },
      { path: 'job.maxRuntime', value: 1.5, code: 'policy/out-of-range' },
      { path: 'job.pods', value: undefined, code: 'policy/missing-field' },
    ]);
  });

  it('refuses what is not a job object, and control characters in names', async () => {
    const s = open(true);
    expectInvalid(await rejection(s.answer('q', null as unknown as JobSpec)), [{ path: 'job', value: null }]);
    const err = expectInvalid(await rejection(s.answer('q', bad(s, 'submittedBy', 'al\u202eice'))), [{ path: 'job.submittedBy', value: 'al\u202eice', code: 'policy/control-character' }]);
    // The value is shown with the character escaped, never raw (the message may reach a terminal).
    expect(err.message).toContain('job.submittedBy = "al\\u{202E}ice"');
    expect(err.message).not.toContain('\u202e');
  });

  it('is never memoized: a bad request asked twice fails twice with the same error, and the memo served nothing', async () => {
    const s = open(true);
    const first = (await rejection(s.answer('q', bad(s, 'pods', 0)))) as InvalidJobError;
    const second = (await rejection(s.answer('q', bad(s, 'pods', 0)))) as InvalidJobError;
    expect(second.message).toBe(first.message);
    expect(second.problems).toEqual(first.problems);
    expect(s.answerMemoStats.hits).toBe(0);
    // Asked at once, before the first failure settles: each fails on its own.
    const both = await Promise.all([rejection(s.answer('q', bad(s, 'pods', -1))), rejection(s.answer('q', bad(s, 'pods', -1)))]);
    for (const e of both) expectInvalid(e, [{ path: 'job.pods', value: -1 }]);
  });

  it("checks the name of a memo hit: the memo's key leaves the name out", async () => {
    const s = open(true);
    await s.answer('q', good(s));
    expectInvalid(await rejection(s.answer('q', bad(s, 'name', ''))), [{ path: 'job.name', value: '', code: 'policy/empty' }]);
    expectInvalid(await rejection(s.answer('q', bad(s, 'name', 'a\u0007b'))), [{ path: 'job.name', value: 'a\u0007b', code: 'policy/control-character' }]);
    const renamed = await s.answer('q', bad(s, 'name', 'twin'));
    expect(renamed.job).toBe('twin');
    expect(s.answerMemoStats.hits).toBe(1);
  });
});

describe('the compiled schema', () => {
  it('agrees with zod on every job field set to every odd value (a job ajv passes must pass zod)', () => {
    const ajv = compileJobSchema();
    const base: Record<string, unknown> = {
      name: 'j',
      workspace: 'w',
      quota: 'q',
      module: 'DLC',
      priority: 5,
      pods: 2,
      resources: { gpu: 8 },
      idleResources: 'none',
      checkpoint: { every: '1h' },
      faultTolerance: { autoRestart: true, maxRestarts: 3 },
      submittedBy: 'alice',
      maxRuntime: '24h',
      gpuModels: ['A100'],
    };
    const odd: unknown[] = [0, -1, 1, 1.5, 9, 10, 32, 33, 2 ** 53, Number.NaN, Infinity, -Infinity, '', 'x', '8', null, undefined, true, [], {}, ['A100', ''], { gpu: 0.5 }, { gpu: 8, extra: 1 }];
    const variants: Array<Record<string, unknown>> = [base, { ...base, extra: 1 }];
    for (const field of Object.keys(base)) for (const v of odd) variants.push({ ...base, [field]: v });
    for (const v of odd) {
      variants.push({ ...base, resources: { gpu: v } });
      variants.push({ ...base, faultTolerance: { autoRestart: true, maxRestarts: v } });
      variants.push({ ...base, checkpoint: { every: v } });
      variants.push({ ...base, gpuModels: [v] });
    }
    let passed = 0;
    for (const job of variants) {
      const zod = jobSpec.safeParse(job).success;
      expect({ job, ajv: ajv(job) }).toEqual({ job, ajv: zod });
      if (zod) passed++;
    }
    // Both verdicts occur: the comparison is not of two validators that refuse everything.
    expect(passed).toBeGreaterThan(10);
    expect(passed).toBeLessThan(variants.length - 100);
  });
});

describe('a valid job', () => {
  it('answers as before, also given as a running job (its standing, start and placement are not a submission field)', async () => {
    const s = open(false);
    const running = s.snapshot!.jobs[0]!;
    const { standing: _s, startedAt: _t, expectedEnd: _e, placement: _p, placedByEngine: _b, ...spec } = running;
    const asRunning = await s.answer('q', { ...running, name: 'again' });
    const asSpec = await s.answer('q', { ...spec, name: 'again' });
    expect(asRunning).toEqual(asSpec);
  });
});

describe('a bad job, through a BatchPool', () => {
  let pool: BatchPool;
  beforeAll(() => {
    pool = new BatchPool({ workers: 1, batchSize: 2 });
  });
  afterAll(async () => {
    await pool.close();
  });

  it.each(FAULTS)('$field = $value fails the call naming the query, $path and the value', async ({ field, value, path }) => {
    const s = open(true);
    const queries = [0, 1, 2].map((i) => ({ query: `q${i}`, job: i === 2 ? bad(s, field, value) : { ...good(s), name: `j${i}` } }));
    const err = await rejection(pool.answerAll(`bad-${field}`, FILES, queries, { now: NOW }));
    expect(err).toBeInstanceOf(QuotientError);
    expect((err as QuotientError).code).toBe('batch/answer-failed');
    const message = (err as QuotientError).message;
    expect(message).toContain('query 2 of the input');
    expect(message).toContain('is not a valid job');
    expect(message).toContain(`${path} = ${shown(value)}`);
    expect(message).not.toContain('TypeError');
  });
});
