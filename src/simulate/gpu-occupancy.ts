/**
 * What a job's start or end does to the cluster's free GPUs, read from the node bitmaps
 * around the change (docs/simulate.md "GPU sharing in the report"). A whole-GPU pod takes
 * or gives back the GPUs of its mask. A sharing pod (openb's `gpu_milli`, `gpu: 0.46`)
 * takes a whole free GPU when it is the first share on it — the GPU leaves the free
 * GPUs and the rest of it (540 milli) becomes *room*, usable by shares only — and
 * otherwise takes its share of the room; when the last share leaves, the GPU is free
 * again. Free GPUs and room are counted in milli-GPUs, so sums stay exact integers.
 *
 * The report's idle GPU-hours are free GPUs plus room, integrated over time; with the
 * GPUs the jobs hold by their requests they make up the capacity (metrics.ts).
 */
import { popcount } from '../kernel/gpu-mask.js';
import { MILLI_PER_GPU } from '../model/resources.js';

/** A change to the free GPUs, in milli-GPUs: whole GPUs (a multiple of 1000) and room on shared GPUs. */
export interface FreeChange {
  wholeMilli: number;
  roomMilli: number;
}

/** No change: a job whose standing alone changes. */
export const NO_CHANGE: FreeChange = { wholeMilli: 0, roomMilli: 0 };

interface Pod {
  node: number;
  mask: number;
  milli?: number;
}

/**
 * The change when pods of `milli` each (0: whole GPUs) start on `pods`, read from the
 * node bitmaps BEFORE they are set.
 */
export function onStart(nodes: ReadonlyArray<{ usedMask: number }>, pods: readonly Pod[], milli: number): FreeChange {
  if (!milli) return { wholeMilli: -pods.reduce((s, p) => s + popcount(p.mask), 0) * MILLI_PER_GPU, roomMilli: 0 };
  // Each GPU free before that a share lands on becomes room (once, however many of the
  // job's pods share it); then every share takes its milli of the room.
  const fresh = sharedGpus(pods, (p) => (nodes[p.node]!.usedMask & p.mask) === 0);
  return { wholeMilli: -fresh * MILLI_PER_GPU, roomMilli: fresh * MILLI_PER_GPU - pods.length * milli };
}

/**
 * The change when a job's pods (the kernel's, `milli` set on sharing pods) have ended,
 * read from the node bitmaps AFTER they are cleared: a shared GPU whose bit is clear lost
 * its last share and is free again.
 */
export function onStop(nodes: ReadonlyArray<{ usedMask: number }>, pods: readonly Pod[]): FreeChange {
  let wholeMilli = 0;
  let roomMilli = 0;
  for (const p of pods) {
    if (p.milli) roomMilli += p.milli;
    else wholeMilli += popcount(p.mask) * MILLI_PER_GPU;
  }
  const freed = sharedGpus(
    pods.filter((p) => p.milli),
    (p) => (nodes[p.node]!.usedMask & p.mask) === 0,
  );
  return { wholeMilli: wholeMilli + freed * MILLI_PER_GPU, roomMilli: roomMilli - freed * MILLI_PER_GPU };
}

/** How many distinct GPUs (node, mask) of sharing pods satisfy `test`. */
function sharedGpus(pods: readonly Pod[], test: (p: Pod) => boolean): number {
  if (pods.length === 1) return test(pods[0]!) ? 1 : 0;
  const seen = new Set<number>();
  for (const p of pods) if (test(p)) seen.add(p.node * 32 + Math.clz32(p.mask));
  return seen.size;
}
