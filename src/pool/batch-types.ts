/**
 * The messages between `BatchPool` (calling thread) and `batch-worker` (Piscina
 * worker threads). Plain, structured-clonable data only: a task names the policy by key,
 * carries the policy's files in shared memory (posting a SharedArrayBuffer shares it,
 * it does not copy it, so every task can carry the policy for free and a worker decodes
 * it only the first time it sees the key), and a batch of queries. A result is the
 * batch's answers in query order, or a typed error the pool turns into an exception.
 */
import type { Finding } from '../errors.js';
import type { LoadOptions } from '../policy/load-policy.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import type { AnswerMemoStats } from '../engine/answer-memo.js';
import type { FullAnswer } from '../engine/pipeline.js';
import type { AnswerRequest } from '../engine/request.js';

/**
 * One question of a batch: a request as the answer pipeline takes it (engine/request.ts:
 * plain values, checked in the worker), and the name a submitted job's answer carries
 * as its `query` (default `submit`; a WhatIf's answer carries the WhatIf's name).
 */
export interface BatchQuery {
  request: AnswerRequest;
  query?: string;
}

/**
 * A policy bundle as a task carries it. `files` is `InputFile[]` as UTF-8 JSON in a
 * SharedArrayBuffer: the pool encodes it once per `answerAll`, and posting it with each
 * task costs a handle, not a copy of megabytes of YAML (B3's snapshot is ~10 MB).
 */
export interface PolicyRef {
  /** Names the bundle's content and load options; a worker opens one Session per key. */
  key: string;
  /** UTF-8 bytes of `JSON.stringify(files)`; `encodeFiles` / `decodeFiles`. */
  files: SharedArrayBuffer;
  /** Kernel implementation the worker's Session uses. */
  backend: 'wasm' | 'reference';
  /** Load options (the snapshot time when the Cluster gives no `at`). */
  load: LoadOptions;
  /** Whether the worker's Session reuses equal requests' answers for this task (Session.answerMemo). */
  answerMemo: boolean;
  /** The label every answer names as its `policy` (SessionOptions.label); none when absent. */
  label?: string;
}

/**
 * One Piscina task: answer every query against the keyed policy, in order. The queries
 * travel as the caller gave them, with no copy on the calling thread (its time per query
 * is what bounds a pool of 2 workers: B5).
 */
export interface BatchTask {
  policy: PolicyRef;
  queries: BatchQuery[];
  /**
   * Names the `answerAll` call the task belongs to (unique per pool): a worker sends each
   * memo-served answer in full once per call and per worker, then only its id.
   */
  call: string;
}

/** Why a batch failed, as a code the pool can branch on. */
export type BatchErrorCode =
  /** The files do not load into a Session (errors in the policy). */
  | 'batch/invalid-policy'
  /** Opening threw: not the policy's fault (e.g. build/kernel.wasm missing). */
  | 'batch/open-failed'
  /** The files load but hold no Cluster snapshot: nothing to answer against. */
  | 'batch/no-cluster'
  /** A request is not valid (a job naming a quota the policy does not have…): its findings say why. */
  | 'batch/invalid-request'
  /** Answering one query threw: a bug, not the request's fault. */
  | 'batch/answer-failed'
  /** A query is not `{ request }` with plain data: it cannot be sent to a worker (the calling thread's own error). */
  | 'batch/bad-query';

/** A failed batch; `query` is the index in the batch of the query that failed, when one did. */
export interface BatchError {
  ok: false;
  code: BatchErrorCode;
  message: string;
  query?: number;
  findings?: Finding[];
  /** The hint of the error the answer failed with, when it gave one. */
  hint?: string;
}

/**
 * A batch's answers, one per query, in query order. With the memo, an answer the memo
 * served travels as an id in `order` (its stored answer, sent in `stored` in full by this
 * worker once per call, in this batch or an earlier one of the call) and a computed one
 * in full in `answers`: `order` says, per query, which (-1: next of `answers`; else an
 * id). Ids are unique per worker thread (`thread`) for its lifetime.
 */
export interface BatchSuccess {
  ok: true;
  answers: FullAnswer[];
  thread: number;
  /**
   * Per query: -1 (the next of `answers`) or the id of the stored answer it copies, with
   * the query's own query and job names (the pool has them: they do not travel back).
   */
  order?: Int32Array;
  /** Stored answers sent for the first time in this call by this worker: [id, answer]. */
  stored?: Array<[number, FullAnswer]>;
  /** How this batch's answers were made: from the worker's answer memo (hits) or in full (misses, skipped). */
  memo: AnswerMemoStats;
}

export type BatchResult = BatchSuccess | BatchError;

/** Encodes files into shared memory for `PolicyRef.files`. */
export function encodeFiles(files: InputFile[]): SharedArrayBuffer {
  const bytes = Buffer.from(JSON.stringify(files.map((f) => ({ path: f.path, text: f.text }))), 'utf8');
  const shared = new SharedArrayBuffer(bytes.byteLength);
  new Uint8Array(shared).set(bytes);
  return shared;
}

/** Decodes `encodeFiles`' output (copies out of shared memory once). */
export function decodeFiles(shared: SharedArrayBuffer): InputFile[] {
  return JSON.parse(Buffer.from(shared).toString('utf8')) as InputFile[];
}
