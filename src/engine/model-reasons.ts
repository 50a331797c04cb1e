/**
 * Reasons about GPU models: a job that asks for models no node of its pool has is
 * refused naming the models the pool does have; a job that waits says when GPUs of
 * other models would have taken it (the model, not the room, is what blocks it).
 */
import { because } from './reason-codes.js';
import type { JobSpec } from '../model/policy.js';
import type { Answer } from './answer.js';
import { gangRequest } from './gang.js';
import { roomOf } from './reasons.js';
import type { Snapshot } from './snapshot.js';

/** Why no node of the pool can ever host the job's models, or undefined. */
export function modelRefusal(snap: Snapshot, job: JobSpec, poolName: string): string | undefined {
  if (!job.gpuModels) return undefined;
  const models = job.gpuModels;
  // The models of the pool's schedulable nodes: one pass over the nodes per pool and snapshot state.
  const { inPool, named } = snap.memo(`pool-models:${poolName}`, () => {
    const nodes = snap.cluster.nodes.filter((n) => n.pool === poolName && !n.unschedulable);
    return { inPool: [...new Set(nodes.map((n) => n.gpuModel ?? '(no model)'))], named: new Set(nodes.flatMap((n) => (n.gpuModel === undefined ? [] : [n.gpuModel]))) };
  });
  if (models.some((m) => named.has(m))) return undefined;
  return `the GPU model blocks it: the job asks for ${job.gpuModels.join(' or ')}, and no schedulable node of pool "${poolName}" has ${job.gpuModels.length > 1 ? 'any of them' : 'it'} (its nodes have ${inPool.join(', ') || 'no GPUs'})`;
}

/** The answer with a reason when GPUs of other models would have taken a waiting job. */
export function noteModelBlock(answer: Answer, snap: Snapshot, job: JobSpec): Answer {
  if (!job.gpuModels || (answer.decision !== 'wait' && answer.decision !== 'reject')) return answer;
  const pool = snap.poolOf(job.quota);
  const poolIdx = snap.poolIndexOf(job.quota);
  const withModel = roomOf(snap, gangRequest(job, poolIdx, pool, snap.modelsOf(job)));
  const anyModel = roomOf(snap, gangRequest(job, poolIdx, pool));
  if (anyModel.podsFit <= withModel.podsFit || withModel.podsFit >= job.pods) return answer;
  return {
    ...answer,
    reasons: [
      ...answer.reasons,
      because(
        'placement/gpu-model',
        `the GPU model blocks it: ${withModel.podsFit} of its ${job.pods} pod(s) fit on free GPUs of ${job.gpuModels.join(' or ')}; ${anyModel.podsFit} would fit on free GPUs of any model`,
      ),
    ],
  };
}
