// Victim selection (SEMANTICS 5.3): greedy in preference order until the gang is both
// admissible (every quota deficit relieved) and placeable, then a reprieve in reverse
// order drops every victim the request does not need. Feasibility is monotone in the
// freed set, so one reverse pass leaves a minimal set (invariant 4).
//
// Work per query: one pass over the pool for the fits sum, a heapify of the candidates,
// then per chosen victim log(C) plus its pods; the fits sum is kept up to date by
// re-evaluating only the node a freed or re-occupied pod sits on. Node state changes in
// place and `restoreNodes` puts it back before returning.

import {
  NODE_MASK, NODE_FREE_CPU, NODE_FREE_MEM,
  JOB_LOST_WORK, JOB_STARTED_AT, JOB_CPU_SUM, JOB_MEM_SUM, JOB_RANK, JOB_PRIORITY, JOB_GPUS,
  JOB_ORDER, JOB_POD_START, JOB_POD_COUNT, JOB_GPU_SUM, POD_NODE, POD_MASK, POD_CPU, POD_MEM,
  CANDIDATE_STRIDE, CANDIDATE_JOB, CANDIDATE_MASK, LAYOUT_BASE, HDR_CONSTRAINTS,
  HDR_DEFICITS, CONSTRAINT_STRIDE, CONSTRAINT_RESOURCE, CONSTRAINT_DEFICIT,
} from './layout';
import {
  nodeAt, jobAt, podAt, touchNode, restoreNodes, epoch, jobCount, jobStampsPtr,
  candidatesPtr, orderPtr, outVictimsPtr,
} from './state';
import { fitsOf, inRequestPool, poolFitsSum, placeGang } from './place';
import {
  STATUS_OK, STATUS_NO_ROOM, STATUS_BAD_CANDIDATE, STATUS_DUPLICATE_CANDIDATE,
  STATUS_BAD_CONSTRAINT,
} from './status';

const RESOURCE_GPU: u32 = 0;
const RESOURCE_CPU: u32 = 1;
const RESOURCE_MEM: u32 = 2;
/** Set on a chosen victim's entry once the reprieve has put it back. */
const REPRIEVED: u32 = 0x80000000;

/** Pods the request still needs room for, summed over the pool, as things stand now. */
let fitsSum: i32 = 0;
/** Constraints whose deficit is still > 0. */
let unsatisfied: i32 = 0;
let constraintCount: u32 = 0;
let podsWanted: i32 = 0;

/** Victims written by the last `selectVictims`. */
export let victimCount: u32 = 0;

@inline function candidateAt(pos: u32): usize {
  return candidatesPtr + <usize>pos * CANDIDATE_STRIDE;
}

@inline function deficitAt(k: u32): usize {
  return <usize>LAYOUT_BASE + HDR_DEFICITS + (<usize>k << 3);
}

@inline function feasible(): bool {
  return unsatisfied == 0 && fitsSum >= podsWanted;
}

/**
 * Preference order of candidate positions a and b (SEMANTICS 5.3): 1. rank (idle,
 * borrowing, in-quota) then priority, ascending; 2. lost work ascending; 3. GPUs
 * ascending; 5. start time descending, then name order; finally the candidate's
 * position, so the order is total even if two jobs shared a name position.
 */
function precedes(a: u32, b: u32): bool {
  const ja = jobAt(load<u32>(candidateAt(a) + CANDIDATE_JOB));
  const jb = jobAt(load<u32>(candidateAt(b) + CANDIDATE_JOB));
  const ra = load<i32>(ja + JOB_RANK), rb = load<i32>(jb + JOB_RANK);
  if (ra != rb) return ra < rb;
  const pa = load<i32>(ja + JOB_PRIORITY), pb = load<i32>(jb + JOB_PRIORITY);
  if (pa != pb) return pa < pb;
  const la = load<f64>(ja + JOB_LOST_WORK), lb = load<f64>(jb + JOB_LOST_WORK);
  if (la != lb) return la < lb;
  const ga = load<i32>(ja + JOB_GPUS), gb = load<i32>(jb + JOB_GPUS);
  if (ga != gb) return ga < gb;
  const sa = load<f64>(ja + JOB_STARTED_AT), sb = load<f64>(jb + JOB_STARTED_AT);
  if (sa != sb) return sa > sb;
  const oa = load<i32>(ja + JOB_ORDER), ob = load<i32>(jb + JOB_ORDER);
  if (oa != ob) return oa < ob;
  return a < b;
}

@inline function orderAt(i: u32): usize {
  return orderPtr + (<usize>i << 2);
}

/** Min-heap on `precedes` over ORDER[0..size): lets the greedy take candidates lazily. */
function siftDown(start: u32, size: u32): void {
  let i = start;
  const item = load<u32>(orderAt(i));
  while (true) {
    let child: u32 = (i << 1) + 1;
    if (child >= size) break;
    let childItem = load<u32>(orderAt(child));
    if (child + 1 < size) {
      const right = load<u32>(orderAt(child + 1));
      if (precedes(right, childItem)) {
        child++;
        childItem = right;
      }
    }
    if (!precedes(childItem, item)) break;
    store<u32>(orderAt(i), childItem);
    i = child;
  }
  store<u32>(orderAt(i), item);
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
    const node = nodeAt(n);
    const mask = load<u32>(pod + POD_MASK);
    if (occupy) {
      store<u32>(node + NODE_MASK, load<u32>(node + NODE_MASK) | mask);
      store<f64>(node + NODE_FREE_CPU, load<f64>(node + NODE_FREE_CPU) - load<f64>(pod + POD_CPU));
      store<f64>(node + NODE_FREE_MEM, load<f64>(node + NODE_FREE_MEM) - load<f64>(pod + POD_MEM));
    } else {
      store<u32>(node + NODE_MASK, load<u32>(node + NODE_MASK) & ~mask);
      store<f64>(node + NODE_FREE_CPU, load<f64>(node + NODE_FREE_CPU) + load<f64>(pod + POD_CPU));
      store<f64>(node + NODE_FREE_MEM, load<f64>(node + NODE_FREE_MEM) + load<f64>(pod + POD_MEM));
    }
    if (counted) fitsSum += fitsOf(n) - before;
  }
}

/** Applies (relieve) or takes back (!relieve) candidate `pos`'s contributions to the deficits. */
function relieveConstraints(pos: u32, relieve: bool): void {
  let bits = load<u32>(candidateAt(pos) + CANDIDATE_MASK);
  if (constraintCount < 32) bits &= (<u32>1 << constraintCount) - 1;
  if (bits == 0) return;
  const job = jobAt(load<u32>(candidateAt(pos) + CANDIDATE_JOB));
  while (bits != 0) {
    const k = ctz<u32>(bits);
    bits &= bits - 1;
    const resource = load<u32>(<usize>LAYOUT_BASE + HDR_CONSTRAINTS + <usize>k * CONSTRAINT_STRIDE + CONSTRAINT_RESOURCE);
    let amount: f64;
    if (resource == RESOURCE_GPU) amount = <f64>load<u32>(job + JOB_GPU_SUM);
    else if (resource == RESOURCE_CPU) amount = load<f64>(job + JOB_CPU_SUM);
    else amount = load<f64>(job + JOB_MEM_SUM);
    const at = deficitAt(k);
    const d = load<f64>(at);
    const next = relieve ? d - amount : d + amount;
    store<f64>(at, next);
    unsatisfied += <i32>(next > 0) - <i32>(d > 0);
  }
}

/**
 * Answers one victim query for the request set by `setRequest`: `candidates` entries in
 * CANDIDATES, `constraints` in the header. On STATUS_OK the victims' job indices are in
 * OUT_VICTIMS (`victimCount` of them, preference order) and the placement in OUT_PODS.
 * The caller has begun the query (fresh epoch); node state is restored before return.
 * `hopeless` (more pods than any cluster of this size holds) answers NO_ROOM once the
 * inputs are checked, so input errors are reported the same either way.
 */
export function selectVictims(pods: u32, candidates: u32, constraints: u32, hopeless: bool): i32 {
  victimCount = 0;
  podsWanted = <i32>pods;
  constraintCount = constraints;
  for (let i: u32 = 0; i < candidates; i++) {
    const j = load<u32>(candidateAt(i) + CANDIDATE_JOB);
    if (j >= jobCount) return STATUS_BAD_CANDIDATE;
    const stamp = jobStampsPtr + (<usize>j << 2);
    if (load<u32>(stamp) == epoch) return STATUS_DUPLICATE_CANDIDATE;
    store<u32>(stamp, epoch);
    store<u32>(orderAt(i), i);
  }
  unsatisfied = 0;
  for (let k: u32 = 0; k < constraints; k++) {
    const c = <usize>LAYOUT_BASE + HDR_CONSTRAINTS + <usize>k * CONSTRAINT_STRIDE;
    if (load<u32>(c + CONSTRAINT_RESOURCE) > RESOURCE_MEM) return STATUS_BAD_CONSTRAINT;
    const d = load<f64>(c + CONSTRAINT_DEFICIT);
    store<f64>(deficitAt(k), d);
    if (d > 0) unsatisfied++;
  }
  if (hopeless) return STATUS_NO_ROOM;
  fitsSum = poolFitsSum();

  // Greedy: take candidates in preference order, lazily, off a min-heap.
  let chosen: u32 = 0;
  if (!feasible()) {
    let size = candidates;
    for (let i = <i32>(size >>> 1) - 1; i >= 0; i--) siftDown(<u32>i, size);
    while (size > 0 && !feasible()) {
      const pos = load<u32>(orderAt(0));
      size--;
      store<u32>(orderAt(0), load<u32>(orderAt(size)));
      if (size > 1) siftDown(0, size);
      moveJob(load<u32>(candidateAt(pos) + CANDIDATE_JOB), false);
      relieveConstraints(pos, true);
      store<u32>(outVictimsPtr + (<usize>chosen << 2), pos);
      chosen++;
    }
    if (!feasible()) {
      restoreNodes();
      return STATUS_NO_ROOM;
    }
  }

  // Reprieve, newest first: put each victim back and keep it back if still feasible.
  for (let i = <i32>chosen - 1; i >= 0; i--) {
    const at = outVictimsPtr + (<usize>i << 2);
    const pos = load<u32>(at);
    const j = load<u32>(candidateAt(pos) + CANDIDATE_JOB);
    moveJob(j, true);
    relieveConstraints(pos, false);
    if (feasible()) {
      store<u32>(at, pos | REPRIEVED);
    } else {
      moveJob(j, false);
      relieveConstraints(pos, true);
    }
  }

  const placed = placeGang(pods);
  restoreNodes();
  if (!placed) return STATUS_NO_ROOM;
  let kept: u32 = 0;
  for (let i: u32 = 0; i < chosen; i++) {
    const pos = load<u32>(outVictimsPtr + (<usize>i << 2));
    if ((pos & REPRIEVED) != 0) continue;
    store<u32>(outVictimsPtr + (<usize>kept << 2), load<u32>(candidateAt(pos) + CANDIDATE_JOB));
    kept++;
  }
  victimCount = kept;
  return STATUS_OK;
}
