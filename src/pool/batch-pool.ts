/**
 * Many what-if answers at once, on worker threads (Piscina). A Piscina task round trip
 * costs ~35-100 µs here, more than a warm answer on a 10,000-node snapshot, so queries
 * travel in batches (`batchSize` per task) and each worker keeps the policy's Session
 * (its snapshot loaded once into the worker's own wasm kernel) across tasks. For one
 * interactive query the calling thread's `Session.ask` is faster: use the pool for
 * sweeps of hundreds or thousands of queries.
 */
import { availableParallelism } from 'node:os';
import { createRequire } from 'node:module';
import type { Piscina as PiscinaClass } from 'piscina';
import { FindingsError, QuotientError } from '../errors.js';
import { resolveWorkerFile } from '../engine/worker-file.js';
import { answerMemoDefault, freezeParts, renamed, type AnswerMemoStats } from '../engine/answer-memo.js';
import type { LoadOptions } from '../policy/load-policy.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import type { FullAnswer } from '../engine/pipeline.js';
import type { Finding } from '../errors.js';
import { encodeFiles, type BatchError, type BatchQuery, type BatchResult, type BatchTask, type PolicyRef } from './batch-types.js';

export type { BatchQuery } from './batch-types.js';

/** Per-call options of `answerAll`. */
export interface AnswerAllOptions extends LoadOptions {
  /** Queries per task for this call (default the pool's `batchSize`). */
  batchSize?: number;
  /** Whether the workers reuse equal requests' answers in this call (default the pool's `answerMemo`). */
  answerMemo?: boolean;
  /** The label every answer names as its `policy` (as Session.open's); none by default. */
  label?: string;
}

/** A request of the input that is not valid: which one (its index in the input) and its findings, each at its field. */
export class InvalidRequestError extends QuotientError {
  constructor(
    readonly index: number,
    message: string,
    readonly findings: Finding[],
  ) {
    super('batch/invalid-request', message, 'fix the fields the findings name (docs/cli.md "Requests" lists them)');
  }
}

/** Options of `BatchPool`. */
export interface BatchPoolOptions {
  /**
   * Worker threads (default `os.availableParallelism()`). Each holds its own copy of every
   * policy it has answered for, so memory grows with workers × snapshot size.
   */
  workers?: number;
  /**
   * Queries per Piscina task (default 100). Larger batches amortise the round trip;
   * smaller ones spread a short sweep over more workers.
   */
  batchSize?: number;
  /** Kernel implementation in the workers (default 'wasm'; 'reference' for comparisons). */
  backend?: 'wasm' | 'reference';
  /**
   * Whether each worker reuses the answers of equal requests (engine/answer-memo.ts;
   * default on, unless `QUOTIENT_ANSWER_MEMO=0`). Each worker has its own memo.
   */
  answerMemo?: boolean;
}

/**
 * A pool of worker threads answering what-if queries in batches. Answers equal the
 * calling thread's `Session.ask` answers for the same files and requests, in input order.
 */
export class BatchPool {
  /** Worker threads. */
  readonly workers: number;
  /** Queries per task. */
  readonly batchSize: number;
  readonly backend: 'wasm' | 'reference';
  /** Whether the workers reuse equal requests' answers (BatchPoolOptions.answerMemo). */
  readonly answerMemo: boolean;
  /** Over every `answerAll` so far: answers the workers' memos gave (hits) and answers computed (misses, skipped). */
  readonly answerMemoStats: AnswerMemoStats = { hits: 0, misses: 0, skipped: 0 };
  private readonly piscina: PiscinaClass<BatchTask, BatchResult>;
  private closed = false;
  /** `answerAll` calls so far: names each call's tasks (BatchTask.call). */
  private calls = 0;

  constructor(options: BatchPoolOptions = {}) {
    this.workers = positiveInteger('workers', options.workers ?? availableParallelism());
    this.batchSize = positiveInteger('batchSize', options.batchSize ?? 100);
    const backend = options.backend ?? 'wasm';
    if (backend !== 'wasm' && backend !== 'reference')
      throw new QuotientError('batch/bad-option', `backend must be 'wasm' or 'reference', got ${JSON.stringify(backend)}`, "pass backend: 'wasm' or 'reference'");
    this.backend = backend;
    this.answerMemo = options.answerMemo === undefined ? answerMemoDefault() : bool('answerMemo', options.answerMemo);
    // min = max: workers live as long as the pool, so their cached Sessions do too.
    this.piscina = startPiscina({
      filename: resolveWorkerFile('pool/batch-worker'),
      minThreads: this.workers,
      maxThreads: this.workers,
      idleTimeout: Number.MAX_SAFE_INTEGER,
      execArgv: workerExecArgv(process.execArgv),
    });
  }

  /**
   * Answers `queries` against the policy in `files`, `batchSize` per task, and returns
   * the answers in input order. `policyKey` names the files' content (and `now`): a
   * worker that has opened a key answers from that Session without reading `files`
   * again, so reuse a key only for the same files (a content hash is a safe key).
   * `options.now` is the load time (as `Session.open`'s); `options.batchSize` overrides
   * the pool's for this call. Throws `FindingsError` when the policy has errors,
   * `QuotientError` otherwise.
   */
  async answerAll(policyKey: string, files: InputFile[], queries: BatchQuery[], options: AnswerAllOptions = {}): Promise<FullAnswer[]> {
    if (this.closed) throw new QuotientError('batch/closed', 'the BatchPool is closed', 'make a new BatchPool');
    const batchSize = options.batchSize === undefined ? this.batchSize : positiveInteger('batchSize', options.batchSize);
    if (queries.length === 0) return [];
    const memo = options.answerMemo === undefined ? this.answerMemo : bool('answerMemo', options.answerMemo);
    const policy = this.policyRef(policyKey, files, options, memo);
    for (let i = 0; i < queries.length; i++) {
      const q = queries[i] as unknown;
      if (typeof q !== 'object' || q === null || !('request' in q))
        throw new QuotientError(
          'batch/bad-query',
          `query ${i} of the input is not { request }: got ${q === null ? 'null' : typeof q}`,
          'give each query as { request: { submit: JOB } } or { request: { query: NAME } }',
        );
    }
    const call = String(++this.calls);
    const answers = new Array<FullAnswer>(queries.length);
    // The stored answers the workers sent in this call, by thread and id. Each batch is
    // taken in as it arrives, while the workers answer the next (the calling thread's
    // time per query is what bounds the pool: B5): a worker answers its batches one
    // after another and its results arrive in that order, so every id a batch names was
    // sent in it or in an earlier batch of the same worker, already taken in.
    const stored = new Map<number, Map<number, FullAnswer>>();
    // The first failure in input order is the one reported, whatever order batches end in.
    let failure: { at: number; error: Error } | undefined;
    const fail = (start: number, error: Error): void => {
      if (!failure || start < failure.at) failure = { at: start, error };
    };
    const take = (r: BatchResult, start: number): void => {
      if (!r.ok) return fail(start, batchError(r, start));
      this.answerMemoStats.hits += r.memo.hits;
      this.answerMemoStats.misses += r.memo.misses;
      this.answerMemoStats.skipped += r.memo.skipped;
      if (!r.order) {
        for (let i = 0; i < r.answers.length; i++) answers[start + i] = r.answers[i]!;
        return;
      }
      let ids = stored.get(r.thread);
      if (!ids) stored.set(r.thread, (ids = new Map<number, FullAnswer>()));
      // Frozen, as Session.answer's: every answer served from it shares its parts.
      for (const [id, a] of r.stored ?? []) ids.set(id, freezeParts(a));
      let computed = 0;
      for (let i = 0; i < r.order.length; i++) {
        const id = r.order[i]!;
        if (id < 0) {
          answers[start + i] = r.answers[computed++]!;
          continue;
        }
        const from = ids.get(id);
        if (!from)
          return fail(
            start,
            new QuotientError('batch/answer-failed', `worker ${r.thread} named a stored answer (${id}) it did not send in this call`, 'this is a bug in Quotient: run again with answerMemo: false'),
          );
        const q = queries[start + i]!; // one order entry per query of the batch
        // Only a submitted job's answer is served from the memo (request.ts requestMemoKey): its name is the job's.
        answers[start + i] = renamed(from, q.query ?? 'submit', (q.request.submit as { name: string }).name);
      }
    };
    // A task that cannot be sent (a job holding a function, a symbol…) is named by its first such query.
    const unsent = (e: unknown, start: number, batch: readonly BatchQuery[]): void => {
      if (!(e instanceof Error) || e.name !== 'DataCloneError') throw e;
      const i = batch.findIndex((q) => !cloneable(q));
      fail(
        start,
        new QuotientError(
          'batch/bad-query',
          `query ${start + Math.max(0, i)} of the input cannot be sent to a worker: ${e.message}`,
          'a request holds plain data only: strings, numbers, booleans, null, arrays and plain objects',
        ),
      );
    };
    const tasks: Promise<void>[] = [];
    for (let start = 0; start < queries.length; start += batchSize) {
      const batch = queries.slice(start, start + batchSize);
      tasks.push(
        this.piscina.run({ policy, queries: batch, call }).then(
          (r) => take(r, start),
          (e: unknown) => unsent(e, start, batch),
        ),
      );
    }
    await Promise.all(tasks);
    if (failure) throw failure.error;
    return answers;
  }

  /**
   * Opens the policy on the workers before timing or serving: one empty task per worker,
   * sent at once. Opening blocks a worker, so Piscina hands each task to a different
   * idle worker; best effort (a worker that missed it opens on its first real batch).
   */
  async warm(policyKey: string, files: InputFile[], load: LoadOptions = {}): Promise<void> {
    if (this.closed) throw new QuotientError('batch/closed', 'the BatchPool is closed', 'make a new BatchPool');
    const policy = this.policyRef(policyKey, files, load);
    const results = await Promise.all(Array.from({ length: this.workers }, () => this.piscina.run({ policy, queries: [], call: 'warm' })));
    const failed = results.find((r): r is BatchError => !r.ok);
    if (failed) throw batchError(failed);
  }

  /** Stops the workers (after running tasks finish). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.piscina.close();
  }

  private policyRef(key: string, files: InputFile[], load: LoadOptions & { label?: string }, answerMemo = this.answerMemo): PolicyRef {
    if (typeof key !== 'string' || key === '') throw new QuotientError('batch/bad-option', 'policyKey must be a non-empty string', 'name the policy bundle, e.g. by a hash of its files');
    return { key, files: encodeFiles(files), backend: this.backend, load: { now: load.now }, answerMemo, ...(load.label !== undefined ? { label: load.label } : {}) };
  }
}

/** The exception a worker's failure is for the caller; `start` is the batch's first query in the input. */
function batchError(r: BatchError, start = 0): Error {
  if (r.code === 'batch/invalid-policy' && r.findings) return new FindingsError(r.findings);
  const at = r.query === undefined ? undefined : start + r.query;
  if (r.code === 'batch/invalid-request' && r.findings) return new InvalidRequestError(at ?? start, `query ${at ?? start} of the input: ${r.message}`, r.findings);
  const where = at === undefined ? '' : ` (query ${at} of the input)`;
  return new QuotientError(r.code, `${r.message}${where}`, r.hint ?? (r.code === 'batch/answer-failed' ? 'this is a bug in Quotient, not in the job: please report it with the query' : ''));
}

/** Whether `q` survives a structured clone (only asked once a batch failed to be sent). */
function cloneable(q: BatchQuery): boolean {
  try {
    structuredClone(q);
    return true;
  } catch {
    return false;
  }
}

function bool(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean')
    throw new QuotientError('batch/bad-option', `${name} must be true or false, got ${JSON.stringify(value)}`, `pass ${name}: true or false, or leave it out for the default`);
  return value;
}

function positiveInteger(name: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new QuotientError('batch/bad-option', `${name} must be a positive integer, got ${JSON.stringify(value)}`, `pass ${name}: 1 or more, or leave it out for the default`);
  }
  return value;
}

/**
 * The Node flags the workers start with: undefined (Node's default: the calling thread's
 * own, which also lets V8 and process-wide flags such as `--max-old-space-size` through;
 * given explicitly, Node refuses those in a worker) unless the process was started with a
 * TypeScript loader (tsx), which is then left out. The worker file is compiled JavaScript
 * (worker-file.ts); under tsx's hooks Piscina would load it as CommonJS through tsx, where
 * every imported binding is a getter, and answers ran ~1.6-1.8× slower than on the
 * calling thread (B5).
 */
export function workerExecArgv(execArgv: readonly string[]): string[] | undefined {
  const isTsx = (value: string | undefined): boolean => value !== undefined && /(^|[/\\])tsx([/\\]|$)/.test(value);
  const out: string[] = [];
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (flag === '--import' || flag === '--loader' || flag === '--experimental-loader' || flag === '--require' || flag === '-r') {
      const value = inline ?? execArgv[i + 1];
      if (isTsx(value)) {
        if (inline === undefined) i++;
        continue;
      }
    }
    out.push(arg);
  }
  return out.length === execArgv.length ? undefined : out;
}

/**
 * Starts Piscina. With an explicit `execArgv` (the tsx case above), Node refuses V8 and
 * process-wide flags in a worker (ERR_WORKER_INVALID_EXEC_ARGV, naming them): those
 * apply to the whole process, workers included, so they are left out and Piscina is
 * started again. Any other failure is Piscina's own.
 */
function startPiscina(options: ConstructorParameters<typeof PiscinaClass>[0] & { execArgv?: string[] }): PiscinaClass<BatchTask, BatchResult> {
  // Loaded on the first pool, not with this module: `whatif` without --workers never pays for it.
  const { Piscina } = createRequire(import.meta.url)('piscina') as { Piscina: typeof PiscinaClass };
  try {
    return new Piscina<BatchTask, BatchResult>(options);
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    const refused = /invalid execArgv flags: (.*)$/.exec((e as Error).message)?.[1]?.split(', ');
    if (code !== 'ERR_WORKER_INVALID_EXEC_ARGV' || !refused || !options.execArgv) throw e;
    return new Piscina<BatchTask, BatchResult>({ ...options, execArgv: options.execArgv.filter((a) => !refused.includes(a)) });
  }
}
