/**
 * SEMANTICS 5.3's criteria for choosing victims, by number: the twin of
 * `assembly/criteria.ts`, which holds the same numbers (`checkMirrors` in wasm-module.ts
 * refuses a build whose numbers differ). The criteria's names and sentences live in one
 * table, src/model/victim-order.ts (which the kernel may not import: kernel/ imports only
 * errors.ts); test/unit/model/victim-order.test.ts holds its ids to these. The pure-TS
 * twin compares by this module and nothing else does: the engine passes an order and
 * reads the kernel's answer.
 *
 *   id  name        one job (greedy order)           a set of victims (lower is better)
 *   1   priority    standing rank, then priority     the most important victim: max (rank, priority)
 *   2   lost-work   lost GPU-hours                   total lost GPU-hours (micro-GPU-hour units)
 *   3   gpus        GPUs held                        total GPUs
 *   4   count       (none: every job counts one)     number of victims
 *   5   recency     later start first                the oldest victim's start, later is better
 *
 * An order lists the five ids, first-deciding first. After the five comes a deterministic
 * tie-break by job name: of the jobs in one set but not the other, the set holding the
 * first by name wins. Every criterion is monotone — adding a victim never makes a set
 * better on any of them — which is what lets the exact search prune.
 */
import type { KernelJob, VictimOrder } from './types.js';

// The types live in types.ts, which every kernel module reads (so types.ts imports nothing of ours).
export type { CriterionId, VictimOrder } from './types.js';

/** Criterion ids and the order encoding, as the wasm exports them (checked at load). */
export const CRITERIA = {
  CRITERION_PRIORITY: 1,
  CRITERION_LOST_WORK: 2,
  CRITERION_GPUS: 3,
  CRITERION_COUNT: 4,
  CRITERION_RECENCY: 5,
  CRITERIA_COUNT: 5,
  ORDER_BITS: 4,
  DEFAULT_ORDER: 0x54321,
  LOST_WORK_SCALE: 1e6,
  /** Deciding candidates up to which the search is exact (assembly/victims.ts). */
  EXACT_LIMIT: 24,
  /** Branch-and-bound nodes one alternative may visit before it settles for its best so far. */
  SEARCH_BUDGET: 4096,
} as const;

/** SEMANTICS 5.3's own order. */
export const DEFAULT_VICTIM_ORDER: VictimOrder = [1, 2, 3, 4, 5];

/** True when `order` lists each of the five criteria exactly once. */
export function isVictimOrder(order: readonly number[]): order is VictimOrder {
  return order.length === CRITERIA.CRITERIA_COUNT && [1, 2, 3, 4, 5].every((id) => order.includes(id));
}

/** The order as the wasm takes it: one 4-bit id per criterion, lowest nibble first. */
export function encodeOrder(order: VictimOrder): number {
  return order.reduce((code, id, i) => code + id * 2 ** (CRITERIA.ORDER_BITS * i), 0);
}

/** True when `order` is SEMANTICS 5.3's own. */
export function isDefaultOrder(order: VictimOrder): boolean {
  return order.every((id, i) => id === DEFAULT_VICTIM_ORDER[i]);
}

/** A job's lost work in the integer units sets are summed in (exact sums in any order). */
export function lostUnits(job: KernelJob): number {
  return Math.floor(job.lostWork * CRITERIA.LOST_WORK_SCALE + 0.5);
}

/**
 * Negative when job `a` (index ia) comes before job `b` in the greedy's order: the
 * order's criteria from position `from` on (count says nothing about one job), then name
 * order, then index. 0 only for the same job.
 */
export function compareJobs(a: KernelJob, b: KernelJob, ia: number, ib: number, order: VictimOrder, from: number): number {
  for (let i = from; i < order.length; i++) {
    const c = order[i];
    if (c === 1) {
      if (a.rank !== b.rank) return a.rank < b.rank ? -1 : 1;
      if (a.priority !== b.priority) return a.priority < b.priority ? -1 : 1;
    } else if (c === 2) {
      const la = lostUnits(a);
      const lb = lostUnits(b);
      if (la !== lb) return la < lb ? -1 : 1;
    } else if (c === 3) {
      if (a.gpus !== b.gpus) return a.gpus < b.gpus ? -1 : 1;
    } else if (c === 5) {
      if (a.startedAt !== b.startedAt) return a.startedAt > b.startedAt ? -1 : 1;
    }
  }
  if (a.order !== b.order) return a.order < b.order ? -1 : 1;
  return ia === ib ? 0 : ia < ib ? -1 : 1;
}

/** A set's standing on the five criteria. */
export interface SetCost {
  rank: number;
  priority: number;
  lost: number;
  gpus: number;
  count: number;
  minStart: number;
}

/** The cost of the empty set: no worse than any set on any criterion. */
export function emptyCost(): SetCost {
  return { rank: -1, priority: -2147483648, lost: 0, gpus: 0, count: 0, minStart: Infinity };
}

/** The cost after adding `job` to a set costing `c` (a new object). */
export function addToCost(c: SetCost, job: KernelJob): SetCost {
  const higher = job.rank > c.rank || (job.rank === c.rank && job.priority > c.priority);
  return {
    rank: higher ? job.rank : c.rank,
    priority: higher ? job.priority : c.priority,
    lost: c.lost + lostUnits(job),
    gpus: c.gpus + job.gpus,
    count: c.count + 1,
    minStart: job.startedAt < c.minStart ? job.startedAt : c.minStart,
  };
}

/** The cost of the set of jobs `jobs` (indices into `all`). */
export function costOf(all: readonly KernelJob[], jobs: readonly number[]): SetCost {
  return jobs.reduce((c, j) => addToCost(c, all[j]!), emptyCost());
}

/** Negative when the set costing `a` is better than the one costing `b`, on the five criteria in `order`. */
export function compareCosts(a: SetCost, b: SetCost, order: VictimOrder): number {
  for (const c of order) {
    let x: number;
    let y: number;
    if (c === 1) {
      if (a.rank !== b.rank) return a.rank < b.rank ? -1 : 1;
      x = a.priority;
      y = b.priority;
    } else if (c === 2) {
      x = a.lost;
      y = b.lost;
    } else if (c === 3) {
      x = a.gpus;
      y = b.gpus;
    } else if (c === 4) {
      x = a.count;
      y = b.count;
    } else {
      // Later is better.
      x = -a.minStart;
      y = -b.minStart;
    }
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * The name tie-break between two sets of job indices: of the jobs in one set but not
 * the other, the set holding the first by name order wins. Negative when `a` wins, 0 for
 * equal sets.
 */
export function compareNames(all: readonly KernelJob[], a: readonly number[], b: readonly number[]): number {
  const firstMissing = (x: readonly number[], y: readonly number[]): number => {
    let best = 2147483647;
    for (const j of x) if (!y.includes(j) && all[j]!.order < best) best = all[j]!.order;
    return best;
  };
  const fa = firstMissing(a, b);
  const fb = firstMissing(b, a);
  return fa === fb ? 0 : fa < fb ? -1 : 1;
}
