// SEMANTICS 5.3's criteria for choosing victims: the one table the kernel compares by.
// `src/kernel/victim-order.ts` holds the same numbers (its twin of this table) and
// `checkMirrors` (src/kernel/wasm-module.ts) refuses a build whose numbers differ.
//
//   id  name        one job (greedy order)           a set of victims (lower is better)
//   1   priority    standing rank, then priority     the most important victim: max (rank, priority)
//   2   lost-work   lost GPU-hours                   total lost GPU-hours (micro-GPU-hour units)
//   3   gpus        GPUs held                        total GPUs
//   4   count       (none: every job counts one)     number of victims
//   5   recency     later start first                the oldest victim's start, later is better
//
// A per-call order lists the five ids, first-deciding first, 4 bits each, lowest nibble
// first (DEFAULT_ORDER = 1, 2, 3, 4, 5). After the five, a deterministic tie-break by job
// name: of the jobs in one set but not the other, the set holding the first by name wins.
// Every criterion is monotone: adding a victim never makes a set better on any of them,
// which is what lets the exact search prune (victims.ts).

import {
  JOB_LOST_WORK, JOB_STARTED_AT, JOB_RANK, JOB_PRIORITY, JOB_GPUS, JOB_ORDER,
} from './layout';
import { jobAt } from './state';

export const CRITERION_PRIORITY: u32 = 1;
export const CRITERION_LOST_WORK: u32 = 2;
export const CRITERION_GPUS: u32 = 3;
export const CRITERION_COUNT: u32 = 4;
export const CRITERION_RECENCY: u32 = 5;
/** How many criteria an order lists. */
export const CRITERIA_COUNT: u32 = 5;
/** Bits per criterion id in an encoded order. */
export const ORDER_BITS: u32 = 4;
/** SEMANTICS 5.3's own order: priority, lost work, GPUs, count, recency. */
export const DEFAULT_ORDER: u32 = 0x54321;
/** Lost GPU-hours are compared in millionths, rounded, so sums are exact integers in f64. */
export const LOST_WORK_SCALE: f64 = 1e6;

/** The order being applied; set by `setOrder` once per query. */
let order: u32 = DEFAULT_ORDER;

/** True when `code` lists each of the five criteria exactly once. */
export function validOrder(code: u32): bool {
  if ((code >>> (ORDER_BITS * CRITERIA_COUNT)) != 0) return false;
  let seen: u32 = 0;
  for (let i: u32 = 0; i < CRITERIA_COUNT; i++) {
    const id = (code >>> (i * ORDER_BITS)) & 0xf;
    if (id < 1 || id > CRITERIA_COUNT) return false;
    seen |= <u32>1 << id;
  }
  return seen == 0x3e;
}

export function setOrder(code: u32): void {
  order = code;
}

@inline function criterionAt(i: u32): u32 {
  return (order >>> (i * ORDER_BITS)) & 0xf;
}

/** A job's lost work in the integer units sets are summed in. */
@inline export function lostUnits(j: u32): f64 {
  return Math.floor(load<f64>(jobAt(j) + JOB_LOST_WORK) * LOST_WORK_SCALE + 0.5);
}

/**
 * Negative when job `a` comes before job `b` in the greedy's order: the order's criteria
 * from position `from` on (count says nothing about one job), then name order. 0 only
 * for the same job.
 */
export function compareJobs(a: u32, b: u32, from: u32): i32 {
  const ja = jobAt(a);
  const jb = jobAt(b);
  for (let i = from; i < CRITERIA_COUNT; i++) {
    const c = criterionAt(i);
    if (c == CRITERION_PRIORITY) {
      const ra = load<i32>(ja + JOB_RANK), rb = load<i32>(jb + JOB_RANK);
      if (ra != rb) return ra < rb ? -1 : 1;
      const pa = load<i32>(ja + JOB_PRIORITY), pb = load<i32>(jb + JOB_PRIORITY);
      if (pa != pb) return pa < pb ? -1 : 1;
    } else if (c == CRITERION_LOST_WORK) {
      const la = lostUnits(a), lb = lostUnits(b);
      if (la != lb) return la < lb ? -1 : 1;
    } else if (c == CRITERION_GPUS) {
      const ga = load<i32>(ja + JOB_GPUS), gb = load<i32>(jb + JOB_GPUS);
      if (ga != gb) return ga < gb ? -1 : 1;
    } else if (c == CRITERION_RECENCY) {
      const sa = load<f64>(ja + JOB_STARTED_AT), sb = load<f64>(jb + JOB_STARTED_AT);
      if (sa != sb) return sa > sb ? -1 : 1;
    }
  }
  const oa = load<i32>(ja + JOB_ORDER), ob = load<i32>(jb + JOB_ORDER);
  if (oa != ob) return oa < ob ? -1 : 1;
  return a == b ? 0 : (a < b ? -1 : 1);
}

/**
 * Writes job `j`'s sort key for the order from criterion `from` at `at` (f64 words, at
 * most 7) and returns how many words it has: exactly the numbers `compareJobs` compares,
 * in the order it compares them — rank and priority, lost-work units, GPUs, the start
 * negated (later first), then name order and the index. Comparing two keys word by word
 * (`compareKeys`) therefore answers as `compareJobs` does, without decoding the order or
 * recomputing lost work per comparison: a greedy pass heaps candidates on their keys.
 * Every word is an i32 or an f64 that compareJobs reads as is, so the words are exact,
 * and negating a start keeps every comparison, NaN included, as compareJobs makes it.
 */
export function jobKey(j: u32, from: u32, at: usize): u32 {
  const job = jobAt(j);
  let w: usize = at;
  for (let i = from; i < CRITERIA_COUNT; i++) {
    const c = criterionAt(i);
    if (c == CRITERION_PRIORITY) {
      store<f64>(w, <f64>load<i32>(job + JOB_RANK));
      store<f64>(w + 8, <f64>load<i32>(job + JOB_PRIORITY));
      w += 16;
    } else if (c == CRITERION_LOST_WORK) {
      store<f64>(w, lostUnits(j));
      w += 8;
    } else if (c == CRITERION_GPUS) {
      store<f64>(w, <f64>load<i32>(job + JOB_GPUS));
      w += 8;
    } else if (c == CRITERION_RECENCY) {
      store<f64>(w, -load<f64>(job + JOB_STARTED_AT));
      w += 8;
    }
  }
  store<f64>(w, <f64>load<i32>(job + JOB_ORDER));
  store<f64>(w + 8, <f64>j);
  return <u32>((w + 16 - at) >>> 3);
}

/** `compareJobs` on two keys of `words` words written by `jobKey` for the same order and criterion. */
@inline export function compareKeys(a: usize, b: usize, words: u32): i32 {
  for (let i: usize = 0; i < <usize>words; i++) {
    const x = load<f64>(a + (i << 3));
    const y = load<f64>(b + (i << 3));
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

// A set's cost: six f64 slots at a static address (the kernel allocates nothing).
export const COST_RANK: usize = 0;
export const COST_PRIORITY: usize = 8;
export const COST_LOST: usize = 16;
export const COST_GPUS: usize = 24;
export const COST_COUNT: usize = 32;
export const COST_MIN_START: usize = 40;
export const COST_SIZE: usize = 48;

/** The cost of the empty set: better than or equal to every set on every criterion. */
export function clearCost(c: usize): void {
  store<f64>(c + COST_RANK, -1);
  store<f64>(c + COST_PRIORITY, -2147483648.0);
  store<f64>(c + COST_LOST, 0);
  store<f64>(c + COST_GPUS, 0);
  store<f64>(c + COST_COUNT, 0);
  store<f64>(c + COST_MIN_START, Infinity);
}

export function copyCost(to: usize, from: usize): void {
  memory.copy(to, from, COST_SIZE);
}

/** Adds job `j` to the set whose cost is at `c`. */
export function addToCost(c: usize, j: u32): void {
  const job = jobAt(j);
  const rank = <f64>load<i32>(job + JOB_RANK);
  const priority = <f64>load<i32>(job + JOB_PRIORITY);
  const r = load<f64>(c + COST_RANK);
  if (rank > r || (rank == r && priority > load<f64>(c + COST_PRIORITY))) {
    store<f64>(c + COST_RANK, rank);
    store<f64>(c + COST_PRIORITY, priority);
  }
  store<f64>(c + COST_LOST, load<f64>(c + COST_LOST) + lostUnits(j));
  store<f64>(c + COST_GPUS, load<f64>(c + COST_GPUS) + <f64>load<i32>(job + JOB_GPUS));
  store<f64>(c + COST_COUNT, load<f64>(c + COST_COUNT) + 1);
  const s = load<f64>(job + JOB_STARTED_AT);
  if (s < load<f64>(c + COST_MIN_START)) store<f64>(c + COST_MIN_START, s);
}

/** Negative when the set costing `a` is better than the one costing `b` on the five criteria, in order. */
export function compareCosts(a: usize, b: usize): i32 {
  for (let i: u32 = 0; i < CRITERIA_COUNT; i++) {
    const c = criterionAt(i);
    let x: f64, y: f64;
    if (c == CRITERION_PRIORITY) {
      x = load<f64>(a + COST_RANK);
      y = load<f64>(b + COST_RANK);
      if (x != y) return x < y ? -1 : 1;
      x = load<f64>(a + COST_PRIORITY);
      y = load<f64>(b + COST_PRIORITY);
    } else if (c == CRITERION_LOST_WORK) {
      x = load<f64>(a + COST_LOST);
      y = load<f64>(b + COST_LOST);
    } else if (c == CRITERION_GPUS) {
      x = load<f64>(a + COST_GPUS);
      y = load<f64>(b + COST_GPUS);
    } else if (c == CRITERION_COUNT) {
      x = load<f64>(a + COST_COUNT);
      y = load<f64>(b + COST_COUNT);
    } else {
      // Later is better: compare negated.
      x = -load<f64>(a + COST_MIN_START);
      y = -load<f64>(b + COST_MIN_START);
    }
    if (x != y) return x < y ? -1 : 1;
  }
  return 0;
}

/**
 * The name tie-break between two sets of job indices (u32 lists at `a` and `b`): of the
 * jobs in one set but not the other, the set holding the first by name order wins.
 * Negative when `a` wins, 0 for equal sets.
 */
export function compareNames(a: usize, aLen: u32, b: usize, bLen: u32): i32 {
  const aBest = firstMissing(a, aLen, b, bLen);
  const bBest = firstMissing(b, bLen, a, aLen);
  if (aBest == bBest) return 0;
  return aBest < bBest ? -1 : 1;
}

/** The lowest name order among jobs of list `a` that list `b` lacks (i32 max when none). */
function firstMissing(a: usize, aLen: u32, b: usize, bLen: u32): i32 {
  let best: i32 = i32.MAX_VALUE;
  for (let i: u32 = 0; i < aLen; i++) {
    const j = load<u32>(a + (<usize>i << 2));
    let found = false;
    for (let k: u32 = 0; k < bLen; k++) {
      if (load<u32>(b + (<usize>k << 2)) == j) {
        found = true;
        break;
      }
    }
    if (found) continue;
    const o = load<i32>(jobAt(j) + JOB_ORDER);
    if (o < best) best = o;
  }
  return best;
}
