/**
 * The answer memo: a what-if answer is a pure function of the snapshot's state and of
 * the request, so a request equal to an earlier one in everything the answer reads gets
 * the earlier answer (as kube-scheduler's equivalence cache reused predicate results).
 *
 * What the key holds, and why that is all the answer can depend on:
 * - every own field of the job except `name` and `src`, with its value (nested objects
 *   and arrays too), in the job's own field order: admission reads workspace, quota,
 *   module, priority, submitter, maxRuntime and the pod's resources; placement reads
 *   pods, resources and gpuModels; idleResources, checkpoint and faultTolerance reach
 *   the decision or the victims' rules. A field added to JobSpec later is in the key
 *   without a change here. A job that is not plain data (a prototype other than
 *   Object's, a function or symbol value) is never memoized: its fields may not all
 *   show as own values;
 * - the snapshot's clock (`cluster.at`): victims' lost work is counted up to it, and a
 *   live snapshot may move it without changing its jobs.
 *
 * Left out, and put back into the reused answer: the job's `name` (the answer's `job`
 * field) and the query's name (`query`). No sentence of an answer names the submitted
 * job or its query — sentences say "the job" — and no rule, admission setting or cap
 * reads the name (admission's facts: rules/evaluate-admission.ts). The job's `src` (where
 * the WhatIf was written) is read by no answer. test/property/answer-memo.test.ts holds
 * this: answers to random requests and their renamed twins (other name, query and src)
 * equal a session's without the memo, field for field.
 *
 * Everything else an answer reads is the snapshot's state: the memo lives in
 * `Snapshot.memo`, which a live snapshot drops on every change. The memo stores a deep,
 * frozen copy of the computed answer (the caller who computed it keeps theirs); a later
 * equal request gets a fresh top-level object, so setting its fields never reaches the
 * memo, and its nested arrays and objects refuse writes. A failed answer is never
 * shared: the next equal request computes its own.
 */
import { QuotientError } from '../errors.js';
import type { Snapshot } from './snapshot.js';

/** The environment variable that turns the memo off (`0`) or on (`1`, the default). */
export const ANSWER_MEMO_ENV = 'QUOTIENT_ANSWER_MEMO';

/**
 * Answers a snapshot state keeps at most. Beyond it the oldest is dropped: a sweep of
 * all-distinct requests keeps memory bounded (an answer is ~1-5 KB).
 */
export const ANSWER_MEMO_MAX = 4096;

/** How often the memo answered (hits) and how often it computed (misses); `skipped`: requests it could not key. */
export interface AnswerMemoStats {
  hits: number;
  misses: number;
  skipped: number;
}

/** Whether the memo is on when the caller does not say: `QUOTIENT_ANSWER_MEMO` (`0` off, `1` or unset on). */
export function answerMemoDefault(env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env[ANSWER_MEMO_ENV];
  if (raw === undefined || raw === '' || raw === '1') return true;
  if (raw === '0') return false;
  throw new QuotientError(
    'engine/bad-answer-memo',
    `${ANSWER_MEMO_ENV} must be 0 (off) or 1 (on), got "${raw}"`,
    `unset it to keep the answer memo on, or set ${ANSWER_MEMO_ENV}=0 to answer every request in full`,
  );
}

/**
 * The memo key of `job`: every own field but `name` and `src`, values included; undefined
 * when the job is not plain data (then it is answered in full, never memoized). `prefix`
 * starts the key (the snapshot's clock).
 *
 * The text needs no escaping: every string (field names too) is written with its length
 * before it (`s5:hello`), every number ends with `;`, and every other value is one tag
 * character or bracketed, so no two different jobs have the same key.
 */
export function requestKey(job: object, prefix = '', omit: ReadonlySet<string> = NAME_AND_SRC): string | undefined {
  if (!isPlain(job)) return undefined;
  let out = prefix;
  for (const k of Object.getOwnPropertyNames(job)) {
    if (omit.has(k)) continue;
    const v = encode((job as unknown as Record<string, unknown>)[k]);
    if (v === undefined) return undefined;
    out += `${k.length}:${k}${v}`;
  }
  return out;
}

/** What a JobSpec's key leaves out: its name (put back into each served answer) and where it was written (read by no answer). */
const NAME_AND_SRC: ReadonlySet<string> = new Set(['name', 'src']);

/** A value as key text, type-tagged so that 1, "1" and true differ; undefined for what is not data. */
function encode(v: unknown): string | undefined {
  switch (typeof v) {
    case 'string':
      return `s${v.length}:${v}`;
    case 'number':
      return Object.is(v, -0) ? 'n-0;' : `n${v};`;
    case 'boolean':
      return v ? 't' : 'f';
    case 'undefined':
      return 'u';
    case 'object': {
      if (v === null) return 'z';
      if (Array.isArray(v)) {
        let s = '[';
        for (let i = 0; i < v.length; i++) {
          const e = i in v ? encode(v[i]) : 'h';
          if (e === undefined) return undefined;
          s += e;
        }
        return `${s}]`;
      }
      if (!isPlain(v)) return undefined;
      let s = '{';
      for (const k of Object.getOwnPropertyNames(v)) {
        const e = encode((v as Record<string, unknown>)[k]);
        if (e === undefined) return undefined;
        s += `${k.length}:${k}${e}`;
      }
      return `${s}}`;
    }
    default:
      return undefined; // function, symbol, bigint: not a request's data
  }
}

function isPlain(v: object): boolean {
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
}

/** What the memo keeps: an answer, whose request's names it sets on each one it serves. */
interface Named {
  query: string;
  job: string;
}

/** A memo entry: the stored answer once computed (`done`), and the computation until then. */
interface Entry<A extends Named> {
  pending: Promise<A>;
  done?: A;
}

/**
 * The answer memoized under `key` (requestKey's, with the snapshot's clock and what else
 * the caller's answer depends on in its prefix), or `compute()`'s, stored frozen for the
 * next equal request. The returned answer carries this call's `query` and job `name`.
 * Without a key (a request that is not plain data) the answer is computed, never stored.
 */
export function memoizedAnswer<A extends Named>(snap: Snapshot, stats: AnswerMemoStats, key: string | undefined, query: string, name: string, compute: () => Promise<A>): Promise<A> {
  if (key === undefined) {
    stats.skipped++;
    return compute();
  }
  const memo = memoOf<A>(snap);
  const known = memo.get(key);
  if (known) {
    stats.hits++;
    if (known.done) return Promise.resolve(served(known.done, query, name));
    // A failed computation is not shared: this request computes its own.
    return known.pending.then((a) => served(a, query, name), compute);
  }
  stats.misses++;
  const made = compute();
  // The memo keeps its own frozen copy: this caller's answer stays theirs to change, and
  // freezing never reaches an object the answer shares with the policy (victimOrder).
  const entry: Entry<A> = {
    pending: made.then((a) => {
      const stored = frozenCopy(a);
      entry.done = stored;
      return stored;
    }),
  };
  entry.pending.catch(() => {
    if (memo.get(key) === entry) memo.delete(key);
  });
  if (memo.size >= ANSWER_MEMO_MAX) memo.delete(memo.keys().next().value!);
  memo.set(key, entry);
  return made;
}

/**
 * The memoized answer under `key`, served with this request's names, when the memo holds
 * one (stored or being computed); undefined otherwise. For a caller that can skip work
 * before it has what `memoizedAnswer` needs (engine/request.ts checks a request's job
 * only where the memo misses).
 */
export function servedFromMemo<A extends Named>(snap: Snapshot, stats: AnswerMemoStats, key: string, query: string, name: string): Promise<A> | undefined {
  const known = memoOf<A>(snap).get(key);
  if (!known) return undefined;
  stats.hits++;
  return known.done ? Promise.resolve(served(known.done, query, name)) : known.pending.then((a) => served(a, query, name));
}

function memoOf<A extends Named>(snap: Snapshot): Map<string, Entry<A>> {
  return snap.memo('answer-memo', () => new Map<string, Entry<A>>());
}

/**
 * Freezes every object and array an answer holds (not the answer itself). Answers the
 * memo served share these parts; after a structured clone (a worker's batch) they are
 * still shared within the batch, and no longer frozen: BatchPool freezes them again.
 */
export function freezeParts<A extends object>(answer: A): A {
  for (const k of Object.keys(answer)) deepFreeze((answer as unknown as Record<string, unknown>)[k]);
  return answer;
}

function deepFreeze(v: unknown): void {
  if (typeof v !== 'object' || v === null || Object.isFrozen(v)) return;
  Object.freeze(v);
  for (const k of Object.keys(v)) deepFreeze((v as Record<string, unknown>)[k]);
}

/** Served answers → the stored answer they copy (batch-worker.ts sends a stored answer once per call). */
const servedFrom = new WeakMap<Named, Named>();

/**
 * The stored (frozen) answer `answer` was served from, when the memo served it: equal to
 * it but for `query` and `job`. Undefined for a computed answer.
 */
export function storedAnswerOf<A extends Named>(answer: A): A | undefined {
  return servedFrom.get(answer) as A | undefined;
}

/** A fresh top-level copy of a stored answer with this request's query and job name, in the answer's own field order. */
export function renamed<A extends Named>(a: A, query: string, name: string): A {
  const out: A = Object.assign({}, a);
  out.query = query;
  out.job = name;
  return out;
}

/** `renamed`, remembering which stored answer the copy came from. */
function served<A extends Named>(a: A, query: string, name: string): A {
  const out = renamed(a, query, name);
  servedFrom.set(out, a);
  return out;
}

/** A deep copy of an answer's plain data (objects, arrays, primitives), every object and array in it frozen. */
function frozenCopy<T>(v: T): T {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) return Object.freeze(v.map(frozenCopy)) as T;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(v)) out[k] = frozenCopy((v as Record<string, unknown>)[k]);
  return Object.freeze(out) as T;
}
