/**
 * The kernel's contract: what the engine hands to placement and victim selection, and
 * what comes back. Two implementations honour it — the WebAssembly kernel
 * (`wasm-kernel.ts`, over `assembly/`) and the pure-TypeScript twin (`reference.ts`) —
 * and a differential property holds them to the same answers.
 *
 * The criteria victim selection compares by are numbered in one table per language:
 * `victim-order.ts` here, `assembly/criteria.ts` in the kernel.
 *
 * Units are integers chosen so that nothing is fractional: GPUs are counts, cpu is in
 * millicores, memory in MiB. Node and job indices are positions in the snapshot arrays.
 */

/** A criterion of SEMANTICS 5.3 by the kernel's number, 1..5 (victim-order.ts `CRITERIA`; names in model/victim-order.ts). */
export type CriterionId = 1 | 2 | 3 | 4 | 5;

/** An order of the five criteria, first-deciding first. */
export type VictimOrder = readonly CriterionId[];

/** One node of the snapshot, as the kernel sees it. */
export interface KernelNode {
  /** GPUs on the node, 1..32 (a 32-bit mask holds the allocation). */
  gpus: number;
  /** Bit i set = GPU i allocated to some running job. */
  usedMask: number;
  /** Free cpu in millicores (capacity minus running pods); a node with no cpu capacity given gets a large value. */
  freeCpu: number;
  /** Free memory in MiB, as freeCpu. */
  freeMem: number;
  /** Pool index; placement never mixes pools (invariant 8). */
  pool: number;
  /** GPU model index 0..31 (the engine numbers the policy's models); absent = 0. */
  model?: number;
}

/** One placed pod of a running job: which node, which GPUs, and what else it holds. */
export interface KernelPod {
  node: number;
  mask: number;
  cpu: number;
  mem: number;
  /**
   * GPU sharing: the pod's share of the one GPU its mask names, in milli-GPUs 1..999
   * (openb's gpu_milli). Absent or 0: the pod holds its mask's GPUs whole. Shares of one
   * GPU sum to at most 1000, and a GPU sharing pods use is never also held whole.
   */
  milli?: number;
}

/**
 * A running job with the keys victim selection orders by (SEMANTICS 5.3). The keys are
 * fixed per snapshot (lost work is measured up to the snapshot's time), so they are
 * written once with the snapshot, not per query.
 */
export interface KernelJob {
  pods: KernelPod[];
  /** 0 = idle, 1 = borrowing, 2 = in-quota (criterion 1: the standing of the most important victim). */
  rank: number;
  /** 1..9 (criterion 1, second key). */
  priority: number;
  /** GPU-hours lost if preempted now, >= 0 (criterion 2). */
  lostWork: number;
  /**
   * GPUs the job holds, >= 0 (criterion 3), an integer in one unit across the snapshot:
   * the engine gives milli-GPUs (1000 a whole GPU) so that shares compare exactly.
   */
  gpus: number;
  /** Start time in epoch milliseconds; more recent is preferred as a victim (criterion 5). */
  startedAt: number;
  /** Position of the job's name in sorted order: the deterministic last tie-break (criterion 5). */
  order: number;
}

export interface KernelSnapshot {
  nodes: KernelNode[];
  jobs: KernelJob[];
}

/**
 * Where pods go among the nodes that fit them (SEMANTICS 5.4): binpack the fewest free
 * GPUs, spread the most, fragmentation where the workload's fragmentation grows least
 * (fragmentation.ts, the FGD paper's measure).
 */
export type PlacementStrategy = 'binpack' | 'spread' | 'fragmentation';

/**
 * One typical pod shape of the workload the `fragmentation` strategy keeps room for
 * (FGD's "typical pods"): how often it comes (`weight`) and what each pod asks.
 */
export interface WorkloadShape {
  /** GPUs per pod, 0..32 (0: a cpu-only pod, which can use no GPU). */
  gpu: number;
  /** A share of one GPU in milli-GPUs 1..999 (then `gpu` is 1); absent or 0: whole GPUs. */
  milli?: number;
  /** cpu per pod in millicores (0 when not asked). */
  cpu: number;
  /** Memory per pod in MiB; 0 or absent: not asked (the shape fits whatever memory is free). */
  mem?: number;
  /** GPU models the shape may run on, bit m = model m; 0 or absent = any. */
  models?: number;
  /** Relative frequency, > 0 (counts or fractions alike). */
  weight: number;
}

/** A gang: `pods` identical pods, all placed or none (invariant 8). */
export interface GangRequest {
  pods: number;
  /** GPUs per pod, >= 1. */
  gpu: number;
  /** cpu per pod in millicores (0 when not asked). */
  cpu: number;
  /** memory per pod in MiB (0 when not asked). */
  mem: number;
  pool: number;
  strategy: PlacementStrategy;
  /** `topology: strict`: a pod of 1, 2, 4, 8, 16 or 32 GPUs must get an aligned block. */
  strict: boolean;
  /** Allowed GPU models: bit m set = model m may host a pod; 0 or absent = any model. */
  models?: number;
  /**
   * GPU sharing: each pod asks this share of one GPU, in milli-GPUs 1..999 (then `gpu`
   * is 1). It goes on a GPU other shares use with room left, or a free GPU; never on a
   * GPU a whole-GPU pod holds. Absent or 0: whole GPUs.
   */
  milli?: number;
  /**
   * The typical pods the `fragmentation` strategy scores against (at most 64 shapes);
   * ignored by binpack and spread. Absent or empty: no shape to keep room for, so
   * fragmentation ranks nodes by the binpack tie-break alone. The wasm kernel rewrites
   * its table only when a request brings a different array than the last one.
   */
  workload?: readonly WorkloadShape[];
}

/** Resource index used by quota constraints. */
export const RESOURCE_GPU = 0;
export const RESOURCE_CPU = 1;
export const RESOURCE_MEM = 2;

/**
 * A quota the query would overrun: the chosen victims must together free at least
 * `deficit` of `resource` (GPUs, possibly fractional with shares: both kernels compare
 * GPU deficits in milli-GPUs, rounded, against each job's milli-GPUs) among the candidates whose `constraintMask` has this
 * constraint's bit (bit k for constraints[k]). At most 32 constraints.
 */
export interface QuotaConstraint {
  resource: number;
  deficit: number;
}

/** A job the rules allow the query to preempt, and which quota constraints it relieves. */
export interface Candidate {
  job: number;
  constraintMask: number;
}

export interface PodPlacement {
  node: number;
  mask: number;
}

export interface PlacementResult {
  ok: boolean;
  /** One entry per pod, in pod order, when ok. */
  pods: PodPlacement[];
}

/**
 * One way the job could run, as victim selection sees it (SEMANTICS 5.3 "the comparison
 * spans every way J could run"): the standing it would get, the jobs the rules let it
 * preempt for that standing and the quota deficits those victims must relieve.
 */
export interface VictimAlternative {
  /** The standing the job runs with when this alternative's set wins; breaks exact ties only, in-quota first. */
  standing: 'in-quota' | 'borrowing';
  candidates: Candidate[];
  /** At most 32 per alternative. */
  constraints: QuotaConstraint[];
}

export interface VictimResult {
  ok: boolean;
  /** Chosen victims (job indices), in the order's job order, least costly first. */
  victims: number[];
  /** The gang's placement once the victims are gone. */
  pods: PodPlacement[];
  /** Index of the alternative whose set won (-1 when !ok). */
  alternative: number;
  /**
   * True when the set is the proven optimum of its alternative under the full order
   * (no victims needed, or at most `CRITERIA.EXACT_LIMIT` deciding candidates, searched
   * exhaustively); false when it is the heuristic's (greedy, reprieve, second pass).
   */
  exact: boolean;
  /**
   * With `{ alone: true }`: per alternative, in order, what a query with that alternative
   * alone would answer — ok and its victims (job order) — as `selectVictims(req, [alt],
   * order)` gives them, without asking again (whatif.ts explains the losing way with it).
   */
  alone?: AloneResult[];
}

/** What one alternative alone answers (`VictimResult.alone`). */
export interface AloneResult {
  ok: boolean;
  victims: number[];
}

/** Options of `Kernel.selectVictims`. */
export interface VictimOptions {
  /** Also answer each alternative as if it were the only one (`VictimResult.alone`). */
  alone?: boolean;
}

/**
 * Free capacity for one pod shape (SEMANTICS 5.4's fragmentation), over the request's
 * pool and the nodes of a model it allows.
 */
export interface PoolRoom {
  /** Free GPUs. */
  freeGpus: number;
  /** The most free GPUs on one node. */
  largestFree: number;
  /** Pods of the shape that fit on free capacity now (each node's fits, summed). */
  podsFit: number;
  /** Free GPUs no pod of the shape can use: freeGpus − min(freeGpus, podsFit × gpu). */
  fragmentedGpus: number;
}

/** Placement and victim selection over one loaded snapshot. */
export interface Kernel {
  /** Which implementation answers: the differential test asserts 'wasm' really ran. */
  readonly backend: 'wasm' | 'reference';
  /** Writes the snapshot once; later calls address it by index. */
  load(snapshot: KernelSnapshot): void;
  /** Places the gang on free capacity only. */
  place(req: GangRequest): PlacementResult;
  /**
   * Chooses the victims of one submission, the whole of SEMANTICS 5.3 in one call: per
   * alternative, a minimal set of its candidates whose preemption relieves every one of
   * its constraints and lets the gang be placed, the best by `order` (exact when the
   * deciding candidates are few, else greedy + reprieve + a second pass); across
   * alternatives, the best of those sets by the same order, then by job name, and only
   * an exact tie goes to the better standing (in-quota first), then the earlier
   * alternative. ok=false when no alternative has a set. `order` defaults to
   * SEMANTICS 5.3's (victim-order.ts); throws `kernel/invalid-order` for a list that is
   * not a permutation of the five criteria. `options.alone` adds each alternative's own
   * answer (`VictimResult.alone`).
   */
  selectVictims(req: GangRequest, alternatives: readonly VictimAlternative[], order?: VictimOrder, options?: VictimOptions): VictimResult;
  /**
   * Adds a running job to the loaded snapshot permanently (outside any query's undo):
   * its pods occupy their nodes' GPUs, cpu and memory. Returns its index, the next one
   * after every job ever loaded or added (indices are never reused). Throws
   * `kernel/invalid-job` — and changes nothing — when a pod names a missing node or GPU
   * or a GPU already held. Capacity grows as needed. With `place`, this is how a job
   * the snapshot lists without a placement gets one.
   */
  addJob(job: KernelJob): number;
  /**
   * Ends running job `index` permanently: its pods' GPUs, cpu and memory are free again,
   * and the index is retired (a candidate naming it is `kernel/invalid-candidate`).
   * Throws `kernel/invalid-job` when `index` is not a live job.
   */
  removeJob(index: number): void;
  /** Free capacity and fragmentation for `req`'s pod shape (`req.pods` is ignored). */
  room(req: GangRequest): PoolRoom;
}
