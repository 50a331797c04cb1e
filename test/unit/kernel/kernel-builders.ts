/**
 * Fixture builders for kernel tests: a node, a pod, a job, a gang request, each with
 * defaults so a case states only what it is about.
 */
import { ReferenceKernel } from '../../../src/kernel/reference.js';
import { createKernel, type KernelBackend } from '../../../src/kernel/create-kernel.js';
import type { Candidate, GangRequest, Kernel, KernelJob, KernelNode, KernelPod, KernelSnapshot, QuotaConstraint, VictimAlternative } from '../../../src/kernel/types.js';

/** Both implementations: every behaviour case runs against each. */
export const BACKENDS: KernelBackend[] = ['wasm', 'reference'];

/** Free cpu/mem of a node that was given no capacity ("a large value"). */
export const PLENTY = 1e9;

/** Mask with the listed GPUs set. */
export function gpuMask(gpus: readonly number[]): number {
  return gpus.reduce((mask, g) => (mask | (1 << g)) >>> 0, 0);
}

/** The GPUs `first..first+count-1` as a list. */
export function gpuRange(first: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => first + i);
}

/** A node: 8 GPUs, nothing used, plenty of cpu and memory, pool 0, model 0, unless told otherwise. */
export function node(opts: { gpus?: number; used?: readonly number[]; pool?: number; cpu?: number; mem?: number; model?: number } = {}): KernelNode {
  return {
    gpus: opts.gpus ?? 8,
    usedMask: gpuMask(opts.used ?? []),
    freeCpu: opts.cpu ?? PLENTY,
    freeMem: opts.mem ?? PLENTY,
    pool: opts.pool ?? 0,
    ...(opts.model === undefined ? {} : { model: opts.model }),
  };
}

/** A pod of a running job on node `n` holding `gpus`. */
export function pod(n: number, gpus: readonly number[], cpu = 0, mem = 0): KernelPod {
  return { node: n, mask: gpuMask(gpus), cpu, mem };
}

/** Marks a job whose name order `snapshot` assigns from its position. */
const UNSET_ORDER = -1;

/** A running job: in-quota, priority 5, unless told otherwise; `gpus` defaults to its pods' GPUs. */
export function job(pods: KernelPod[], keys: Partial<Omit<KernelJob, 'pods'>> = {}): KernelJob {
  const held = pods.reduce((sum, p) => sum + popcount(p.mask), 0);
  return {
    pods,
    rank: keys.rank ?? 2,
    priority: keys.priority ?? 5,
    lostWork: keys.lostWork ?? 0,
    gpus: keys.gpus ?? held,
    startedAt: keys.startedAt ?? 0,
    order: keys.order ?? UNSET_ORDER,
  };
}

function popcount(mask: number): number {
  let x = mask >>> 0;
  let n = 0;
  for (; x !== 0; x &= x - 1) n++;
  return n;
}

/**
 * A snapshot whose nodes' used masks include every pod of `jobs` (plus any `used` GPUs
 * the node builder was given, held by something that is not a candidate), and whose
 * jobs get distinct name orders by position unless they set one.
 */
export function snapshot(nodes: KernelNode[], jobs: KernelJob[] = []): KernelSnapshot {
  const withPods = nodes.map((n) => ({ ...n }));
  for (const j of jobs) {
    for (const p of j.pods) {
      const target = withPods[p.node]!;
      target.usedMask = (target.usedMask | p.mask) >>> 0;
      target.freeCpu -= p.cpu;
      target.freeMem -= p.mem;
    }
  }
  return { nodes: withPods, jobs: jobs.map((j, i) => ({ ...j, order: j.order === UNSET_ORDER ? i : j.order })) };
}

/** A gang of `pods` × `gpu`: binpack, not strict, no cpu/mem ask, pool 0, unless told otherwise. */
export function gang(pods: number, gpu: number, opts: Partial<Omit<GangRequest, 'pods' | 'gpu'>> = {}): GangRequest {
  return {
    pods,
    gpu,
    cpu: opts.cpu ?? 0,
    mem: opts.mem ?? 0,
    pool: opts.pool ?? 0,
    strategy: opts.strategy ?? 'binpack',
    strict: opts.strict ?? false,
    ...(opts.models === undefined ? {} : { models: opts.models }),
  };
}

/** Every job of the snapshot as a candidate relieving the constraints in `mask`. */
export function allCandidates(snap: KernelSnapshot, mask = 0): Candidate[] {
  return snap.jobs.map((_, j) => ({ job: j, constraintMask: mask }));
}

/** One alternative (in-quota) of `candidates` and `constraints`: the common single-standing query. */
export function alone(candidates: Candidate[], constraints: QuotaConstraint[] = []): VictimAlternative[] {
  return [{ standing: 'in-quota', candidates, constraints }];
}

/** A kernel of the given backend with `snap` loaded. */
export function loaded(backend: KernelBackend, snap: KernelSnapshot): Kernel {
  const kernel = createKernel(backend);
  kernel.load(snap);
  return kernel;
}

/**
 * Whether preempting exactly the jobs `victims` lets the request through, asked of the
 * reference: selectVictims over just those candidates fails iff freeing all of them
 * does not suffice (feasibility is monotone in the freed set).
 */
export function feasibleWith(snap: KernelSnapshot, req: GangRequest, victims: readonly Candidate[], constraints: QuotaConstraint[]): boolean {
  const reference = new ReferenceKernel();
  reference.load(snap);
  return reference.selectVictims(req, [{ standing: 'in-quota', candidates: [...victims], constraints: constraints }]).ok;
}

/** True when the victims suffice and dropping any single one of them does not (invariant 4). */
export function isMinimal(snap: KernelSnapshot, req: GangRequest, candidates: readonly Candidate[], constraints: QuotaConstraint[], victims: readonly number[]): boolean {
  const chosen = victims.map((v) => candidates.find((c) => c.job === v)!);
  if (!feasibleWith(snap, req, chosen, constraints)) return false;
  return chosen.every(
    (_, i) =>
      !feasibleWith(
        snap,
        req,
        chosen.filter((__, k) => k !== i),
        constraints,
      ),
  );
}
