/**
 * The typical pods a `fragmentation` pool places against (kernel/fragmentation.ts): the
 * policy's `placement.workload` when given, else learned from the pods the snapshot runs
 * in that pool (each running pod counts once; the most frequent shapes covering 95 %;
 * a learned shape asks the least memory its pods ask).
 */
import { typicalShapes } from '../kernel/fragmentation.js';
import type { WorkloadShape } from '../kernel/types.js';
import type { Pool, TypicalPod } from '../model/policy.js';
import { shareMilli } from '../model/resources.js';

/** Learned workloads, per Pool object of a loaded policy (set when the snapshot is built). */
const learned = new WeakMap<Pool, readonly WorkloadShape[]>();
/** The policy's workload as kernel shapes, made once per Pool (the wasm rewrites its table only for a new array). */
const given = new WeakMap<Pool, readonly WorkloadShape[]>();

/** A typical pod (policy units: GPUs, a share below 1, millicores, MiB) as a kernel shape. */
export function toWorkloadShape(pod: TypicalPod): WorkloadShape {
  const milli = shareMilli(pod.gpu);
  return milli ? { gpu: 1, milli, cpu: pod.cpu, mem: pod.memory, weight: pod.weight } : { gpu: pod.gpu, cpu: pod.cpu, mem: pod.memory, weight: pod.weight };
}

/** Learns `pool`'s workload from the pods of its running jobs (`pods` pods of `gpu`/`cpu` each). */
export function learnPoolWorkload(pool: Pool, jobs: ReadonlyArray<{ pods: number; resources: { gpu: number; cpu?: number; memory?: number } }>): void {
  const pods: WorkloadShape[] = [];
  for (const job of jobs) {
    pods.push(toWorkloadShape({ gpu: job.resources.gpu, cpu: job.resources.cpu ?? 0, memory: job.resources.memory ?? 0, weight: job.pods }));
  }
  learned.set(pool, typicalShapes(pods));
}

/** The workload `pool`'s fragmentation placements score against (empty when nothing is known: packing alone). */
export function poolWorkload(pool: Pool): readonly WorkloadShape[] {
  if (pool.workload) {
    let shapes = given.get(pool);
    if (!shapes) given.set(pool, (shapes = pool.workload.map(toWorkloadShape)));
    return shapes;
  }
  return learned.get(pool) ?? [];
}
