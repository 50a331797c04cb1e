/**
 * Input checks both backends share, so a malformed snapshot or query fails the same way
 * (same `kernel/...` code) whichever kernel answers. They guard what the kernel's
 * arithmetic relies on: integer GPU counts and masks within 32 bits, no NaN anywhere
 * (a NaN would make "fits" and "deficit relieved" undecidable), indices in range.
 */
import { KernelError } from './kernel-error.js';
import { LAYOUT } from './layout.js';
import { isVictimOrder } from './victim-order.js';
import { MAX_WORKLOAD_SHAPES } from './fragmentation.js';
import type { Candidate, GangRequest, KernelJob, KernelSnapshot, QuotaConstraint, WorkloadShape } from './types.js';

/** Pools are dense small indices: the kernel keeps a table of poolCount + 1 slots. */
export const MAX_POOL = (1 << 20) - 1;

/** Sizes a valid snapshot has, as the kernel lays them out. */
export interface SnapshotCounts {
  nodes: number;
  jobs: number;
  pods: number;
  /** Highest pool index + 1. */
  pools: number;
}

const isInt = (x: unknown, lo: number, hi: number): boolean => typeof x === 'number' && Number.isInteger(x) && x >= lo && x <= hi;
const isMask = (x: unknown): boolean => isInt(x, -(2 ** 31), 2 ** 32 - 1);
const isNumber = (x: unknown): boolean => typeof x === 'number' && !Number.isNaN(x);
const isFiniteNumber = (x: unknown): boolean => typeof x === 'number' && Number.isFinite(x);
const I32_MIN = -(2 ** 31);
const I32_MAX = 2 ** 31 - 1;

function fail(where: string, rule: string): never {
  throw new KernelError('kernel/invalid-snapshot', `${where} ${rule}`);
}

/** Highest GPU model index: a request's allowed models are a 32-bit mask. */
export const MAX_MODEL = 31;

/** Checks a snapshot and returns its counts; throws `kernel/invalid-snapshot`. */
export function validateSnapshot(snapshot: KernelSnapshot): SnapshotCounts {
  const { nodes, jobs } = snapshot;
  if (!Array.isArray(nodes) || !Array.isArray(jobs)) fail('snapshot', 'must have nodes and jobs arrays');
  if (nodes.length > LAYOUT.MAX_NODES) fail('snapshot.nodes', `must have at most ${LAYOUT.MAX_NODES} entries`);
  let pools = 0;
  nodes.forEach((node, i) => {
    if (!isInt(node.gpus, 1, 32)) fail(`nodes[${i}].gpus`, 'must be an integer 1..32');
    if (!isMask(node.usedMask)) fail(`nodes[${i}].usedMask`, 'must be a 32-bit integer mask');
    if (!isNumber(node.freeCpu)) fail(`nodes[${i}].freeCpu`, 'must be a number');
    if (!isNumber(node.freeMem)) fail(`nodes[${i}].freeMem`, 'must be a number');
    if (!isInt(node.pool, 0, MAX_POOL)) fail(`nodes[${i}].pool`, `must be an integer 0..${MAX_POOL}`);
    if (node.model !== undefined && !isInt(node.model, 0, MAX_MODEL)) fail(`nodes[${i}].model`, `must be an integer 0..${MAX_MODEL}`);
    pools = Math.max(pools, node.pool + 1);
  });
  let pods = 0;
  jobs.forEach((job, j) => {
    checkJob(job, nodes.length, () => `jobs[${j}]`, fail);
    pods += job.pods.length;
  });
  checkShares(snapshot);
  return { nodes: nodes.length, jobs: jobs.length, pods, pools };
}

/** A whole GPU in milli-GPUs. */
export const MILLI_PER_GPU = 1000;

/**
 * The sharing invariant the kernels rely on (assembly/layout.ts): each GPU sharing pods
 * use has its bit set in the node's usedMask, holds at most 1000 milli, and no whole-GPU
 * pod holds it too.
 */
function checkShares(snapshot: KernelSnapshot): void {
  const shared = new Map<number, number>();
  snapshot.jobs.forEach((job, j) =>
    job.pods.forEach((pod, p) => {
      if (!pod.milli) return;
      const key = pod.node * 32 + Math.log2(pod.mask >>> 0);
      const sum = (shared.get(key) ?? 0) + pod.milli;
      if (sum > MILLI_PER_GPU) fail(`jobs[${j}].pods[${p}].milli`, `brings GPU ${key % 32} of node ${pod.node} to ${sum} milli (at most ${MILLI_PER_GPU})`);
      if (((snapshot.nodes[pod.node]!.usedMask >>> 0) & (pod.mask >>> 0)) >>> 0 === 0) {
        fail(`nodes[${pod.node}].usedMask`, `must have the bit of GPU ${key % 32}, which jobs[${j}] shares`);
      }
      shared.set(key, sum);
    }),
  );
  if (shared.size === 0) return;
  snapshot.jobs.forEach((job, j) =>
    job.pods.forEach((pod, p) => {
      if (pod.milli) return;
      for (let g = 0; g < 32; g++) {
        if (((pod.mask >>> g) & 1) === 1 && shared.has(pod.node * 32 + g)) {
          fail(`jobs[${j}].pods[${p}].mask`, `holds GPU ${g} of node ${pod.node} whole, which sharing pods use`);
        }
      }
    }),
  );
}

/** The integer fields of a job. */
const JOB_INTS = ['rank', 'priority', 'gpus', 'order'] as const;

/**
 * The shape checks of one job, reported through `failWith(where, rule)`; `at()` names the
 * job, spelled out only for a failure (a snapshot checks every job: 38,633 names in B3).
 */
function checkJob(job: KernelJob, nodeCount: number, at: () => string, failWith: (where: string, rule: string) => never): void {
  for (const key of JOB_INTS) {
    if (!isInt(job[key], I32_MIN, I32_MAX)) failWith(`${at()}.${key}`, 'must be a 32-bit integer');
  }
  // Victim criteria are monotone only for non-negative lost work and GPUs (victim-order.ts).
  if (!isNumber(job.lostWork) || job.lostWork < 0) failWith(`${at()}.lostWork`, 'must be a number >= 0');
  if (job.gpus < 0) failWith(`${at()}.gpus`, 'must be >= 0');
  if (!isNumber(job.startedAt)) failWith(`${at()}.startedAt`, 'must be a number');
  if (!Array.isArray(job.pods)) failWith(`${at()}.pods`, 'must be an array');
  job.pods.forEach((pod, p) => {
    const where = (): string => `${at()}.pods[${p}]`;
    if (!isInt(pod.node, 0, nodeCount - 1)) failWith(`${where()}.node`, 'must index a node of the snapshot');
    if (!isMask(pod.mask)) failWith(`${where()}.mask`, 'must be a 32-bit integer mask');
    if (!isFiniteNumber(pod.cpu)) failWith(`${where()}.cpu`, 'must be a finite number');
    if (!isFiniteNumber(pod.mem)) failWith(`${where()}.mem`, 'must be a finite number');
    if (pod.milli !== undefined && pod.milli !== 0) {
      if (!isInt(pod.milli, 1, MILLI_PER_GPU - 1)) failWith(`${where()}.milli`, `must be an integer 1..${MILLI_PER_GPU - 1} (a share of one GPU)`);
      if (!isSingleBit(pod.mask)) failWith(`${where()}.mask`, 'must name exactly one GPU for a sharing pod');
    }
  });
}

/** True when the 32-bit mask has exactly one bit set. */
function isSingleBit(mask: number): boolean {
  const m = mask >>> 0;
  return m !== 0 && (m & (m - 1)) >>> 0 === 0;
}

/** Throws `kernel/invalid-job` for the job given to `addJob`/`removeJob`. */
export function failJob(where: string, rule: string): never {
  throw new KernelError('kernel/invalid-job', `${where} ${rule}`);
}

/** Checks a job given to `addJob` (the shape checks of a snapshot's job); throws `kernel/invalid-job`. */
export function validateJob(job: KernelJob, nodeCount: number): void {
  checkJob(job, nodeCount, () => 'job', failJob);
}

/** Checks a gang request; throws `kernel/invalid-request`. */
export function validateRequest(req: GangRequest): void {
  const bad = (field: string, rule: string): never => {
    throw new KernelError('kernel/invalid-request', `request.${field} ${rule}`);
  };
  if (!isInt(req.pods, 0, 2 ** 32 - 1)) bad('pods', 'must be a non-negative integer');
  if (!isInt(req.gpu, 1, 32)) bad('gpu', 'must be an integer 1..32');
  if (!isFiniteNumber(req.cpu) || req.cpu < 0) bad('cpu', 'must be a finite number >= 0');
  if (!isFiniteNumber(req.mem) || req.mem < 0) bad('mem', 'must be a finite number >= 0');
  if (!isInt(req.pool, 0, 2 ** 32 - 1)) bad('pool', 'must be a non-negative integer');
  if (!(PLACEMENT_STRATEGIES as readonly string[]).includes(req.strategy)) bad('strategy', `must be one of ${PLACEMENT_STRATEGIES.map((s) => `'${s}'`).join(', ')}`);
  if (typeof req.strict !== 'boolean') bad('strict', 'must be a boolean');
  if (req.models !== undefined && !isMask(req.models)) bad('models', 'must be a 32-bit integer mask (bit m = model m; 0 = any)');
  if (req.milli !== undefined && req.milli !== 0) {
    if (!isInt(req.milli, 1, MILLI_PER_GPU - 1)) bad('milli', `must be an integer 1..${MILLI_PER_GPU - 1} (a share of one GPU)`);
    if (req.gpu !== 1) bad('gpu', 'must be 1 when the pod asks a share (milli)');
  }
  if (req.workload !== undefined) validateWorkload(req.workload, bad);
}

/** The strategies the kernel places by, in their wasm code order (0, 1, 2). */
export const PLACEMENT_STRATEGIES = ['binpack', 'spread', 'fragmentation'] as const;

/** Checks a request's typical-pod workload (fragmentation.ts); `bad` throws. */
function validateWorkload(workload: readonly WorkloadShape[], bad: (field: string, rule: string) => never): void {
  const list: unknown = workload;
  if (!Array.isArray(list)) bad('workload', 'must be an array of pod shapes');
  if (workload.length > MAX_WORKLOAD_SHAPES) bad('workload', `lists ${workload.length} shapes; at most ${MAX_WORKLOAD_SHAPES}`);
  workload.forEach((s: WorkloadShape, i) => {
    const at = `workload[${i}]`;
    if (!isInt(s.gpu, 0, 32)) bad(`${at}.gpu`, 'must be an integer 0..32 (0: a cpu-only pod)');
    if (s.milli !== undefined && s.milli !== 0) {
      if (!isInt(s.milli, 1, MILLI_PER_GPU - 1)) bad(`${at}.milli`, `must be an integer 1..${MILLI_PER_GPU - 1} (a share of one GPU)`);
      if (s.gpu !== 1) bad(`${at}.gpu`, 'must be 1 when the shape asks a share (milli)');
    }
    if (!isFiniteNumber(s.cpu) || s.cpu < 0) bad(`${at}.cpu`, 'must be a finite number >= 0');
    if (s.mem !== undefined && (!isFiniteNumber(s.mem) || s.mem < 0)) bad(`${at}.mem`, 'must be a finite number >= 0 (MiB; 0: not asked)');
    if (s.models !== undefined && !isMask(s.models)) bad(`${at}.models`, 'must be a 32-bit integer mask (bit m = model m; 0 = any)');
    if (!isFiniteNumber(s.weight) || s.weight <= 0) bad(`${at}.weight`, 'must be a finite number > 0');
  });
}

/** A GPU deficit in the milli-GPUs both kernels compare it in (other resources as given). */
export function kernelDeficit(resource: number, deficit: number): number {
  return resource === 0 ? Math.round(deficit * MILLI_PER_GPU) : deficit;
}

/** Checks quota constraints (at most 32, known resource, finite deficit); throws `kernel/invalid-constraint`. */
export function validateConstraints(constraints: QuotaConstraint[]): void {
  if (constraints.length > LAYOUT.MAX_CONSTRAINTS) {
    throw new KernelError('kernel/invalid-constraint', `at most ${LAYOUT.MAX_CONSTRAINTS} constraints`);
  }
  constraints.forEach((c, k) => {
    if (!isInt(c.resource, 0, 2)) {
      throw new KernelError('kernel/invalid-constraint', `constraints[${k}].resource must be 0 (GPU), 1 (CPU) or 2 (MEM)`);
    }
    if (!isFiniteNumber(c.deficit)) {
      throw new KernelError('kernel/invalid-constraint', `constraints[${k}].deficit must be a finite number`);
    }
  });
}

/** Checks a victim order: each of the five criteria exactly once; throws `kernel/invalid-order`. */
export function validateOrder(order: readonly number[]): void {
  if (!Array.isArray(order) || !isVictimOrder(order)) {
    throw new KernelError('kernel/invalid-order', `victim order [${String(order)}] must list each of the criteria 1..5 exactly once`);
  }
}

/** Throws `kernel/invalid-candidate` for candidate `i`. */
export function failCandidate(i: number, rule: string): never {
  throw new KernelError('kernel/invalid-candidate', `candidates[${i}] ${rule}`);
}

/** Checks candidates: each names a distinct live job of the snapshot, with an integer mask. */
export function validateCandidates(candidates: Candidate[], jobCount: number, isLive: (job: number) => boolean = () => true): void {
  const seen = new Set<number>();
  candidates.forEach((c, i) => {
    if (!isInt(c.job, 0, jobCount - 1)) failCandidate(i, '.job must index a job of the snapshot');
    if (!isLive(c.job)) failCandidate(i, `names job ${c.job}, which removeJob ended`);
    if (!isMask(c.constraintMask)) failCandidate(i, '.constraintMask must be a 32-bit integer mask');
    if (seen.has(c.job)) failCandidate(i, `repeats job ${c.job}`);
    seen.add(c.job);
  });
}

/** True when `x` is an integer the kernel can store as a u32 mask (either sign convention). */
export const isMaskValue = isMask;
