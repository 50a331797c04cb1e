/**
 * The judge of "optimal" and "minimal" victim sets (SEMANTICS 5.3, invariant 4): an
 * exhaustive search over every subset of the candidates, with its own placement check
 * and its own cost, sharing no code with the engine or the kernel (only the kernel's
 * input types) — so a bug in either cannot hide by agreeing with itself. Exponential: it
 * refuses more than `MAX_CANDIDATES` candidates per alternative.
 *
 * Placement here is counted per node by brute force: how many pods of the gang's shape
 * the node's free GPUs, cpu and memory take (under `strict` topology, for a power-of-two
 * shape no bigger than the node, only fully free aligned blocks count). Pods are
 * identical, so the gang fits exactly when the pool's counts add up to its pods; the
 * strategy only decides where, never whether.
 *
 * Cost, per SEMANTICS 5.3, with the criteria in the given order (ids as in the policy's
 * victimOrder: 1 priority, 2 lost-work, 3 gpus, 4 count, 5 recency):
 *   1. the most important victim, as (standing rank, priority), lower is better;
 *   2. total lost GPU-hours, compared in rounded millionths; 3. GPUs; 4. victims;
 *   5. the oldest victim's start, later is better;
 * then by name: of the jobs in one set only, the set holding the first by name wins;
 * across alternatives, an exact tie goes to the earlier-listed standing `in-quota`.
 */
import type { Candidate, GangRequest, KernelJob, KernelSnapshot, QuotaConstraint } from '../kernel/types.js';

/** The most candidates per alternative the exhaustive search takes. */
export const MAX_CANDIDATES = 16;

/** One way the job could run, for the judge. */
export interface OracleAlternative {
  standing: 'in-quota' | 'borrowing';
  candidates: Candidate[];
  constraints: QuotaConstraint[];
}

/** A set's cost on the five criteria, in SEMANTICS' numbering. */
export interface OracleCost {
  rank: number;
  priority: number;
  lostMicro: number;
  gpus: number;
  count: number;
  oldestStart: number;
}

/** The best set: kernel job indices (ascending), its cost and which alternative. */
export interface OracleBest {
  jobs: number[];
  cost: OracleCost;
  alternative: number;
}

const bitsOf = (mask: number): number[] => {
  const out: number[] = [];
  for (let i = 0; i < 32; i++) if ((mask >>> i) & 1) out.push(i);
  return out;
};

/** How many pods of the request's shape a node with these free GPUs (indices), shares, cpu and memory takes. */
function podsNodeTakes(gpus: number, free: Set<number>, shares: Map<number, number>, freeCpu: number, freeMem: number, req: GangRequest): number {
  const g = req.gpu;
  let byGpu: number;
  const aligned = (g & (g - 1)) === 0 && g <= gpus;
  if (req.milli) {
    // A share: ⌊room / milli⌋ on each GPU shares still use, ⌊1000 / milli⌋ on each free GPU.
    byGpu = free.size * Math.floor(1000 / req.milli);
    for (const used of shares.values()) if (used > 0) byGpu += Math.floor((1000 - used) / req.milli);
  } else if (req.strict && aligned) {
    byGpu = 0;
    for (let start = 0; start + g <= gpus; start += g) {
      let whole = true;
      for (let i = start; i < start + g; i++) if (!free.has(i)) whole = false;
      if (whole) byGpu++;
    }
  } else {
    byGpu = Math.floor(free.size / g);
  }
  let n = byGpu;
  if (req.cpu > 0) n = Math.min(n, Math.floor(freeCpu / req.cpu));
  if (req.mem > 0) n = Math.min(n, Math.floor(freeMem / req.mem));
  return n > 0 ? n : 0;
}

/**
 * True when preempting exactly `jobs` relieves every constraint of `alt` and leaves room
 * for the gang. GPU deficits count in milli-GPUs (a share frees its milli, a whole GPU
 * 1000); a shared GPU is free again only when every share of it is preempted.
 */
export function oracleFeasible(state: KernelSnapshot, req: GangRequest, alt: OracleAlternative, jobs: readonly number[]): boolean {
  const maskOf = new Map(alt.candidates.map((c) => [c.job, c.constraintMask >>> 0]));
  const left = alt.constraints.map((c) => (c.resource === 0 ? Math.round(c.deficit * 1000) : c.deficit));
  const freed = new Map<number, { gpus: Set<number>; cpu: number; mem: number }>();
  const preempted = new Set(jobs);
  // Shares still in use after the preemption, per node and GPU.
  const shares = new Map<number, Map<number, number>>();
  state.jobs.forEach((job, j) => {
    for (const pod of job.pods) {
      if (!pod.milli) continue;
      const g = bitsOf(pod.mask >>> 0)[0]!;
      const onNode = shares.get(pod.node) ?? new Map<number, number>();
      onNode.set(g, (onNode.get(g) ?? 0) + (preempted.has(j) ? 0 : pod.milli));
      shares.set(pod.node, onNode);
    }
  });
  for (const j of jobs) {
    const mask = maskOf.get(j) ?? 0;
    for (const pod of state.jobs[j]!.pods) {
      const f = freed.get(pod.node) ?? { gpus: new Set<number>(), cpu: 0, mem: 0 };
      if (!pod.milli) for (const b of bitsOf(pod.mask >>> 0)) f.gpus.add(b);
      f.cpu += pod.cpu;
      f.mem += pod.mem;
      freed.set(pod.node, f);
      alt.constraints.forEach((c, k) => {
        if (!((mask >>> k) & 1)) return;
        left[k]! -= c.resource === 0 ? (pod.milli ? pod.milli : bitsOf(pod.mask >>> 0).length * 1000) : c.resource === 1 ? pod.cpu : pod.mem;
      });
    }
  }
  if (left.some((d) => d > 0)) return false;
  let room = 0;
  state.nodes.forEach((node, n) => {
    if (node.pool !== req.pool) return;
    if (req.models && !((req.models >>> (node.model ?? 0)) & 1)) return;
    const used = new Set(bitsOf(node.usedMask >>> 0));
    const f = freed.get(n);
    const onNode = shares.get(n) ?? new Map<number, number>();
    const free = new Set<number>();
    for (let i = 0; i < node.gpus; i++) {
      const shared = onNode.has(i);
      if (shared ? onNode.get(i) === 0 : !used.has(i) || f?.gpus.has(i)) free.add(i);
    }
    room += podsNodeTakes(node.gpus, free, onNode, node.freeCpu + (f?.cpu ?? 0), node.freeMem + (f?.mem ?? 0), req);
  });
  return room >= req.pods;
}

/** The cost of preempting `jobs`. */
export function oracleCost(state: KernelSnapshot, jobs: readonly number[]): OracleCost {
  const list: KernelJob[] = jobs.map((j) => state.jobs[j]!);
  const top = list.reduce<KernelJob | undefined>((a, b) => (!a || b.rank > a.rank || (b.rank === a.rank && b.priority > a.priority) ? b : a), undefined);
  return {
    rank: top ? top.rank : -1,
    priority: top ? top.priority : -Infinity,
    lostMicro: list.reduce((s, j) => s + Math.floor(j.lostWork * 1e6 + 0.5), 0),
    gpus: list.reduce((s, j) => s + j.gpus, 0),
    count: list.length,
    oldestStart: list.reduce((s, j) => Math.min(s, j.startedAt), Infinity),
  };
}

/** Negative when `a` is the better set under `order` (criteria, then names). */
export function oracleCompare(state: KernelSnapshot, a: { jobs: readonly number[]; cost: OracleCost }, b: { jobs: readonly number[]; cost: OracleCost }, order: readonly number[]): number {
  const key = (c: OracleCost, id: number): number[] => (id === 1 ? [c.rank, c.priority] : id === 2 ? [c.lostMicro] : id === 3 ? [c.gpus] : id === 4 ? [c.count] : [-c.oldestStart]);
  for (const id of order) {
    const x = key(a.cost, id);
    const y = key(b.cost, id);
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  }
  const names = (xs: readonly number[], ys: readonly number[]) => Math.min(...xs.filter((j) => !ys.includes(j)).map((j) => state.jobs[j]!.order));
  const na = names(a.jobs, b.jobs);
  const nb = names(b.jobs, a.jobs);
  return na === nb ? 0 : na < nb ? -1 : 1;
}

/**
 * The best feasible victim set over all alternatives, or undefined when none is feasible.
 * Throws when an alternative has more than MAX_CANDIDATES candidates.
 */
export function optimalVictims(state: KernelSnapshot, req: GangRequest, alternatives: readonly OracleAlternative[], order: readonly number[] = [1, 2, 3, 4, 5]): OracleBest | undefined {
  let best: OracleBest | undefined;
  alternatives.forEach((alt, a) => {
    const n = alt.candidates.length;
    if (n > MAX_CANDIDATES) throw new Error(`exhaustive search refuses ${n} candidates (at most ${MAX_CANDIDATES})`);
    for (let mask = 0; mask < 2 ** n; mask++) {
      const jobs = alt.candidates
        .filter((_, k) => (mask >>> k) & 1)
        .map((c) => c.job)
        .sort((x, y) => x - y);
      const cost = oracleCost(state, jobs);
      if (best) {
        const c = oracleCompare(state, { jobs, cost }, best, order);
        const standingWins = c === 0 && alt.standing === 'in-quota' && alternatives[best.alternative]!.standing !== 'in-quota';
        if (c > 0 || (c === 0 && !standingWins)) continue;
      }
      if (oracleFeasible(state, req, alt, jobs)) best = { jobs, cost, alternative: a };
    }
  });
  return best;
}

/** True when `jobs` is feasible for `alt` and no set with one victim fewer is (invariant 4). */
export function isMinimalSet(state: KernelSnapshot, req: GangRequest, alt: OracleAlternative, jobs: readonly number[]): boolean {
  if (!oracleFeasible(state, req, alt, jobs)) return false;
  return jobs.every(
    (_, i) =>
      !oracleFeasible(
        state,
        req,
        alt,
        jobs.filter((__, k) => k !== i),
      ),
  );
}
