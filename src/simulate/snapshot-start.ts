/**
 * A Cluster snapshot as the start of a run: its running jobs in run time, where the
 * snapshot's `at` is time 0. A job's `startedAt` and `checkpoint.last` become times at or
 * before 0 and its `expectedEnd` a time at or after 0 (the policy layer refuses an end
 * before `at`, policy/ended-before-snapshot), so the simulator's clock never runs back.
 */
import type { Cluster, RunningJob } from '../model/policy.js';

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
