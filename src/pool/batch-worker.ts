/**
 * The Piscina worker behind `BatchPool`. Opening a Session is the expensive part
 * (parse + validate + model + loading the snapshot into this thread's own wasm kernel:
 * seconds for a 10,000-node snapshot), so a worker opens each policy once, keyed by
 * `PolicyRef.key`, and answers every later batch from the same Session: the snapshot
 * is never re-encoded per query or per task, and eligibility tables built for one batch
 * serve the next. Queries of a batch are answered in order, one after another.
 *
 * Piscina loads this file from dist/ (dist/engine/batch-worker.js); it has no
 * top-level await, so Piscina's require()-then-import() loading works on Node 20.
 */
import { hasErrors, QuotientError } from '../errors.js';
import type { FullAnswer } from '../engine/pipeline.js';
import { decodeFiles, type BatchResult, type BatchTask, type PolicyRef } from './batch-types.js';
import { Session } from '../engine/session.js';
import { storedAnswerOf } from '../engine/answer-memo.js';
import { estimateStart } from '../simulate/start-estimate.js';
import { threadId } from 'node:worker_threads';

/** Sessions a worker keeps; the least recently used beyond this is dropped (memory). */
const MAX_SESSIONS = 4;

const sessions = new Map<string, Session>();

/** The cache key: the caller's key plus what changes the Session (backend, load time). */
function cacheKey(ref: PolicyRef): string {
  return `${ref.key}\u0000${ref.backend}\u0000${ref.load.now ?? ''}\u0000${ref.label ?? ''}`;
}

function sessionFor(ref: PolicyRef): Session | BatchResult {
  const key = cacheKey(ref);
  const cached = sessions.get(key);
  if (cached) {
    // Re-insert: Map order is recency order.
    sessions.delete(key);
    sessions.set(key, cached);
    return cached;
  }
  const backend = ref.backend;
  const { session, findings } = Session.open(decodeFiles(ref.files), {
    ...ref.load,
    backend,
    ...(ref.label !== undefined ? { label: ref.label } : {}),
    estimator: (policy, job, o) => estimateStart(policy, job, { backend, ...o }),
  });
  if (!session) {
    const errors = findings.filter((f) => f.severity === 'error');
    const first = errors[0];
    return {
      ok: false,
      code: 'batch/invalid-policy',
      message: `policy "${ref.key}" has ${errors.length} error(s)${first ? `; first: ${first.file}:${first.line}:${first.column} ${first.message}` : ''}`,
      findings: hasErrors(findings) ? errors : findings,
    };
  }
  if (!session.snapshot) return { ok: false, code: 'batch/no-cluster', message: `policy "${ref.key}" has no Cluster document: a what-if needs a snapshot` };
  sessions.set(key, session);
  while (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
  return session;
}

/** Answers one batch (the Piscina task handler). Never throws: failures are a `BatchError`. */
export default async function answerBatch(task: BatchTask): Promise<BatchResult> {
  let session: Session | BatchResult;
  try {
    session = sessionFor(task.policy);
  } catch (e) {
    return { ok: false, code: 'batch/open-failed', message: `cannot open policy "${task.policy.key}": ${(e as Error).message}` };
  }
  if (!(session instanceof Session)) return session;
  const memo = task.policy.answerMemo;
  // Per task: one pool call may answer with the memo, the next without (AnswerAllOptions).
  session.answerMemo = memo;
  if (memo && sent.call !== task.call) {
    sent.call = task.call;
    sent.ids = new Map();
  }
  const answers: FullAnswer[] = [];
  const order = memo ? new Int32Array(task.queries.length) : undefined;
  const stored: Array<[number, FullAnswer]> = [];
  const before = { ...session.answerMemoStats };
  for (let i = 0; i < task.queries.length; i++) {
    const q = task.queries[i]!; // i < length
    let a: FullAnswer;
    try {
      const asked = await session.ask(q.request, { query: q.query ?? 'submit' });
      if (!asked.answer) {
        const first = asked.findings.find((f) => f.severity === 'error');
        return {
          ok: false,
          code: 'batch/invalid-request',
          message: `the request is not valid${first ? `: ${first.path ? `${first.path}: ` : ''}${first.message}` : ''}`,
          query: i,
          findings: asked.findings,
        };
      }
      a = asked.answer;
    } catch (e) {
      const hint = e instanceof QuotientError && e.hint ? { hint: e.hint } : {};
      return { ok: false, code: 'batch/answer-failed', message: `query ${q.query ?? 'submit'}: ${(e as Error).message}`, query: i, ...hint };
    }
    const from = memo ? storedAnswerOf(a) : undefined;
    if (!from || !order) {
      answers.push(a);
      if (order) order[i] = -1;
      continue;
    }
    // A served answer crosses the thread in full once per call; after that, only its id.
    let id = sent.ids.get(from);
    if (id === undefined) {
      id = sent.next++;
      sent.ids.set(from, id);
      stored.push([id, from]);
    }
    order[i] = id;
  }
  const after = session.answerMemoStats;
  const counts = { hits: after.hits - before.hits, misses: after.misses - before.misses, skipped: after.skipped - before.skipped };
  return order ? { ok: true, answers, thread: threadId, order, stored, memo: counts } : { ok: true, answers, thread: threadId, memo: counts };
}

/**
 * The stored answers this worker has sent in the current call. Ids are never reused (a
 * call that comes back after another starts a fresh map, with new ids), so an id names
 * one stored answer for the pool's whole life.
 */
const sent: { call: string; ids: Map<FullAnswer, number>; next: number } = { call: '', ids: new Map(), next: 0 };
