/**
 * Work lost on preemption (SEMANTICS 7): GPUs × time since the last checkpoint. The last
 * checkpoint is `checkpoint.last` when given, else the latest `startedAt + k × every`
 * not after `now` (ours); without checkpoints all work since start is lost.
 */
import type { RunningJob } from './policy.js';

const HOUR_MS = 3_600_000;

/** Epoch ms of the job's last checkpoint as of `now`. */
export function lastCheckpoint(job: Pick<RunningJob, 'startedAt' | 'checkpoint'>, now: number): number {
  const cp = job.checkpoint;
  if (!cp) return job.startedAt;
  if (cp.last !== undefined) return Math.min(Math.max(cp.last, job.startedAt), now);
  const k = Math.floor(Math.max(0, now - job.startedAt) / cp.every);
  return job.startedAt + k * cp.every;
}

/** GPU-hours lost if the job is preempted at `now`, rounded to 0.01. */
export function lostGpuHours(job: Pick<RunningJob, 'startedAt' | 'checkpoint' | 'pods' | 'resources'>, now: number): number {
  const gpus = job.pods * job.resources.gpu;
  const hours = Math.max(0, now - lastCheckpoint(job, now)) / HOUR_MS;
  return Math.round(gpus * hours * 100) / 100;
}
