/**
 * The start estimate of a `wait` answer (docs/cli.md "Start estimates"): its shape, and
 * the estimator the answer pipeline is given. Estimating means running the simulator
 * forward from the snapshot (simulate/start-estimate.ts); the simulator decides with
 * this engine, so the engine cannot import it: the pipeline is handed the estimator
 * (Session.open's `estimator`, which the CLI and the server pass) and calls it only when
 * a request asks for an estimate and the answer is `wait`.
 */
import type { JobSpec, Policy, QueueStrategy, Standing } from '../model/policy.js';
import type { Viewer } from './visibility.js';

/** When a waiting job is estimated to start, and on what assumptions (a stable part of a what-if answer). */
export interface StartEstimate {
  /** The estimated start (ISO 8601), or null when there is no estimate (see `reason`). */
  start: string | null;
  /** Hours from the snapshot time to the estimated start (0.0001 h), or null. */
  inHours: number | null;
  /** The job's place in its quota's queue at the snapshot time: 1 = the next job the strategy tries. */
  queuePosition: number;
  /** The queue strategy of the job's quota (SEMANTICS 8). */
  queueStrategy: QueueStrategy;
  /** How the job starts then (null without an estimate). */
  standing: Standing | null;
  /** The running jobs it preempts when it starts (as the asker may see them). */
  victims: string[];
  /** Running jobs that give no expected end, taken to run on (as the asker may see them). */
  withoutExpectedEnd: string[];
  /** What the estimate assumes, in words. */
  assumptions: string[];
  /** Why there is no estimate; null when there is one. */
  reason: string | null;
}

/** Estimates when `job`, answered `wait`, starts; `viewer` names hidden jobs by their workspace only. */
export type StartEstimator = (policy: Policy, job: JobSpec, options: { viewer?: Viewer }) => Promise<StartEstimate>;

/** True when some running job of the policy's snapshot gives an expected end: only then is a start estimated. */
export function canEstimate(policy: Policy): boolean {
  return (policy.cluster?.jobs ?? []).some((j) => j.expectedEnd !== undefined);
}
