// Victim selection (SEMANTICS 5.3), all of it: one call answers one way the job could
// run (an "alternative": its candidates and quota deficits) and keeps the best set over
// the alternatives of one query, compared by the one table in criteria.ts.
//
// Per alternative:
//   1. greedy in the order's job order until the gang is admissible (every deficit
//      relieved) and placeable, then a reprieve in reverse drops every victim not
//      needed: a minimal set G (feasibility is monotone in the freed set);
//   2. the deciding candidates D: those whose preemption alone is not already worse
//      than G (every criterion is monotone, so no set holding another can beat G);
//   3. |D| <= EXACT_LIMIT: a branch and bound over D, exclude-first in reverse job
//      order, pruned by feasibility and by cost, gives the exact optimum of the full
//      order (unless it visits SEARCH_BUDGET nodes first: then its best so far); otherwise a second greedy over D in the order without its first
//      criterion, with its own reprieve, and the better of the two sets is kept.
// Every set kept is minimal (invariant 4): G and the second pass by their reprieve, the
// exact optimum because dropping a victim from a feasible set is strictly better.
//
// Before step 1, a deficit that even every candidate together cannot relieve answers
// NO_ROOM at once (`deficitsOutOfReach`). The search leaves the placement buckets as
// loaded (state.ts `setBucketsFollow`): it reads only each node's fits.
//
// Scratch: ORDER[0..n) sorts or heaps candidate positions (on their sort keys in KEYS,
// written once per pass), ORDER[n..2n) holds a pass's chosen list; OUT_VICTIMS[0..cap/2)
// holds the query's best set so far (job indices, the answer), OUT_VICTIMS[cap/2..) this
// alternative's best. So the caller reserves
// candidateCap >= 2n. Node state changes in place; `restoreNodes` puts it back.
//
// One room, read whole (past the ~500 lines a file is otherwise split at): the three steps
// are one search over one shared scratch (the ORDER, KEYS and OUT_VICTIMS regions above,
// the node state `toggle` changes in place) and one invariant, that every set kept is
// minimal and the state is restored after it. Split by step, each file would index the
// same regions through the same offsets, and that invariant would no longer be checkable
// in one reading. The pieces that stand alone already have their rooms: the order's
// criteria in criteria.ts, placement in place.ts, node state in state.ts.

import {
  JOB_CPU_SUM, JOB_MEM_SUM, JOB_POD_START, JOB_POD_COUNT, JOB_GPU_SUM, POD_NODE,
  CANDIDATE_STRIDE, CANDIDATE_JOB, CANDIDATE_MASK, LAYOUT_BASE, HDR_CONSTRAINTS,
  HDR_DEFICITS, CONSTRAINT_STRIDE, CONSTRAINT_RESOURCE, CONSTRAINT_DEFICIT,
  KEY_STRIDE,
} from './layout';
import {
  jobAt, podAt, touchNode, restoreNodes, beginQuery, epoch, jobStampsPtr, applyPod, jobLive, setBucketsFollow,
  candidatesPtr, orderPtr, outVictimsPtr, candidateCap, keysPtr,
} from './state';
import { fitsOf, inRequestPool, poolFitsSum, placeGang } from './place';
import {
  compareJobs, compareCosts, compareNames, clearCost, copyCost, addToCost, COST_SIZE, jobKey, compareKeys,
} from './criteria';
import {
  STATUS_OK, STATUS_NO_ROOM, STATUS_BAD_CANDIDATE, STATUS_DUPLICATE_CANDIDATE,
  STATUS_BAD_CONSTRAINT, STATUS_SCRATCH_TOO_SMALL,
} from './status';

const RESOURCE_GPU: u32 = 0;
const RESOURCE_CPU: u32 = 1;
const RESOURCE_MEM: u32 = 2;

/**
 * Up to this many deciding candidates the search is exact. bench/b2 measures the branch
 * and bound's worst case at this size under a millisecond (docs/semantics.md §7).
 */
export const EXACT_LIMIT: u32 = 24;
/**
 * Most branch-and-bound nodes one alternative may visit. Exact ties (equal cost, sets that
 * differ only by name) make the search exponential even at small sizes; a search that
 * reaches the budget keeps the best set it found (never worse than the greedy's) and
 * says it is not proven optimal. Deterministic: it counts nodes, not time.
 */
export const SEARCH_BUDGET: u32 = 4096;
let visited: u32 = 0;
let budgetHit: bool = false;

/** Pods the request still needs room for, summed over the pool, as things stand now. */
let fitsSum: i32 = 0;
/** Constraints whose deficit is still > 0. */
let unsatisfied: i32 = 0;
let constraintCount: u32 = 0;
let podsWanted: i32 = 0;
let candidateCount: u32 = 0;

/** Victims of the best set so far in this query (OUT_VICTIMS[0..)). */
export let victimCount: u32 = 0;
/** The alternative that gave it, or -1 when none has a set yet. */
export let winner: i32 = -1;
/** Whether that set is the proven optimum of its alternative. */
export let winnerExact: bool = false;
let winnerStanding: u32 = 0;

/** This alternative's best set: job indices at OUT_VICTIMS[cap/2..), its length and cost. */
let bestLen: u32 = 0;

// Static scratch (below LAYOUT_BASE): set costs and the exact search's stacks.
const COST_BEST: usize = memory.data(<i32>COST_SIZE, 8);
const COST_WINNER: usize = memory.data(<i32>COST_SIZE, 8);
const COST_TRY: usize = memory.data(<i32>COST_SIZE, 8);
/** One cost per depth of the exact search. */
const COST_STACK: usize = memory.data(<i32>(COST_SIZE * (EXACT_LIMIT + 1)), 8);
/** Job indices included so far by the exact search. */
const INCLUDED: usize = memory.data(<i32>(EXACT_LIMIT * 4), 8);

@inline function candidateAt(pos: u32): usize {
  return candidatesPtr + <usize>pos * CANDIDATE_STRIDE;
}

@inline function jobOf(pos: u32): u32 {
  return load<u32>(candidateAt(pos) + CANDIDATE_JOB);
}

@inline function deficitAt(k: u32): usize {
  return <usize>LAYOUT_BASE + HDR_DEFICITS + (<usize>k << 3);
}

@inline function orderAt(i: u32): usize {
  return orderPtr + (<usize>i << 2);
}

@inline function bestPtr(): usize {
  return outVictimsPtr + ((<usize>candidateCap >>> 1) << 2);
}

@inline function feasible(): bool {
  return unsatisfied == 0 && fitsSum >= podsWanted;
}

/** Frees (occupy = false) or re-occupies every pod of job `j`, on every node it holds; keeps fitsSum current. */
function moveJob(j: u32, occupy: bool): void {
  const job = jobAt(j);
  const first = load<u32>(job + JOB_POD_START);
  const end = first + load<u32>(job + JOB_POD_COUNT);
  for (let i = first; i < end; i++) {
    const pod = podAt(i);
    const n = load<u32>(pod + POD_NODE);
    const counted = inRequestPool(n);
    const before = counted ? fitsOf(n) : 0;
    touchNode(n);
    applyPod(i, occupy);
    if (counted) fitsSum += fitsOf(n) - before;
  }
}

/** What preempting the job whose record is at `job` relieves of constraint `k`'s resource. */
@inline function reliefOf(job: usize, k: u32): f64 {
  const resource = load<u32>(<usize>LAYOUT_BASE + HDR_CONSTRAINTS + <usize>k * CONSTRAINT_STRIDE + CONSTRAINT_RESOURCE);
  // GPU deficits arrive in milli-GPUs (JS scales them), so shares relieve them exactly.
  if (resource == RESOURCE_GPU) return <f64>load<u32>(job + JOB_GPU_SUM);
  if (resource == RESOURCE_CPU) return load<f64>(job + JOB_CPU_SUM);
  return load<f64>(job + JOB_MEM_SUM);
}

/** The candidate's constraint bits among the query's constraints: what it relieves. */
@inline function relievingBits(pos: u32): u32 {
  const bits = load<u32>(candidateAt(pos) + CANDIDATE_MASK);
  return constraintCount < 32 ? bits & ((<u32>1 << constraintCount) - 1) : bits;
}

/** Applies (relieve) or takes back (!relieve) candidate `pos`'s contributions to the deficits. */
function relieveConstraints(pos: u32, relieve: bool): void {
  let bits = relievingBits(pos);
  if (bits == 0) return;
  const job = jobAt(jobOf(pos));
  while (bits != 0) {
    const k = ctz<u32>(bits);
    bits &= bits - 1;
    const amount = reliefOf(job, k);
    const at = deficitAt(k);
    const d = load<f64>(at);
    const next = relieve ? d - amount : d + amount;
    store<f64>(at, next);
    unsatisfied += <i32>(next > 0) - <i32>(d > 0);
  }
}

/** Preempts (free = true) or puts back candidate `pos`: its nodes and its deficits. */
@inline function toggle(pos: u32, free: bool): void {
  moveJob(jobOf(pos), !free);
  relieveConstraints(pos, free);
}

/** Per constraint, what preempting every candidate would relieve (scratch of `deficitsOutOfReach`). */
const RELIEF: usize = memory.data(<i32>(32 * 8), 8);

/**
 * True when preempting every candidate would still leave some deficit unrelieved: then
 * the greedy, which would take every candidate and still fail, cannot succeed, and the
 * answer is NO_ROOM without heaping or moving anything. Only constraints whose every
 * relieving amount is >= 0 decide (a deficit then only falls as victims are added, so
 * "all candidates" is the most any set relieves); and only a shortfall beyond rounding:
 * the greedy subtracts the amounts one by one in its pick order, this sums them in
 * candidate order, and the two f64 results differ by less than 2(n+1) units of
 * roundoff of |d| + the sum, so a shortfall above twice that is a shortfall both ways.
 * A borderline case returns false and the greedy decides, so answers are unchanged.
 * Reads the deficits `resetSearch` left.
 */
function deficitsOutOfReach(): bool {
  if (unsatisfied == 0) return false;
  const limit: u32 = constraintCount < 32 ? (<u32>1 << constraintCount) - 1 : 0xffffffff;
  let negative: u32 = 0;
  memory.fill(RELIEF, 0, <usize>constraintCount << 3);
  for (let pos: u32 = 0; pos < candidateCount; pos++) {
    let bits = load<u32>(candidateAt(pos) + CANDIDATE_MASK) & limit;
    if (bits == 0) continue;
    const job = jobAt(jobOf(pos));
    while (bits != 0) {
      const k = ctz<u32>(bits);
      bits &= bits - 1;
      const amount = reliefOf(job, k);
      if (amount < 0) negative |= <u32>1 << k;
      const at = RELIEF + (<usize>k << 3);
      store<f64>(at, load<f64>(at) + amount);
    }
  }
  // 2^-53 is f64's unit roundoff; 4(n+2) of them covers both orders' error with room to spare.
  const slack: f64 = 4.0 * (<f64>candidateCount + 2.0) * 1.1102230246251565e-16;
  for (let k: u32 = 0; k < constraintCount; k++) {
    if ((negative >>> k) & 1) continue;
    const d = load<f64>(deficitAt(k));
    if (!(d > 0)) continue;
    const relief = load<f64>(RELIEF + (<usize>k << 3));
    if (d - relief > slack * (d + relief)) return true;
  }
  return false;
}

/** Back to the loaded state with the query's full deficits: nothing preempted. */
function resetSearch(): void {
  restoreNodes();
  beginQuery();
  unsatisfied = 0;
  for (let k: u32 = 0; k < constraintCount; k++) {
    const d = load<f64>(<usize>LAYOUT_BASE + HDR_CONSTRAINTS + <usize>k * CONSTRAINT_STRIDE + CONSTRAINT_DEFICIT);
    store<f64>(deficitAt(k), d);
    if (d > 0) unsatisfied++;
  }
  fitsSum = poolFitsSum();
}

/** Words of the keys the current pass wrote (criteria.ts `jobKey`). */
let keyWords: u32 = 0;

/** Where candidate position `pos` keeps its sort key (KEYS region). */
@inline function keyAt(pos: u32): usize {
  return keysPtr + <usize>pos * KEY_STRIDE;
}

/** Min-heap over ORDER[0..size) on the keys of the current pass (the job order from its criterion). */
function siftDown(start: u32, size: u32): void {
  let i = start;
  const item = load<u32>(orderAt(i));
  const itemKey = keyAt(item);
  const words = keyWords;
  while (true) {
    let child: u32 = (i << 1) + 1;
    if (child >= size) break;
    let childItem = load<u32>(orderAt(child));
    if (child + 1 < size) {
      const right = load<u32>(orderAt(child + 1));
      if (compareKeys(keyAt(right), keyAt(childItem), words) < 0) {
        child++;
        childItem = right;
      }
    }
    if (compareKeys(keyAt(childItem), itemKey, words) >= 0) break;
    store<u32>(orderAt(i), childItem);
    i = child;
  }
  store<u32>(orderAt(i), item);
}

/**
 * Keeps, of the heap ORDER[0..size), the candidates that relieve some constraint, and
 * re-heaps them; returns their count. Called once a greedy pass has freed enough for the
 * gang to fit (fitsSum >= pods, at pick τ) while a deficit is still short. Every
 * candidate dropped would, in the full pass, have been picked after τ, freed (changing
 * no deficit), and then reprieved: putting it back leaves the deficits as they are and
 * the freed set still holds the picks up to τ, so the gang still fits (fits only grow
 * with what is freed). Dropping them changes no other decision: the forward pass stops
 * when the deficits are relieved, which only relieving candidates do; in the reprieve a
 * pick up to τ sees the same state as before (the dropped ones, picked later, were
 * already put back), and a pick after τ sees the same deficits and a gang that fits
 * either way. So the kept set, in pick order, is the same, without heaping, freeing and
 * re-occupying the rest (in B3, ~1,500 of ~1,600 candidates of a query with a deficit).
 */
function keepRelieving(size: u32): u32 {
  let kept: u32 = 0;
  for (let i: u32 = 0; i < size; i++) {
    const pos = load<u32>(orderAt(i));
    if (relievingBits(pos) != 0) store<u32>(orderAt(kept++), pos);
  }
  for (let i = <i32>(kept >>> 1) - 1; i >= 0; i--) siftDown(<u32>i, kept);
  return kept;
}

/**
 * Greedy then reprieve over the positions in ORDER[0..m), taken lazily off a heap in the
 * job order from criterion `from`, starting from nothing preempted. Leaves the kept set's
 * job indices, in pick order, at ORDER[n..n+return) and the state as after preempting
 * them; returns -1 when even all m do not suffice.
 */
function greedyPass(m: u32, from: u32): i32 {
  const n = candidateCount;
  let chosen: u32 = 0;
  let size = m;
  // Each position's key once, so the heap compares numbers instead of decoding the order.
  for (let i: u32 = 0; i < m; i++) {
    const pos = load<u32>(orderAt(i));
    keyWords = jobKey(jobOf(pos), from, keyAt(pos));
  }
  for (let i = <i32>(size >>> 1) - 1; i >= 0; i--) siftDown(<u32>i, size);
  let onlyRelieving = false;
  while (size > 0 && !feasible()) {
    if (!onlyRelieving && fitsSum >= podsWanted) {
      // The gang fits now and only deficits are short: from here on drop the candidates
      // that relieve none (`keepRelieving` says why that changes nothing).
      size = keepRelieving(size);
      onlyRelieving = true;
      if (size == 0) break;
    }
    const pos = load<u32>(orderAt(0));
    size--;
    store<u32>(orderAt(0), load<u32>(orderAt(size)));
    if (size > 1) siftDown(0, size);
    toggle(pos, true);
    store<u32>(orderAt(n + chosen), pos);
    chosen++;
  }
  if (!feasible()) return -1;
  // Reprieve, last taken first: put each victim back and keep it back if still feasible.
  const REPRIEVED: u32 = 0x80000000;
  for (let i = <i32>chosen - 1; i >= 0; i--) {
    const at = orderAt(n + <u32>i);
    const pos = load<u32>(at);
    toggle(pos, false);
    if (feasible()) store<u32>(at, pos | REPRIEVED);
    else toggle(pos, true);
  }
  let kept: u32 = 0;
  for (let i: u32 = 0; i < chosen; i++) {
    const pos = load<u32>(orderAt(n + i));
    if ((pos & REPRIEVED) != 0) continue;
    store<u32>(orderAt(n + kept), jobOf(pos));
    kept++;
  }
  return <i32>kept;
}

/** The cost of the job list at `list` into `cost`. */
function costOf(cost: usize, list: usize, len: u32): void {
  clearCost(cost);
  for (let i: u32 = 0; i < len; i++) addToCost(cost, load<u32>(list + (<usize>i << 2)));
}

/** Makes the job list at `list` this alternative's best set (its cost must be in COST_TRY). */
function keepAsBest(list: usize, len: u32): void {
  memory.copy(bestPtr(), list, <usize>len << 2);
  bestLen = len;
  copyCost(COST_BEST, COST_TRY);
}

/** True when the set at `list` (cost in COST_TRY) beats this alternative's best. */
function beatsBest(list: usize, len: u32): bool {
  const c = compareCosts(COST_TRY, COST_BEST);
  if (c != 0) return c < 0;
  return compareNames(list, len, bestPtr(), bestLen) < 0;
}

let searchSize: u32 = 0;

/**
 * Branch and bound over the deciding positions ORDER[0..searchSize) (worst first): at
 * depth i decide ORDER[i], excluding first. State: every undecided and included
 * candidate preempted; an exclusion that leaves the rest infeasible is pruned, and so
 * is an inclusion whose partial cost is already worse than the best (costs only grow).
 */
function branch(i: u32, depth: u32): void {
  if (visited >= SEARCH_BUDGET) {
    budgetHit = true;
    return;
  }
  visited++;
  const cost = COST_STACK + <usize>depth * COST_SIZE;
  if (i == searchSize) {
    copyCost(COST_TRY, cost);
    if (beatsBest(INCLUDED, depth)) keepAsBest(INCLUDED, depth);
    return;
  }
  const pos = load<u32>(orderAt(i));
  toggle(pos, false);
  if (feasible()) branch(i + 1, depth);
  toggle(pos, true);
  const next = cost + COST_SIZE;
  copyCost(next, cost);
  addToCost(next, jobOf(pos));
  if (compareCosts(next, COST_BEST) <= 0) {
    store<u32>(INCLUDED + (<usize>depth << 2), jobOf(pos));
    branch(i + 1, depth + 1);
  }
}

/**
 * The exact optimum over the `d` deciding positions in ORDER[0..d) (at most EXACT_LIMIT);
 * false when the search budget ran out first (the best found so far is kept).
 */
function exactSearch(d: u32): bool {
  // Worst first (insertion sort: d is small), so excluding first drops the costliest.
  for (let i: u32 = 1; i < d; i++) {
    const item = load<u32>(orderAt(i));
    let k = i;
    while (k > 0 && compareJobs(jobOf(load<u32>(orderAt(k - 1))), jobOf(item), 0) < 0) {
      store<u32>(orderAt(k), load<u32>(orderAt(k - 1)));
      k--;
    }
    store<u32>(orderAt(k), item);
  }
  resetSearch();
  for (let i: u32 = 0; i < d; i++) toggle(load<u32>(orderAt(i)), true);
  searchSize = d;
  clearCost(COST_STACK);
  visited = 0;
  budgetHit = false;
  branch(0, 0);
  return !budgetHit;
}

/** Sorts the job list at `list` into the job order (heapsort: the list may be long). */
function sortJobs(list: usize, len: u32): void {
  for (let i = <i32>(len >>> 1) - 1; i >= 0; i--) siftJobs(list, <u32>i, len);
  for (let end = len; end > 1; end--) {
    const last = list + (<usize>(end - 1) << 2);
    const top = load<u32>(list);
    store<u32>(list, load<u32>(last));
    store<u32>(last, top);
    siftJobs(list, 0, end - 1);
  }
}

/** Max-heap step for `sortJobs` (the largest goes last, so the list ends ascending). */
function siftJobs(list: usize, start: u32, size: u32): void {
  let i = start;
  const item = load<u32>(list + (<usize>i << 2));
  while (true) {
    let child: u32 = (i << 1) + 1;
    if (child >= size) break;
    let childItem = load<u32>(list + (<usize>child << 2));
    if (child + 1 < size) {
      const right = load<u32>(list + (<usize>(child + 1) << 2));
      if (compareJobs(right, childItem, 0) > 0) {
        child++;
        childItem = right;
      }
    }
    if (compareJobs(childItem, item, 0) <= 0) break;
    store<u32>(list + (<usize>i << 2), childItem);
    i = child;
  }
  store<u32>(list + (<usize>i << 2), item);
}

/**
 * This alternative's best set into bestPtr() (bestLen, COST_BEST): 1 when it is the
 * proven optimum, 0 when it is the heuristic's, -1 when no set of the candidates makes
 * room. Leaves nodes changed; the caller restores them.
 */
function searchAlternative(): i32 {
  resetSearch();
  bestLen = 0;
  clearCost(COST_BEST);
  if (feasible()) return 1;
  if (deficitsOutOfReach()) return -1;
  const candidates = candidateCount;
  for (let i: u32 = 0; i < candidates; i++) store<u32>(orderAt(i), i);
  const kept = greedyPass(candidates, 0);
  if (kept < 0) return -1;
  const first = orderAt(candidates);
  costOf(COST_TRY, first, <u32>kept);
  keepAsBest(first, <u32>kept);

  // The deciding candidates: those that alone are no worse than the greedy's set.
  let d: u32 = 0;
  for (let pos: u32 = 0; pos < candidates; pos++) {
    clearCost(COST_TRY);
    addToCost(COST_TRY, jobOf(pos));
    if (compareCosts(COST_TRY, COST_BEST) <= 0) store<u32>(orderAt(d++), pos);
  }
  if (d <= EXACT_LIMIT) return exactSearch(d) ? 1 : 0;
  resetSearch();
  const second = greedyPass(d, 1);
  costOf(COST_TRY, first, <u32>second);
  if (beatsBest(first, <u32>second)) keepAsBest(first, <u32>second);
  return 0;
}

/** Starts a query over alternatives: no best set yet. */
export function resetWinner(): void {
  victimCount = 0;
  winner = -1;
  winnerExact = false;
}

/**
 * Answers alternative `alternative` of the query set by `setRequest` and `setOrder`:
 * `candidates` entries in CANDIDATES, `constraints` in the header. When its best set
 * beats the query's best so far (criteria, then names, then `standing`: 0 in-quota
 * before 1 borrowing, then the earlier alternative), it becomes the answer: job indices
 * in OUT_VICTIMS (`victimCount`, job order), the placement in OUT_PODS. Returns
 * STATUS_NO_ROOM when this alternative has no set. The caller has begun the query
 * (fresh epoch); node state is restored before return. `hopeless` (more pods than any
 * cluster of this size holds) answers NO_ROOM once the inputs are checked.
 *
 * `alone` also answers what this alternative would answer on its own (as the only
 * alternative of a query): the status says whether its set is placed, and its set, in
 * job order, is left at OUT_VICTIMS[cap/2..) (`aloneCount` victims), for the caller to
 * read before the next alternative. A set that loses is then placed too, to know, over
 * OUT_PODS: the caller reads the answer's placement after the call that made it the
 * answer (HDR_OUT_ALTERNATIVE names it).
 */
export function selectVictims(
  pods: u32, candidates: u32, constraints: u32, hopeless: bool, alternative: u32, standing: u32, alone: bool,
): i32 {
  podsWanted = <i32>pods;
  constraintCount = constraints;
  candidateCount = candidates;
  bestLen = 0;
  if ((<u64>candidates << 1) > <u64>candidateCap) return STATUS_SCRATCH_TOO_SMALL;
  for (let i: u32 = 0; i < candidates; i++) {
    const j = jobOf(i);
    if (!jobLive(j)) return STATUS_BAD_CANDIDATE;
    const stamp = jobStampsPtr + (<usize>j << 2);
    if (load<u32>(stamp) == epoch) return STATUS_DUPLICATE_CANDIDATE;
    store<u32>(stamp, epoch);
  }
  for (let k: u32 = 0; k < constraints; k++) {
    const c = <usize>LAYOUT_BASE + HDR_CONSTRAINTS + <usize>k * CONSTRAINT_STRIDE;
    if (load<u32>(c + CONSTRAINT_RESOURCE) > RESOURCE_MEM) return STATUS_BAD_CONSTRAINT;
  }
  if (hopeless) return STATUS_NO_ROOM;
  // The search reads only fitsOf and the deficits: buckets stay as loaded (state.ts) and
  // follow again once every node is back, before the winner's placement below.
  setBucketsFollow(false);
  const found = searchAlternative();
  restoreNodes();
  setBucketsFollow(true);
  if (found < 0) {
    bestLen = 0;
    return STATUS_NO_ROOM;
  }
  const exact = found == 1;

  // Across alternatives: the better set wins; an exact tie goes to the better standing.
  let wins = true;
  if (winner >= 0) {
    let c = compareCosts(COST_BEST, COST_WINNER);
    if (c == 0) c = compareNames(bestPtr(), bestLen, outVictimsPtr, victimCount);
    wins = !(c > 0 || (c == 0 && standing >= winnerStanding));
  }
  if (!wins && !alone) return STATUS_OK;
  const best = bestPtr();
  // Freed in pick order, as the twin frees them (free cpu and memory are f64 sums).
  const placed = placeSet(best, bestLen, pods);
  // Job order: the answer's, and what `alone` leaves for the caller (names compare as sets).
  sortJobs(best, bestLen);
  // Only `alone` gets here with a losing set: OUT_PODS now holds its placement, so the
  // caller keeps the answer's placement from the call that made it the answer.
  if (!wins) return placed ? STATUS_OK : STATUS_NO_ROOM;
  if (!placed) return STATUS_NO_ROOM;
  memory.copy(outVictimsPtr, best, <usize>bestLen << 2);
  victimCount = bestLen;
  copyCost(COST_WINNER, COST_BEST);
  winner = <i32>alternative;
  winnerExact = exact;
  winnerStanding = standing;
  return STATUS_OK;
}

/** Places the gang (OUT_PODS) once the `len` jobs at `list` are preempted; node state is restored after. */
function placeSet(list: usize, len: u32, pods: u32): bool {
  resetSearch();
  for (let i: u32 = 0; i < len; i++) moveJob(load<u32>(list + (<usize>i << 2)), false);
  const placed = placeGang(pods);
  restoreNodes();
  return placed;
}

/** Victims of the last alternative on its own (`selectVictims` with `alone`), at OUT_VICTIMS[cap/2..). */
export function aloneCount(): u32 {
  return bestLen;
}
