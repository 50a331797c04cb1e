/**
 * A Cluster snapshot as the start of a run: its running jobs and its queue in run time,
 * where the snapshot's `at` is time 0. A job's `startedAt`, `checkpoint.last` and a queued
 * job's `submittedAt` become times at or before 0 and its `expectedEnd` a time at or
 * after 0 (the policy layer refuses an end before `at`, policy/ended-before-snapshot, and
 * a submission after it, policy/submitted-after-snapshot), so the simulator's clock
 * never runs back.
 */
import type { Cluster, JobSpec, RunningJob } from '../model/policy.js';
import type { SimJob } from './workload.js';

/** The snapshot's running jobs with their times moved to run time (ms from the snapshot's `at`). */
export function runningAtStart(cluster: Cluster): RunningJob[] {
  const at = cluster.at;
  return cluster.jobs.map((j) => {
    // Object.assign keeps one hidden class per job shape (lead's note on per-job objects).
    const job: RunningJob = Object.assign({}, j, { startedAt: j.startedAt - at, placement: j.placement.map((p) => Object.assign({}, p, { gpus: [...p.gpus] })) });
    if (j.expectedEnd !== undefined) job.expectedEnd = j.expectedEnd - at;
    if (j.checkpoint) job.checkpoint = j.checkpoint.last === undefined ? { every: j.checkpoint.every } : { every: j.checkpoint.every, last: j.checkpoint.last - at };
    return job;
  });
}

/**
 * The snapshot's queued jobs as the run's first arrivals (SEMANTICS 8): each submitted at
 * its `submittedAt` in run time (at or before 0), needing its `duration` of running time
 * (none given: it runs until the run ends).
 */
export function queuedAtStart(cluster: Cluster): SimJob[] {
  return (cluster.queue ?? []).map((q) => {
    const { submittedAt, duration, ...fields } = q;
    const spec: JobSpec = Object.assign({}, fields, q.checkpoint?.last === undefined ? {} : { checkpoint: { every: q.checkpoint.every } });
    return { spec, submit: submittedAt - cluster.at, duration: duration ?? Infinity };
  });
}
