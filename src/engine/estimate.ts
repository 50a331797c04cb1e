/**
 * The start estimate of a `wait` answer (docs/cli.md "Start estimates"): its shape, and
 * the estimator the answer pipeline is given. Estimating means running the simulator
 * forward from the snapshot (simulate/start-estimate.ts); the simulator decides with
 * this engine, so the engine cannot import it: the pipeline is handed the estimator
 * (Session.open's `estimator`, which the CLI and the server pass) and calls it only when
 * a request asks for an estimate and the answer is `wait`.
 */
import type { JobSpec, Policy, QueueStrategy, RunningJob, Standing } from '../model/policy.js';
import { queuePlace } from './queue-serve.js';
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
  /**
   * Running jobs that give no expected end and were assumed to end by their quota's
   * `runtimeDefault` (the estimate rests on these assumed ends; empty when none was).
   */
  assumedEnds: Array<{ job: string; quota: string; end: string; runtimeDefault: string }>;
  /** What the estimate assumes, in words. */
  assumptions: string[];
  /** Why there is no estimate; null when there is one. */
  reason: string | null;
}

/** Estimates when `job`, answered `wait`, starts; `viewer` names hidden jobs by their workspace only. */
export type StartEstimator = (policy: Policy, job: JobSpec, options: { viewer?: Viewer }) => Promise<StartEstimate>;

/** The runtimeDefault that applies to a job of `quota`: its own, else the nearest ancestor's; undefined when none. */
export function runtimeDefaultOf(policy: Policy, quota: string): { quota: string; ms: number } | undefined {
  const byName = new Map(policy.quotas.map((q) => [q.name, q]));
  for (let q = byName.get(quota), hops = 0; q && hops <= policy.quotas.length; q = q.parent === null ? undefined : byName.get(q.parent), hops++)
    if (q.runtimeDefault) return { quota: q.name, ms: q.runtimeDefault.ms };
  return undefined;
}

/**
 * The end a running job is taken to have: its own expected end; else, when its quota (or
 * an ancestor) sets `runtimeDefault`, `startedAt + runtimeDefault`, or the snapshot time
 * when it has already run longer (assumed: it is about to end); else none (it runs on).
 */
export function endOf(policy: Policy, job: RunningJob): { end: number; assumed?: { quota: string; ms: number } } | undefined {
  if (job.expectedEnd !== undefined) return { end: job.expectedEnd };
  const d = runtimeDefaultOf(policy, job.quota);
  if (!d) return undefined;
  return { end: Math.max(job.startedAt + d.ms, policy.cluster?.at ?? 0), assumed: d };
}

/** True when some running job of the policy's snapshot has an end, given or assumed by a runtimeDefault: only then is a start estimated. */
export function canEstimate(policy: Policy): boolean {
  return (policy.cluster?.jobs ?? []).some((j) => endOf(policy, j) !== undefined);
}

/**
 * The estimate of a `wait` answer when no running job has an end (canEstimate is false):
 * none, and why — a snapshot imported from Kubernetes gives no expected ends — with what
 * would give one (docs/cli.md "Start estimates").
 */
export function noEndsEstimate(policy: Policy, job: JobSpec): StartEstimate {
  const place = queuePlace(policy, job);
  const strategy = place?.strategy ?? policy.quotas.find((q) => q.name === job.quota)?.queueStrategy ?? 'fifo';
  const jobs = policy.cluster?.jobs.length ?? 0;
  return {
    start: null,
    inHours: null,
    queuePosition: place?.position ?? 1,
    queueStrategy: strategy,
    standing: null,
    victims: [],
    withoutExpectedEnd: [],
    assumedEnds: [],
    assumptions: [],
    reason: `no running job of the snapshot says when it ends (none of the ${jobs} gives expectedEnd or a duration; a snapshot imported from Kubernetes never does), so nothing is known to free room: set runtimeDefault on the quotas (docs/policy-format.md) to estimate from assumed runtimes`,
  };
}
