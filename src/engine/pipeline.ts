/**
 * The one answer pipeline (docs/architecture.md, "One request, one answer"). Every way
 * in — a WhatIf document, a `--submit` flag, an HTTP body, a PAI request, the
 * simulator's next job, a promise's generated submission, a worker's batch — reaches
 * `answerJob` with a checked JobSpec (engine/request.ts checks the ones that come as
 * values), and gets the whole answer from here: the decision and why (whatif.ts), after
 * the snapshot's queued jobs ahead of it are served (queue-answer.ts, SEMANTICS 8), the
 * notes every answer carries (the GPU model that blocks it, GPU indices Quotient
 * assigned), the asker's view (SEMANTICS 10), the extra notes of the request's
 * translation, the snapshot it was asked against and the start estimate. Nothing above
 * this function adds to an answer; renderers only render it.
 */
import { snapshotOf, type AnswerSnapshot } from './answer-snapshot.js';
import { memoizedAnswer, requestKey, type AnswerMemoStats } from './answer-memo.js';
import type { Answer } from './answer.js';
import { noteAssignedIndices } from './assigned-indices.js';
import { canEstimate, noEndsEstimate, type StartEstimate, type StartEstimator } from './estimate.js';
import { noteModelBlock } from './model-reasons.js';
import type { Reason } from './reason-codes.js';
import { redactAnswer, type ViewedAnswer } from './visibility.js';
import { answerInQueue } from './queue-answer.js';
import type { EngineContext } from './whatif.js';
import type { JobSpec } from '../model/policy.js';
import { recordTiming } from '../policy/stages.js';

/** What an answer is asked with besides the job. */
export interface AnswerOptions {
  /** The policy's label (its folder): the answer names it (`policy`) when given. */
  label?: string | undefined;
  /** Estimate the start of a `wait` answer with this (when the snapshot's jobs give expected ends). */
  estimator?: StartEstimator | undefined;
  /** Notes the request's translation adds (a PAI request: what was approximated). */
  notes?: readonly Reason[] | undefined;
  /**
   * Reuse the answer of an equal earlier request (answer-memo.ts), counting hits in
   * `stats`; `key` is the request's memo key when the caller made one from what it was
   * given (request.ts: the job's values as sent), else the JobSpec's. Only for answers
   * without a viewer (a viewer changes the sentences, not only the victims) and without
   * translation notes.
   */
  memo?: { stats: AnswerMemoStats; key?: string | undefined } | undefined;
}

/** What the pipeline adds to the decision: where the question was asked, and the estimate. */
interface Asked {
  /** The policy asked (its label), when the asker named one. */
  policy?: string;
  /** The snapshot, when files named beside the policy's folder hold it. */
  snapshot?: AnswerSnapshot;
  /** When a `wait` answer is estimated to start, when asked and the snapshot can tell. */
  estimate?: StartEstimate;
}

/** The whole answer to one request: what `whatif --json` prints for it, and what the server sends. */
export type FullAnswer = (Answer | ViewedAnswer) & Asked;

/** The whole answer asked without a viewer: every victim in full. */
export type FullViewAnswer = Answer & Asked;

/**
 * Answers one checked job against `engine`'s snapshot, whole. Never mutates the snapshot.
 * With the memo, an equal earlier request's answer is served (with this request's names).
 */
export function answerJob(engine: EngineContext & { viewer?: undefined }, query: string, job: JobSpec, options?: AnswerOptions): Promise<FullViewAnswer>;
export function answerJob(engine: EngineContext, query: string, job: JobSpec, options?: AnswerOptions): Promise<FullAnswer>;
export function answerJob(engine: EngineContext, query: string, job: JobSpec, options: AnswerOptions = {}): Promise<FullAnswer> {
  const compute = async (): Promise<FullAnswer> => {
    const start = performance.now();
    const answer = await wholeAnswer(engine, query, job, options);
    recordTiming(undefined, { stage: 'answer', ms: performance.now() - start, findings: 0 });
    return answer;
  };
  const memo = options.memo;
  if (!memo || engine.viewer || options.notes?.length) return compute();
  return memoizedAnswer(engine.snapshot, memo.stats, memo.key ?? jobKey(engine, job, options), query, job.name, compute);
}

/**
 * The memo key of a JobSpec: its fields but the name (answer-memo.ts), after what else
 * the answer depends on: the snapshot's clock (lost work is counted up to it) and
 * whether a start is estimated.
 */
export function jobKey(engine: EngineContext, job: JobSpec, options: AnswerOptions): string | undefined {
  return requestKey(job, `job;${engine.snapshot.cluster.at};${options.estimator ? 'e' : ''};`);
}

/** The answer, computed: the decision and why, its notes, the asker's view, and what the request asked for besides. */
async function wholeAnswer(engine: EngineContext, query: string, job: JobSpec, options: AnswerOptions): Promise<FullAnswer> {
  const snap = engine.snapshot;
  // With the snapshot's queue served first (queue-answer.ts), the answer is on the state the jobs ahead leave: `on`.
  const { answer: decided, snapshot: on } = await answerInQueue(engine, query, job);
  const answer = noteAssignedIndices(noteModelBlock(decided, on, job), on);
  const viewed: Answer | ViewedAnswer = engine.viewer ? redactAnswer(answer, on, engine.viewer) : answer;
  // Whether any job gives an expected end, read once per snapshot state (a scan of every job: per answer it was a third of a distinct answer's CPU through the CLI).
  const estimator = options.estimator;
  const waits = estimator !== undefined && viewed.decision === 'wait';
  // Without any end in the snapshot (an import from Kubernetes) the estimate is none, and says why.
  const estimable = waits && snap.memo('can-estimate', () => canEstimate(snap.policy));
  const estimate = estimable ? await estimator(snap.policy, job, engine.viewer ? { viewer: engine.viewer } : {}) : waits ? noEndsEstimate(snap.policy, job) : undefined;
  const snapshot = options.label === undefined ? undefined : snapshotOf(snap.policy);
  if (options.label === undefined && !options.notes?.length && !estimate) return viewed;
  // Field order is the report's: policy and snapshot first, the answer, the estimate last.
  return {
    ...(options.label === undefined ? {} : { policy: options.label }),
    ...(snapshot ? { snapshot } : {}),
    ...viewed,
    ...(options.notes?.length ? { notes: [...viewed.notes, ...options.notes] } : {}),
    ...(estimate ? { estimate } : {}),
  };
}
