/**
 * BatchPool answers exactly what the calling thread's Session answers, in input order,
 * whatever the batch size and worker count. The workers run the compiled
 * dist/pool/batch-worker.js (`pretest` builds it).
 */
import { seededRandom } from '../../../bench/synthetic-cluster.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BatchPool, type BatchQuery } from '../../../src/pool/batch-pool.js';
import { Session } from '../../../src/engine/session.js';
import { FindingsError, QuotientError } from '../../../src/errors.js';
import type { JobSpec } from '../../../src/model/policy.js';
import type { InputFile } from '../../../src/policy/parse/source-doc.js';
import { jobSpecDoc } from '../../../src/policy/write/to-docs.js';
import { InvalidRequestError } from '../../../src/pool/batch-pool.js';
import { estimateStart } from '../../../src/simulate/start-estimate.js';
import { coded } from '../../helpers/codes.js';

const POLICIES = join(import.meta.dirname, '../../../policies');
const NOW = Date.parse('2026-11-20T12:00:00Z');

/** A shipped policy folder's YAML files, as one bundle. */
function bundle(name: string): InputFile[] {
  const dir = join(POLICIES, name);
  return readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .map((f) => ({ path: `policies/${name}/${f}`, text: readFileSync(join(dir, f), 'utf8') }));
}

/** The calling thread's session, estimating starts as the pool's workers do. */
function open(files: InputFile[]): Session {
  const { session, findings } = Session.open(files, { now: NOW, estimator: (p, j, o) => estimateStart(p, j, { backend: 'wasm', ...o }) });
  if (!session) throw new Error(`shipped policy does not load: ${JSON.stringify(findings)}`);
  return session;
}

async function inThread(session: Session, queries: BatchQuery[]): Promise<unknown[]> {
  const out = [];
  for (const q of queries) out.push((await session.ask(q.request, { query: q.query ?? 'submit' })).answer);
  return out;
}

/** A submission as a pool query: the job as a WhatIf's `submit` holds it. */
function submit(job: JobSpec): BatchQuery {
  return { request: { submit: jobSpecDoc(job) } };
}

/** The job name a query submits. */
function nameOf(q: BatchQuery): string {
  return (q.request.submit as { name: string }).name;
}

/** A query submitting `q`'s job renamed. */
function renamedQuery(q: BatchQuery, name: string): BatchQuery {
  return { ...q, request: { ...q.request, submit: { ...(q.request.submit as object), name } } };
}

/** `n` submissions made from a policy's WhatIfs: other priorities, pod counts, GPUs, quotas. */
function adHoc(session: Session, n: number, seed: number): BatchQuery[] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
  const templates = session.policy.whatIfs.map((w) => w.submit);
  const quotas = session.policy.quotas.map((q) => q.name);
  return Array.from({ length: n }, (_, i) => {
    const t = pick(templates);
    const ws = session.policy.workspaces.find((w) => w.name === t.workspace)!;
    const job = {
      ...t,
      name: `adhoc-${i}`,
      priority: 1 + Math.floor(random() * 9),
      pods: pick([1, 1, 2, 3, 4]),
      resources: { ...t.resources, gpu: pick([1, 2, 4, 8]) },
      // Mostly the workspace's own quotas; sometimes any quota (a `reject` answer).
      quota: random() < 0.85 ? pick(ws.quotas) : pick(quotas),
      idleResources: pick(['none', 'none', 'acceptable', 'only'] as const),
    };
    return submit(job);
  });
}

const SHIPPED = readdirSync(POLICIES, { withFileTypes: true })
  .filter((e) => e.isDirectory())
  .map((e) => e.name)
  .sort();

describe('BatchPool', () => {
  let pool: BatchPool;
  beforeAll(() => {
    pool = new BatchPool({ workers: 2, batchSize: 3 });
  });
  afterAll(async () => {
    await pool.close();
  });

  it('finds the shipped policies', () => {
    expect(SHIPPED.length).toBeGreaterThanOrEqual(3);
  });

  it.each(SHIPPED)("answers %s's WhatIfs as Session.answer does", async (name) => {
    const files = bundle(name);
    const session = open(files);
    const queries = session.policy.whatIfs.map((w) => ({ request: { query: w.name } }));
    expect(queries.length).toBeGreaterThan(0);
    const answers = await pool.answerAll(`shipped/${name}`, files, queries, { now: NOW });
    expect(answers).toEqual(await inThread(session, queries));
  });

  it.each(SHIPPED)('answers 200 ad-hoc submissions on %s as Session.answer does, in input order', async (name) => {
    const files = bundle(name);
    const session = open(files);
    const queries = adHoc(session, 200, name.length * 7919);
    const expected = await inThread(session, queries);
    // Several decisions, so the comparison covers more than one path of the engine.
    expect(new Set(expected.map((a) => (a as { decision: string }).decision)).size).toBeGreaterThan(1);
    const answers = await pool.answerAll(`shipped/${name}`, files, queries, { now: NOW });
    expect(answers.map((a) => a.job)).toEqual(queries.map(nameOf));
    expect(answers).toEqual(expected);
  });

  it('keeps input order for every batch size, including one batch and one query per task', async () => {
    const files = bundle(SHIPPED[0]!);
    const queries = adHoc(open(files), 50, 3);
    for (const batchSize of [1, 7, 50, 1000]) {
      const p = new BatchPool({ workers: 2, batchSize });
      try {
        const answers = await p.answerAll('order', files, queries, { now: NOW });
        expect(answers.map((a) => a.job)).toEqual(queries.map(nameOf));
      } finally {
        await p.close();
      }
    }
  });

  it('answers the reference backend as the wasm backend does', async () => {
    const files = bundle(SHIPPED[0]!);
    const queries = adHoc(open(files), 40, 11);
    const ref = new BatchPool({ workers: 1, backend: 'reference' });
    try {
      expect(await ref.answerAll('ref', files, queries, { now: NOW })).toEqual(await pool.answerAll('ref', files, queries, { now: NOW }));
    } finally {
      await ref.close();
    }
  });

  it('answers the same with the answer memo on and off, and counts what the memo served', async () => {
    const files = bundle(SHIPPED[0]!);
    // 40 submissions asked three times under other names: the second and third are served.
    const queries = [0, 1, 2].flatMap((round) => adHoc(open(files), 40, 17).map((q) => renamedQuery(q, `${nameOf(q)}-${round}`)));
    const before = { ...pool.answerMemoStats };
    const on = await pool.answerAll('memo', files, queries, { now: NOW, answerMemo: true, batchSize: 120 });
    const mid = { ...pool.answerMemoStats };
    const off = await pool.answerAll('memo', files, queries, { now: NOW, answerMemo: false });
    expect(off).toEqual(on);
    // With the memo every answer is a hit or a miss.
    expect(mid.hits - before.hits + mid.misses - before.misses).toBe(120);
    expect(mid.hits - before.hits).toBeGreaterThanOrEqual(80);
    // Without it the workers' memos are not asked.
    expect(pool.answerMemoStats).toEqual(mid);
    // Served answers share their parts within a batch: frozen, so no caller changes another's.
    const twins = on.map((a, i) => [a, on.findIndex((b, j) => j < i && b.reasons === a.reasons)] as const).filter(([, j]) => j >= 0);
    expect(twins.length).toBeGreaterThan(0);
    for (const [a] of twins) expect(() => a.reasons.push(a.reasons[0]!)).toThrow(TypeError);
  });

  it('answers two calls at once with the memo as Session.answer does (served answers cross once per call)', async () => {
    const files = bundle(SHIPPED[0]!);
    const session = open(files);
    // Each submission three times under other names, in two calls whose small batches interleave on both workers.
    const thrice = (seed: number) => [0, 1, 2].flatMap((round) => adHoc(session, 30, seed).map((q) => renamedQuery(q, `${nameOf(q)}-${seed}-${round}`)));
    const [a, b] = [thrice(23), thrice(29)];
    const [gotA, gotB] = await Promise.all([
      pool.answerAll('interleave', files, a, { now: NOW, answerMemo: true, batchSize: 4 }),
      pool.answerAll('interleave', files, b, { now: NOW, answerMemo: true, batchSize: 5 }),
    ]);
    const plain = Session.open(files, { now: NOW, answerMemo: false, estimator: (p, j, o) => estimateStart(p, j, { backend: 'wasm', ...o }) }).session!;
    expect(gotA).toEqual(await inThread(plain, a));
    expect(gotB).toEqual(await inThread(plain, b));
    expect(JSON.stringify(gotA)).toBe(JSON.stringify(await inThread(plain, a)));
  });

  it('returns [] for no queries', async () => {
    expect(await pool.answerAll('empty', bundle(SHIPPED[0]!), [])).toEqual([]);
  });

  it('throws FindingsError for a policy with errors', async () => {
    const files = [{ path: 'bad.yaml', text: 'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: x }\nspec: { nope: 1 }\n' }];
    const job = open(bundle(SHIPPED[0]!)).policy.whatIfs[0]!.submit;
    await expect(pool.answerAll('bad', files, [submit(job)])).rejects.toBeInstanceOf(FindingsError);
  });

  it('names the failing query when a job does not fit the policy, with its findings', async () => {
    const files = bundle(SHIPPED[0]!);
    const good = open(files).policy.whatIfs[0]!.submit;
    const queries = [0, 1, 2, 3, 4].map((i) => submit({ ...good, name: `j${i}`, workspace: i === 4 ? 'no-such-workspace' : good.workspace }));
    const err = await pool.answerAll('fail', files, queries, { now: NOW }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidRequestError);
    expect((err as InvalidRequestError).code).toBe('batch/invalid-request');
    expect((err as InvalidRequestError).index).toBe(4);
    // The worker's findings are the loader's, at the job's field.
    expect((err as InvalidRequestError).findings).toMatchObject([{ code: 'policy/unknown-workspace', path: 'submit.workspace' }]);
  });

  it('names a request that is not valid, one that cannot be sent and a query that is not one', async () => {
    const files = bundle(SHIPPED[0]!);
    const good = open(files).policy.whatIfs[0]!.submit;
    const failing = async (bad: unknown, at = 1): Promise<QuotientError> => {
      const queries = [submit(good), bad, submit({ ...good, name: 'after' })] as BatchQuery[];
      const err = await pool.answerAll('fail', files, queries, { now: NOW, batchSize: 2 }).catch((e: unknown) => e);
      expect(err, JSON.stringify(bad)).toBeInstanceOf(QuotientError);
      // The text is the behaviour here: every failure names the query, and the field and value where there is one.
      expect((err as QuotientError).message).toContain(`query ${at} of the input`);
      return err as QuotientError;
    };
    const zero = await failing(submit({ ...good, name: 'z', pods: 0 }));
    expect(zero.code).toBe('batch/invalid-request');
    expect((zero as InvalidRequestError).findings).toMatchObject([{ code: 'policy/non-positive', path: 'submit.pods' }]);
    const nothing = await failing({ request: null });
    expect(nothing.code).toBe('batch/invalid-request');
    expect((nothing as InvalidRequestError).findings).toMatchObject([{ code: 'request/not-an-object' }]);
    const fn = await failing({ request: { submit: { ...jobSpecDoc(good), name: 'f', note: () => 1 } } });
    expect(fn.code).toBe('batch/bad-query');
    expect(fn.hint).toContain('plain data');
    const notQuery = await pool.answerAll('fail', files, [submit(good), null as unknown as BatchQuery]).catch((e: unknown) => e);
    expect(notQuery).toMatchObject({ code: 'batch/bad-query' });
    expect((notQuery as QuotientError).message).toContain('query 1 of the input');
  });

  it('names the first failing query in input order when several batches fail', async () => {
    const files = bundle(SHIPPED[0]!);
    const good = open(files).policy.whatIfs[0]!.submit;
    const queries = [0, 1, 2, 3, 4, 5].map((i) => submit({ ...good, name: `j${i}`, workspace: i === 2 || i === 4 ? 'no-such-workspace' : good.workspace }));
    for (const batchSize of [1, 2, 6]) {
      const err = await pool.answerAll('fail', files, queries, { now: NOW, batchSize }).catch((e: unknown) => e);
      expect((err as QuotientError).code, `batch size ${batchSize}`).toBe('batch/invalid-request');
      expect((err as QuotientError).message, `batch size ${batchSize}`).toContain('query 2 of the input');
    }
  });

  it.each([
    [{ workers: 0 }, 'workers must be a positive integer'],
    [{ workers: -2 }, 'workers must be a positive integer'],
    [{ workers: 1.5 }, 'workers must be a positive integer'],
    [{ workers: '2' as unknown as number }, 'workers must be a positive integer'],
    [{ batchSize: 0 }, 'batchSize must be a positive integer'],
    [{ batchSize: Number.NaN }, 'batchSize must be a positive integer'],
    [{ backend: 'gpu' as 'wasm' }, "backend must be 'wasm' or 'reference'"],
    [{ answerMemo: 'yes' as unknown as boolean }, 'answerMemo must be true or false'],
  ])('rejects bad options %o', (options, message) => {
    expect(() => new BatchPool(options)).toThrow(coded('batch/bad-option'));
    // The text is the behaviour here: an option error names the option and the rule (as Piscina's do).
    expect(() => new BatchPool(options)).toThrow(message);
  });

  it('defaults workers to the available parallelism and batchSize to 100', async () => {
    const p = new BatchPool();
    try {
      expect(p.workers).toBeGreaterThanOrEqual(1);
      expect(p.batchSize).toBe(100);
    } finally {
      await p.close();
    }
  });

  it('closes: close is idempotent and a closed pool refuses work', async () => {
    const p = new BatchPool({ workers: 1 });
    const files = bundle(SHIPPED[0]!);
    const queries = adHoc(open(files), 5, 5);
    await p.warm('close', files, { now: NOW });
    expect(await p.answerAll('close', files, queries, { now: NOW })).toHaveLength(5);
    await p.close();
    await p.close();
    await expect(p.answerAll('close', files, queries)).rejects.toThrow(coded('batch/closed'));
  });
});
