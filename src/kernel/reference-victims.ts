/**
 * Victim selection for the pure-TS twin (SEMANTICS 5.3), step for step as
 * `assembly/victims.ts` does it, so the two agree on every set, not only on its cost:
 *
 *   1. greedy in the order's job order until the gang is admissible and placeable, then
 *      a reprieve in reverse: a minimal set G;
 *   2. the deciding candidates D: those whose preemption alone is no worse than G
 *      (every criterion is monotone, so a set holding any other loses to G);
 *   3. |D| <= EXACT_LIMIT: branch and bound over D (exclude-first, worst first, pruned by
 *      feasibility and cost) for the exact optimum of the full order, unless it visits
 *      SEARCH_BUDGET nodes first (exact ties make it exponential): then its best so far; otherwise a second
 *      greedy + reprieve over D in the order without its first criterion, keeping the
 *      better of the two.
 *
 * The set kept is minimal (invariant 4): G and the second pass by their reprieve, the
 * exact optimum because dropping a victim from a feasible set makes it strictly better.
 */
import { WorkingNodes, applyPodTo, fitsOf, type TwinNode } from './reference-placement.js';
import { kernelDeficit } from './validate.js';
import { RESOURCE_CPU, RESOURCE_GPU, type GangRequest, type KernelSnapshot, type VictimAlternative } from './types.js';
import { CRITERIA, addToCost, compareCosts, compareJobs, compareNames, costOf, emptyCost, type SetCost, type VictimOrder } from './victim-order.js';

/** The twin's loaded snapshot: nodes with their GPUs' shares. */
export interface TwinSnapshot {
  nodes: TwinNode[];
  jobs: KernelSnapshot['jobs'];
}

/** What evicting a job frees, per quota resource (summed over its pods in pod order); GPUs in milli-GPUs. */
export interface JobTotals {
  gpu: number;
  cpu: number;
  mem: number;
}

/** The best set of one alternative: job indices (unsorted) and whether it is proven optimal. */
export interface AlternativeBest {
  jobs: number[];
  cost: SetCost;
  exact: boolean;
}

/** One alternative's search state: the nodes and deficits as some candidates are preempted. */
class Search {
  nodes!: WorkingNodes;
  deficits: number[] = [];
  fitsSum = 0;

  constructor(
    private readonly snapshot: TwinSnapshot,
    private readonly poolNodes: readonly number[],
    private readonly req: GangRequest,
    private readonly alt: VictimAlternative,
    private readonly totals: readonly JobTotals[],
  ) {
    this.reset();
  }

  /** Nothing preempted, full deficits. */
  reset(): void {
    this.nodes = new WorkingNodes(this.snapshot.nodes);
    this.deficits = this.alt.constraints.map((c) => kernelDeficit(c.resource, c.deficit));
    this.fitsSum = this.poolNodes.reduce((sum, n) => sum + fitsOf(this.nodes, n, this.req), 0);
  }

  feasible(): boolean {
    return this.deficits.every((d) => !(d > 0)) && this.fitsSum >= this.req.pods;
  }

  /** Preempts (free) or puts back candidate `pos`: every pod on every node it holds, and its deficits. */
  toggle(pos: number, free: boolean): void {
    const candidate = this.alt.candidates[pos]!;
    this.moveJob(candidate.job, free);
    const totals = this.totals[candidate.job]!;
    this.alt.constraints.forEach((c, k) => {
      if (((candidate.constraintMask >>> k) & 1) === 0) return;
      const amount = c.resource === RESOURCE_GPU ? totals.gpu : c.resource === RESOURCE_CPU ? totals.cpu : totals.mem;
      this.deficits[k] = free ? this.deficits[k]! - amount : this.deficits[k]! + amount;
    });
  }

  /** Frees or re-occupies a job's pods, keeping the pool's fits sum current (no deficits). */
  moveJob(j: number, free: boolean): void {
    for (const pod of this.snapshot.jobs[j]!.pods) {
      const counted = this.snapshot.nodes[pod.node]!.pool === this.req.pool;
      const before = counted ? fitsOf(this.nodes, pod.node, this.req) : 0;
      applyPodTo(this.nodes.edit(pod.node), pod, !free);
      if (counted) this.fitsSum += fitsOf(this.nodes, pod.node, this.req) - before;
    }
  }
}

/** Greedy in the job order from criterion `from` over `positions`, then reprieve; the kept jobs in pick order, or null. */
function greedyPass(s: Search, snapshot: TwinSnapshot, alt: VictimAlternative, positions: number[], order: VictimOrder, from: number): number[] | null {
  const jobOf = (pos: number) => alt.candidates[pos]!.job;
  const sorted = [...positions].sort((a, b) => {
    const ja = jobOf(a);
    const jb = jobOf(b);
    return compareJobs(snapshot.jobs[ja]!, snapshot.jobs[jb]!, ja, jb, order, from);
  });
  const chosen: number[] = [];
  for (const pos of sorted) {
    if (s.feasible()) break;
    s.toggle(pos, true);
    chosen.push(pos);
  }
  if (!s.feasible()) return null;
  const kept = new Set(chosen);
  for (let i = chosen.length - 1; i >= 0; i--) {
    const pos = chosen[i]!;
    s.toggle(pos, false);
    if (s.feasible()) kept.delete(pos);
    else s.toggle(pos, true);
  }
  return chosen.filter((pos) => kept.has(pos)).map(jobOf);
}

/** The best set of one alternative, or null when even all its candidates do not suffice. */
export function bestForAlternative(
  snapshot: TwinSnapshot,
  poolNodes: readonly number[],
  req: GangRequest,
  alt: VictimAlternative,
  totals: readonly JobTotals[],
  order: VictimOrder,
): AlternativeBest | null {
  const jobs = snapshot.jobs;
  const s = new Search(snapshot, poolNodes, req, alt, totals);
  if (s.feasible()) return { jobs: [], cost: emptyCost(), exact: true };
  const all = alt.candidates.map((_, pos) => pos);
  const first = greedyPass(s, snapshot, alt, all, order, 0);
  if (!first) return null;
  let best: AlternativeBest = { jobs: first, cost: costOf(jobs, first), exact: true };
  const beats = (set: number[], cost: SetCost): boolean => {
    const c = compareCosts(cost, best.cost, order);
    return c !== 0 ? c < 0 : compareNames(jobs, set, best.jobs) < 0;
  };

  const deciding = all.filter((pos) => compareCosts(addToCost(emptyCost(), jobs[alt.candidates[pos]!.job]!), best.cost, order) <= 0);
  if (deciding.length > CRITERIA.EXACT_LIMIT) {
    s.reset();
    const second = greedyPass(s, snapshot, alt, deciding, order, 1)!;
    const cost = costOf(jobs, second);
    if (beats(second, cost)) best = { jobs: second, cost, exact: false };
    return { ...best, exact: false };
  }

  // Branch and bound, worst first, excluding first; every undecided or included candidate is preempted.
  const worstFirst = [...deciding];
  for (let i = 1; i < worstFirst.length; i++) {
    const item = worstFirst[i]!;
    let k = i;
    const ji = alt.candidates[item]!.job;
    while (k > 0) {
      const jk = alt.candidates[worstFirst[k - 1]!]!.job;
      if (compareJobs(jobs[jk]!, jobs[ji]!, jk, ji, order, 0) >= 0) break;
      worstFirst[k] = worstFirst[k - 1]!;
      k--;
    }
    worstFirst[k] = item;
  }
  s.reset();
  for (const pos of worstFirst) s.toggle(pos, true);
  const included: number[] = [];
  let visited = 0;
  let budgetHit = false;
  const branch = (i: number, cost: SetCost): void => {
    if (visited >= CRITERIA.SEARCH_BUDGET) {
      budgetHit = true;
      return;
    }
    visited++;
    if (i === worstFirst.length) {
      if (beats(included, cost)) best = { jobs: [...included], cost, exact: true };
      return;
    }
    const pos = worstFirst[i]!;
    s.toggle(pos, false);
    if (s.feasible()) branch(i + 1, cost);
    s.toggle(pos, true);
    const job = alt.candidates[pos]!.job;
    const next = addToCost(cost, jobs[job]!);
    if (compareCosts(next, best.cost, order) <= 0) {
      included.push(job);
      branch(i + 1, next);
      included.pop();
    }
  };
  branch(0, emptyCost());
  return budgetHit ? { ...best, exact: false } : best;
}

/**
 * Of two alternatives' best sets, true when `a` (standing rank `ra`) beats `b` (rank
 * `rb`): criteria, then names, then the better standing; the earlier alternative keeps
 * an exact tie of all three.
 */
export function beatsAcross(jobs: KernelSnapshot['jobs'], a: AlternativeBest, ra: number, b: AlternativeBest, rb: number, order: VictimOrder): boolean {
  let c = compareCosts(a.cost, b.cost, order);
  if (c === 0) c = compareNames(jobs, a.jobs, b.jobs);
  return c < 0 || (c === 0 && ra < rb);
}
