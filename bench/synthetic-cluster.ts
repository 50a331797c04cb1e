/**
 * Deterministic synthetic clusters for the kernel benchmarks: N nodes of 8 GPUs, a
 * fixed share of GPUs allocated to running jobs, the rest free. A few nodes are left
 * empty (real clusters keep some whole nodes free, and without them no 8-GPU pod could
 * ever be placed); the allocation is spread over the other nodes at random, cut into
 * pods of 1-4 GPUs, and some jobs span several nodes as gangs do.
 */
import type { KernelJob, KernelNode, KernelSnapshot } from '../src/kernel/types.js';

/** mulberry32: a small seeded RNG, so every run measures the same cluster. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Options of `syntheticCluster`. */
export interface SyntheticClusterOptions {
  nodes: number;
  /** Share of all GPUs allocated, 0..1 (B2: 0.8). */
  allocated: number;
  /** Share of nodes left entirely free (default 0.04). */
  emptyNodes?: number;
  seed?: number;
}

const GPUS = 8;
const PLENTY = 1e9;

/** A snapshot with exactly round(allocated × 8 × nodes) GPUs held by running jobs. */
export function syntheticCluster(opts: SyntheticClusterOptions): KernelSnapshot {
  const random = seededRandom(opts.seed ?? 42);
  const pick = (n: number): number => Math.floor(random() * n);
  const empty = Math.round((opts.emptyNodes ?? 0.04) * opts.nodes);
  const busy = opts.nodes - empty;
  const target = Math.min(Math.round(opts.allocated * GPUS * opts.nodes), busy * GPUS);

  // Choose `target` of the busy nodes' GPU slots uniformly (partial Fisher-Yates).
  const slots = Array.from({ length: busy * GPUS }, (_, i) => i);
  for (let i = 0; i < target; i++) {
    const j = i + pick(slots.length - i);
    [slots[i], slots[j]] = [slots[j]!, slots[i]!];
  }
  const used = new Array<number>(opts.nodes).fill(0);
  for (let i = 0; i < target; i++) used[empty + Math.floor(slots[i]! / GPUS)]! |= 1 << (slots[i]! % GPUS);

  const nodes: KernelNode[] = used.map((usedMask) => ({ gpus: GPUS, usedMask, freeCpu: PLENTY, freeMem: PLENTY, pool: 0 }));
  const jobs: KernelJob[] = [];
  const newJob = (): KernelJob => {
    const job: KernelJob = {
      pods: [],
      rank: pick(3),
      priority: 1 + pick(9),
      lostWork: Math.round(random() * 1000) / 10,
      gpus: 0,
      startedAt: 1_700_000_000_000 + pick(86_400_000),
      order: 0,
    };
    jobs.push(job);
    return job;
  };
  let current = newJob();
  used.forEach((mask, n) => {
    let bits = mask;
    while (bits !== 0) {
      const size = 1 + pick(4);
      let podMask = 0;
      for (let k = 0; k < size && bits !== 0; k++) {
        const low = bits & -bits;
        podMask |= low;
        bits ^= low;
      }
      // Three pods in ten join the previous job: gangs spread over nodes.
      if (current.pods.length > 0 && random() >= 0.3) current = newJob();
      current.pods.push({ node: n, mask: podMask >>> 0, cpu: 0, mem: 0 });
      current.gpus += popcount(podMask);
    }
  });
  if (current.pods.length === 0) jobs.pop();
  // Name order: a random permutation, unique as the kernel's last tie-break requires.
  const names = jobs.map((_, j) => j);
  for (let i = names.length - 1; i > 0; i--) {
    const j = pick(i + 1);
    [names[i], names[j]] = [names[j]!, names[i]!];
  }
  jobs.forEach((job, j) => (job.order = names[j]!));
  return { nodes, jobs };
}

function popcount(mask: number): number {
  let n = 0;
  for (let x = mask >>> 0; x !== 0; x &= x - 1) n++;
  return n;
}
