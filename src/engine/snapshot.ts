/**
 * The cluster snapshot as the engine holds it: the quota tree, indexed nodes and jobs,
 * usage per quota, and the kernel with the state loaded once. Jobs the snapshot lists
 * without a placement are placed here, in file order, as the scheduler would have.
 */
import type { Finding } from '../errors.js';
import type { Kernel, KernelJob, KernelNode, KernelPod, KernelSnapshot } from '../kernel/types.js';
import { popcount } from '../kernel/gpu-mask.js';
import { lostGpuHours } from '../model/lost-work.js';
import { MILLI_PER_GPU, addGpu, shareMilli } from '../model/resources.js';
import type { Cluster, Policy, Pool, RunningJob } from '../model/policy.js';
import { QuotaTree } from '../model/quota-tree.js';
import { comboIndex } from '../rules/facts.js';
import { computeUsage, type UsageTable } from './usage.js';
import { gangRequest } from './gang.js';
import { learnPoolWorkload } from './pool-workload.js';
import { maskOf, modelIndex, type ModelIndex } from './gpu-models.js';
import { modelKeyOf } from './kueue-nodes.js';

/** "No limit" for nodes whose cpu or memory the snapshot does not track. */
export const UNTRACKED = 1_000_000_000;

const RANK = { idle: 0, borrowing: 1, 'in-quota': 2 } as const;

export class Snapshot {
  readonly nodeIndex: Map<string, number>;
  readonly poolIndex: Map<string, number>;
  readonly jobIndex: Map<string, number>;
  readonly usage: UsageTable;
  /** Per-job facts as typed arrays, for the per-query scan over every running job. */
  readonly index: JobIndex;
  /** GPU model name → kernel model index (gpu-models.ts). */
  readonly models: ModelIndex;
  /** Facts answers derive from this state, kept until it changes (memo). */
  private readonly memos = new Map<string, unknown>();
  private changes = 0;

  private constructor(
    readonly policy: Policy,
    readonly cluster: Cluster,
    readonly tree: QuotaTree,
    readonly jobs: RunningJob[],
    readonly state: KernelSnapshot,
    readonly kernel: Kernel,
    nodeIndex: Map<string, number>,
    poolIndex: Map<string, number>,
    models: ModelIndex,
    /** Name order of the running jobs and of the names the build was given; kept only when it was given some. */
    private readonly order: ReadonlyMap<string, number> = new Map(),
  ) {
    this.nodeIndex = nodeIndex;
    this.poolIndex = poolIndex;
    this.jobIndex = new Map();
    for (let i = 0; i < jobs.length; i++) this.jobIndex.set(jobs[i]!.name, i);
    this.usage = computeUsage(tree, jobs);
    this.index = indexJobs(tree, jobs, state, this.poolIndex);
    this.models = models;
  }

  /**
   * Builds the snapshot and loads it into `kernel`; unplaceable jobs become findings. `tree` is the policy's, when the caller has it already;
   * `names` are the jobs the caller will start on it later (their name order is the victims' last tie-break: `orderOf`).
   *
   * The snapshot's jobs are the cluster's own RunningJob objects, not copies: nothing here
   * or in an answer writes to them. The jobs whose placement this build completes (pods
   * given by GPU count, jobs without a placement) are copied first, so the policy's
   * model keeps what its files say; a LiveSnapshot copies a job before changing it.
   */
  static build(policy: Policy, cluster: Cluster, kernel: Kernel, tree = new QuotaTree(policy.quotas), names: readonly string[] = []): { snapshot?: Snapshot; findings: Finding[] } {
    const poolIndex = new Map<string, number>();
    for (let i = 0; i < policy.pools.length; i++) poolIndex.set(policy.pools[i]!.name, i);
    const nodeIndex = new Map<string, number>();
    for (let i = 0; i < cluster.nodes.length; i++) nodeIndex.set(cluster.nodes[i]!.name, i);
    // A cordoned node sits in a pool index no quota draws from: its pods stay and count,
    // new pods never land on it, and preempting its pods frees nothing a submission can use.
    const cordoned = policy.pools.length;
    const keyOf = modelKeyOf(policy);
    const models = modelIndex(cluster.nodes, keyOf);
    const nodes: KernelNode[] = cluster.nodes.map((n) => ({
      gpus: n.gpus,
      usedMask: 0,
      freeCpu: n.cpu ?? UNTRACKED,
      freeMem: n.memory ?? UNTRACKED,
      pool: n.unschedulable ? cordoned : (poolIndex.get(n.pool) ?? -1),
      model: models.get(keyOf(n) ?? '') ?? 0,
    }));
    // Criterion 5's tie-break is name order, over the running jobs and `names` (jobs the
    // caller will start later, queue-serve.ts: their order must interleave with these).
    const sorted = new Array<string>(cluster.jobs.length);
    for (let i = 0; i < sorted.length; i++) sorted[i] = cluster.jobs[i]!.name;
    sorted.push(...names);
    sorted.sort();
    const order = new Map<string, number>();
    for (let i = 0; i < sorted.length; i++) order.set(sorted[i]!, i);
    // The cluster's jobs, shared; a job whose placement is completed below gets its own copy
    // (Object.assign keeps one hidden class for every job; a spread literal makes one each).
    const jobs: RunningJob[] = cluster.jobs.slice();
    for (let i = 0; i < jobs.length; i++) {
      const j = jobs[i]!;
      if (j.placement.length === 0 || j.placement.some((p) => p.indicesAssigned)) {
        jobs[i] = Object.assign({}, j, { placement: j.placement.map((p) => Object.assign({}, p, { gpus: [...p.gpus] })) });
      }
    }
    const kjobs: KernelJob[] = [];
    const at = cluster.at;
    const occupy = (job: RunningJob): void => {
      for (const p of job.placement) {
        const n = nodes[nodeIndex.get(p.node)!]!; // placements were validated against the nodes
        // A shared GPU's bit is set too (the kernel's invariant: not free for a whole-GPU pod).
        for (const g of p.gpus) n.usedMask |= 1 << g;
        n.freeCpu -= job.resources.cpu ?? 0;
        n.freeMem -= job.resources.memory ?? 0;
      }
    };
    // Each pod's node index, looked up by name once: pods of `jobs` in order, job i's from podStart[i].
    const podStart = new Int32Array(jobs.length + 1);
    for (let i = 0; i < jobs.length; i++) podStart[i + 1] = podStart[i]! + jobs[i]!.placement.length;
    const podNode = new Int32Array(podStart[jobs.length]!);
    // One kernel job per running job, its pods in placement order: a list of its own size and a
    // literal per shape, no per-pod closure or spread (B3's 10,000 nodes make ~39,000 of them).
    // `first`: where the job's pods are in podNode, or -1 to look their nodes up by name.
    const toKernelJob = (job: RunningJob, first: number): KernelJob => {
      const cpu = job.resources.cpu ?? 0;
      const mem = job.resources.memory ?? 0;
      const milli = shareMilli(job.resources.gpu);
      const placement = job.placement;
      const pods = new Array<KernelPod>(placement.length);
      for (let k = 0; k < placement.length; k++) {
        const p = placement[k]!;
        let mask = 0;
        for (let g = 0; g < p.gpus.length; g++) mask |= 1 << p.gpus[g]!;
        const node = first >= 0 ? podNode[first + k]! : nodeIndex.get(p.node)!;
        pods[k] = milli ? { node, mask: mask >>> 0, cpu, mem, milli } : { node, mask: mask >>> 0, cpu, mem };
      }
      return {
        pods,
        rank: RANK[job.standing],
        priority: job.priority,
        lostWork: lostGpuHours(job, at),
        gpus: kernelGpus(job),
        startedAt: job.startedAt,
        order: order.get(job.name)!,
      };
    };
    // Pods given as a node and a GPU count get their indices after every explicit index is
    // taken (check-snapshot made sure they fit): the lowest free aligned block, else the lowest free GPUs.
    let assigned = false;
    for (let i = 0; i < jobs.length; i++) {
      const placement = jobs[i]!.placement;
      for (let k = 0; k < placement.length; k++) {
        const p = placement[k]!;
        const ni = nodeIndex.get(p.node)!; // placements were validated against the nodes
        podNode[podStart[i]! + k] = ni;
        if (p.indicesAssigned) assigned = true;
        else for (const g of p.gpus) nodes[ni]!.usedMask |= 1 << g;
      }
    }
    if (assigned) {
      for (let i = 0; i < jobs.length; i++) {
        const job = jobs[i]!;
        job.placement.forEach((p, k) => {
          if (!p.indicesAssigned) return;
          const n = nodes[podNode[podStart[i]! + k]!]!;
          p.gpus = assignIndices(n.usedMask >>> 0, n.gpus, job.resources.gpu);
          for (const g of p.gpus) n.usedMask |= 1 << g;
        });
      }
    }
    // Every explicit and assigned GPU is marked now (a shared GPU's bit too: the kernel's
    // invariant, not free for a whole-GPU pod); what is left is each pod's cpu and memory.
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      const cpu = job.resources.cpu ?? 0;
      const mem = job.resources.memory ?? 0;
      for (let f = podStart[i]!; f < podStart[i + 1]!; f++) {
        const n = nodes[podNode[f]!]!;
        n.freeCpu -= cpu;
        n.freeMem -= mem;
      }
    }
    for (const n of nodes) n.usedMask >>>= 0;

    // Jobs without a placement: the kernel places them in file order on what is left.
    // It holds the placed jobs first; each placement is added (addJob) so the next job
    // sees it, then the whole snapshot is loaded again in file order: two loads, linear
    // in the jobs to place.
    const findings: Finding[] = [];
    const state: KernelSnapshot = { nodes, jobs: kjobs };
    // fragmentation pools without a given workload learn it from their running pods.
    for (const pool of policy.pools)
      if (pool.strategy === 'fragmentation' && !pool.workload)
        learnPoolWorkload(
          pool,
          jobs.filter((j) => tree.get(j.quota).pool === pool.name),
        );
    const unplaced = jobs.filter((j) => j.placement.length === 0);
    if (unplaced.length > 0) {
      kernel.load({ nodes, jobs: jobs.flatMap((j, i) => (j.placement.length > 0 ? [toKernelJob(j, podStart[i]!)] : [])) });
      for (const job of unplaced) {
        const pool = policy.pools.find((p) => p.name === tree.get(job.quota).pool)!;
        const req = gangRequest(job, poolIndex.get(pool.name)!, pool, maskOf(models, job.gpuModels));
        const placed = job.gpuModels && !maskOf(models, job.gpuModels) ? { ok: false as const } : kernel.place(req);
        if (!placed.ok) {
          findings.push({
            file: job.src.file,
            line: job.src.line,
            column: job.src.column,
            path: job.src.path,
            code: 'policy/unplaceable-job',
            severity: 'error',
            message: `running job "${job.name}" has no placement and does not fit on the snapshot's free GPUs`,
            hint: 'give its placement (node and GPU indices per pod), or free room for it in the snapshot',
          });
          continue;
        }
        job.placement = placed.pods.map((p) => ({ node: cluster.nodes[p.node]!.name, gpus: maskToIndices(p.mask) }));
        job.placedByEngine = true;
        kernel.addJob(toKernelJob(job, -1));
        occupy(job);
        for (const p of placed.pods) nodes[p.node]!.usedMask >>>= 0;
      }
      if (findings.length > 0) return { findings };
    }
    // A job placed above has pods podNode does not hold: they are looked up by name.
    for (let i = 0; i < jobs.length; i++) {
      const job = jobs[i]!;
      kjobs.push(toKernelJob(job, podStart[i + 1]! - podStart[i]! === job.placement.length ? podStart[i]! : -1));
    }
    kernel.load(state);
    return { snapshot: new Snapshot(policy, cluster, tree, jobs, state, kernel, nodeIndex, poolIndex, models, names.length > 0 ? order : undefined), findings };
  }

  /**
   * How many times the running jobs changed since the build (live-snapshot.ts calls
   * `changed` on every start, end and standing change).
   */
  get version(): number {
    return this.changes;
  }

  /**
   * Records a change of the running jobs, their standings or the kernel state: every
   * memo is dropped, so no answer reads a fact of an earlier state.
   */
  changed(): void {
    this.changes++;
    this.memos.clear();
  }

  /**
   * A fact that is a pure function of this state (the nodes, the running jobs, their
   * standings and placements) and of `key`, computed once per state: answers on a big
   * snapshot read it instead of walking every node or job again. The clock is not part
   * of the state: a memo must not depend on it.
   */
  memo<T>(key: string, make: () => T): T {
    if (this.memos.has(key)) return this.memos.get(key) as T;
    const value = make();
    this.memos.set(key, value);
    return value;
  }

  /**
   * A job's name order among the running jobs and the `names` the build was given
   * (criterion 5's tie-break); undefined for another name, and for every name when the
   * build was given none.
   */
  orderOf(name: string): number | undefined {
    return this.order.get(name);
  }

  /** The allowed-models mask of a job (0: any, or none of its models exists; see gpu-models.ts). */
  modelsOf(job: { gpuModels?: readonly string[] }): number {
    return maskOf(this.models, job.gpuModels);
  }

  /** The pool a quota draws from. */
  poolOf(quota: string): Pool {
    const name = this.tree.get(quota).pool;
    return this.policy.pools.find((p) => p.name === name)!;
  }

  /** Kernel pool index of a quota's pool. */
  poolIndexOf(quota: string): number {
    return this.poolIndex.get(this.poolOf(quota).name)!;
  }

  /** The job a kernel job index refers to. */
  job(i: number): RunningJob {
    const job = this.jobs[i];
    if (job === undefined) throw new Error(`job index ${i} out of range (${this.jobs.length} jobs)`);
    return job;
  }

  /** GPUs in a pool. */
  capacity(pool: number): number {
    let total = 0;
    for (const n of this.state.nodes) if (n.pool === pool) total += n.gpus;
    return total;
  }
}

/**
 * The GPUs a job holds as the kernel compares them (criterion 3): whole milli-GPUs, so a
 * share (0.46 → 460) and whole GPUs (8 → 8000) order exactly. Every kernel job the engine
 * makes uses this unit.
 */
export function kernelGpus(job: { pods: number; resources: { gpu: number } }): number {
  return Math.round(job.pods * job.resources.gpu * MILLI_PER_GPU);
}

/** Per-job facts read by candidate search, one entry per running job. */
export interface JobIndex {
  /** Quota index in the tree. */
  jobQuota: Int32Array;
  /** comboIndex(priority, module, standing): the victim facts' cell within a relation block. */
  jobCombo: Int32Array;
  /** Pool index of the job's pods (jobs never span pools). */
  jobPool: Int32Array;
}

function indexJobs(tree: QuotaTree, jobs: RunningJob[], state: KernelSnapshot, poolIndex: Map<string, number>): JobIndex {
  const n = jobs.length;
  const index: JobIndex = { jobQuota: new Int32Array(n), jobCombo: new Int32Array(n), jobPool: new Int32Array(n) };
  jobs.forEach((job, i) => {
    const q = tree.indexOf(job.quota);
    index.jobQuota[i] = q;
    index.jobCombo[i] = comboIndex(job.priority, job.module, job.standing);
    const pod = state.jobs[i]!.pods[0]; // state.jobs parallels jobs
    index.jobPool[i] = pod ? state.nodes[pod.node]!.pool : (poolIndex.get(tree.at(q).pool) ?? -1);
  });
  return index;
}

/**
 * GPU indices for a pod of `count` GPUs on a node whose `used` mask is taken: the lowest
 * free aligned block of the smallest power of two holding `count` (as the kernel places),
 * else the lowest free indices. The caller has checked that enough GPUs are free.
 */
export function assignIndices(used: number, gpus: number, count: number): number[] {
  let block = 1;
  while (block < count) block *= 2;
  for (let start = 0; start + block <= gpus; start += block) {
    let free = true;
    for (let g = start; g < start + count; g++) if ((used >>> g) & 1) free = false;
    if (free) return Array.from({ length: count }, (_, i) => start + i);
  }
  const out: number[] = [];
  for (let g = 0; g < gpus && out.length < count; g++) if (!((used >>> g) & 1)) out.push(g);
  return out;
}

/** GPUs a kernel pod holds: its share of one GPU (0.46), or its mask's GPUs whole. */
export function podGpus(pod: { mask: number; milli?: number }): number {
  return pod.milli ? pod.milli / MILLI_PER_GPU : popcount(pod.mask);
}

/** GPUs the pods hold together, summed in whole milli-GPUs (shares exact). */
export function podsGpus(pods: ReadonlyArray<{ mask: number; milli?: number }>): number {
  let g = 0;
  for (const p of pods) g = addGpu(g, podGpus(p));
  return g;
}

/** GPU indices of a mask, ascending. */
export function maskToIndices(mask: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < 32; i++) if ((mask >>> i) & 1) out.push(i);
  return out;
}
