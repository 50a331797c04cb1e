/** A job's gang as the kernel's request. */
import type { GangRequest } from '../kernel/types.js';
import type { JobSpec, Pool } from '../model/policy.js';
import { shareMilli } from '../model/resources.js';
import { poolWorkload } from './pool-workload.js';

/**
 * The kernel request for `job`'s pods on pool `poolIndex`, with the pool's placement
 * strategy (fragmentation with its pool's workload, pool-workload.ts); `models` is the
 * mask of GPU models the job allows (0: any).
 */
export function gangRequest(job: Pick<JobSpec, 'pods' | 'resources'>, poolIndex: number, pool: Pool, models = 0): GangRequest {
  const milli = shareMilli(job.resources.gpu);
  return {
    ...(models ? { models } : {}),
    // A share of one GPU asks 1 GPU's slot with its milli (kernel types.ts).
    ...(milli ? { milli } : {}),
    pods: job.pods,
    gpu: milli ? 1 : job.resources.gpu,
    cpu: job.resources.cpu ?? 0,
    mem: job.resources.memory ?? 0,
    pool: poolIndex,
    strategy: pool.strategy,
    strict: pool.topology === 'strict',
    ...(pool.strategy === 'fragmentation' ? { workload: poolWorkload(pool) } : {}),
  };
}
