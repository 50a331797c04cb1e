// The kernel's wasm ABI, and nothing else: numbers in, a status code out, results in the
// output regions of linear memory (see layout.ts). JS loads a snapshot with
//   reserve(capacities) → write NODES / JOBS / PODS through typed views → commit(jobs, pods)
// and then asks queries that pass only request fields and counts; candidate and
// constraint lists, and the allowed-models mask, go into scratch and the header first.
// Between queries, addJob/removeJob change the loaded state permanently (a simulation
// starting and ending jobs). No strings cross the boundary.

import {
  HDR_OUT_POD_COUNT, HDR_OUT_VICTIM_COUNT, HDR_OUT_ALTERNATIVE, HDR_OUT_EXACT, HDR_REQ_MILLI, LAYOUT_BASE, MAX_CONSTRAINTS,
  MILLI_PER_GPU, REGION_COUNT, regionStart,
} from './layout';
import {
  reserveRegions, commitState, beginQuery, restoreNodes, loaded, nodeCount, podCap, candidateCap,
  addJobState, removeJobState,
} from './state';
import { setRequest, placeGang, poolRoom } from './place';
import { selectVictims as chooseVictims, resetWinner, victimCount, winner, winnerExact, aloneCount as bestCount } from './victims';
import { workloadTable, useShapes, fragmentationOf, prepareRankMemo } from './fragmentation';
import { setOrder, validOrder } from './criteria';
import {
  STATUS_OK, STATUS_NO_ROOM, STATUS_NOT_LOADED, STATUS_SCRATCH_TOO_SMALL, STATUS_OUT_OF_MEMORY,
  STATUS_BAD_SNAPSHOT, STATUS_BAD_REQUEST, STATUS_BAD_ORDER, STATUS_BAD_JOB,
} from './status';

export * from './status';
export {
  CRITERION_PRIORITY, CRITERION_LOST_WORK, CRITERION_GPUS, CRITERION_COUNT, CRITERION_RECENCY,
  CRITERIA_COUNT, ORDER_BITS, DEFAULT_ORDER, LOST_WORK_SCALE,
} from './criteria';
export { EXACT_LIMIT, SEARCH_BUDGET } from './victims';
export { MAX_SHAPES, SHAPE_STRIDE, SHAPE_GPU, SHAPE_MILLI, SHAPE_MODELS, SHAPE_CPU, SHAPE_WEIGHT, SHAPE_MEM, LEFT_WEIGHT, CPU_PER_MILLI } from './fragmentation';
export {
  LAYOUT_BASE, HEADER_SIZE, HDR_OUT_POD_COUNT, HDR_OUT_VICTIM_COUNT, HDR_REGIONS, HDR_CONSTRAINTS,
  HDR_OUT_ALTERNATIVE, HDR_OUT_EXACT, HDR_DEFICITS, MAX_CONSTRAINTS, HDR_REQ_MODELS, HDR_OUT_FREE,
  HDR_OUT_LARGEST, HDR_OUT_FITS, HDR_REQ_MILLI, NODE_STRIDE, NODE_MASK, NODE_GPUS, NODE_FREE_CPU, NODE_FREE_MEM,
  NODE_POOL, NODE_MODEL, JOB_STRIDE, JOB_LOST_WORK, JOB_STARTED_AT, JOB_CPU_SUM, JOB_MEM_SUM, JOB_RANK,
  JOB_PRIORITY, JOB_GPUS, JOB_ORDER, JOB_POD_START, JOB_POD_COUNT, JOB_GPU_SUM, JOB_FLAGS, JOB_REMOVED,
  POD_STRIDE,
  POD_NODE, POD_MASK, POD_CPU, POD_MEM, POD_MILLI, SHARE_STRIDE, MILLI_PER_GPU, UNDO_STRIDE, UNDO_NODE, UNDO_MASK,
  UNDO_FREE_CPU, UNDO_FREE_MEM, UNDO_SHARES, REGION_SHARES, REGION_FRAG_CACHE, FRAG_STRIDE, FRAG_BEFORE, FRAG_VERSION, CONSTRAINT_STRIDE, CONSTRAINT_RESOURCE, CONSTRAINT_DEFICIT, CANDIDATE_STRIDE,
  CANDIDATE_JOB, CANDIDATE_MASK, KEY_STRIDE, OUT_POD_STRIDE, OUT_POD_NODE, OUT_POD_MASK, NODE_INDEX_BITS,
  MAX_NODES, REGION_NODES, REGION_JOBS, REGION_PODS, REGION_POOL_STARTS, REGION_POOL_NODES,
  REGION_NODE_STAMPS, REGION_JOB_STAMPS, REGION_HEAP, REGION_UNDO, REGION_CANDIDATES,
  REGION_ORDER, REGION_OUT_VICTIMS, REGION_OUT_PODS, REGION_KEYS, REGION_END, REGION_COUNT, REGION_NODE_SLOTS,
  REGION_BUCKET_COUNTS, REGION_FREE_MASKS, REGION_LEVEL_MASKS, REGION_BUCKET_BITS, REGION_BUCKET_SUMMARY,
  LEVELS, BUCKETS,
} from './layout';

/** Each node takes at most 32 pods of any shape, so a bigger gang cannot fit at all. */
const MAX_PODS_PER_NODE: u64 = 32;

let calls: u32 = 0;

/** Victims of the last alternative on its own, after `selectVictims` with `alone`. */
export function aloneCount(): u32 {
  return bestCount();
}

/** Queries answered (place + selectVictims; room is not counted): lets a test prove the wasm path ran. */
export function callCount(): u32 {
  return calls;
}

/** Where JS writes the fragmentation strategy's typical pod shapes (fragmentation.ts; static, never moves). */
export function workloadPtr(): u32 {
  return <u32>workloadTable();
}

/** The fragmentation strategy scores against the first `count` shapes of the table from now on. */
export function setWorkload(count: u32): i32 {
  return useShapes(count) ? STATUS_OK : STATUS_BAD_REQUEST;
}

/**
 * Node `n`'s fragmentation under the last workload set: the cached value (−1 when none
 * is cached) when `fromCache` is 1, else computed afresh (the cache untouched); −1 for a
 * node out of range. For the test that holds the cache to fresh values after every change.
 */
export function fragmentationScore(n: u32, fromCache: u32): f64 {
  if (!loaded || n >= nodeCount) return -1;
  return fragmentationOf(n, fromCache != 0);
}

/**
 * Makes room past the regions for the fragmentation strategy's memo of ranks
 * (fragmentation.ts), growing memory when needed: JS calls it before each fragmentation
 * query and re-makes its views if memory grew. 1 when the memo is on; 0 when memory
 * could not grow (placements are the same, only slower).
 */
export function prepareMemo(): u32 {
  return loaded && prepareRankMemo() ? 1 : 0;
}

/** Does nothing: the benchmark's measure of one JS → wasm → JS round trip. */
export function noop(): i32 {
  return STATUS_OK;
}

/** End of AssemblyScript's static data; must stay at or below LAYOUT_BASE. */
export function heapBase(): u32 {
  return <u32>__heap_base;
}

/** Start of region `r` (REGION_*), as laid out by the last successful `reserve`. */
export function regionOffset(r: i32): u32 {
  if (r < 0 || r >= REGION_COUNT) return 0;
  return <u32>regionStart(r);
}

/**
 * Lays out memory for `nodes` nodes in `pools` pools, `jobs` job slots, a pod store of
 * `podStore` pods and scratch of these capacities, growing memory as needed. New node or
 * pool counts invalidate the loaded state until `commit`; bigger capacities keep it.
 */
export function reserve(nodes: u32, jobs: u32, podStore: u32, pools: u32, candidates: u32, outPods: u32): i32 {
  return reserveRegions(nodes, jobs, podStore, pools, candidates, outPods) ? STATUS_OK : STATUS_OUT_OF_MEMORY;
}

/** Called once JS has written NODES and the first `jobs` JOBS and `pods` PODS: derives pool lists and job sums. */
export function commit(jobs: u32, pods: u32): i32 {
  return commitState(jobs, pods) ? STATUS_OK : STATUS_BAD_SNAPSHOT;
}

/**
 * Adds the running job JS wrote at the next job slot (pods at the end of the pod store)
 * permanently. Returns its index (≥ 0), or −STATUS_BAD_JOB when a pod names a missing
 * node or GPU, or a GPU already held (nothing changes then), −STATUS_NOT_LOADED without
 * a snapshot.
 */
export function addJob(): i32 {
  if (!loaded) return -STATUS_NOT_LOADED;
  const j = addJobState();
  return j < 0 ? -STATUS_BAD_JOB : j;
}

/** Frees job `j`'s pods permanently and retires its index; STATUS_BAD_JOB unless `j` is live. */
export function removeJob(j: u32): i32 {
  if (!loaded) return STATUS_NOT_LOADED;
  return removeJobState(j) ? STATUS_OK : STATUS_BAD_JOB;
}

/**
 * Room for a pod shape on free capacity (free GPUs, most on one node, pods that fit) over
 * the pool's nodes of an allowed model, into the header's HDR_OUT_* slots.
 */
export function room(gpu: u32, cpu: f64, mem: f64, pool: u32, strict: i32): i32 {
  if (!loaded) return STATUS_NOT_LOADED;
  if (gpu < 1 || gpu > 32 || badShare(gpu)) return STATUS_BAD_REQUEST;
  setRequest(gpu, cpu, mem, pool, 0, strict != 0);
  poolRoom();
  return STATUS_OK;
}

/** A share (HDR_REQ_MILLI 1..999) is of one GPU; 1000 or more is not a share. */
function badShare(gpu: u32): bool {
  const milli = load<u32>(<usize>LAYOUT_BASE + HDR_REQ_MILLI);
  return milli >= MILLI_PER_GPU || (milli > 0 && gpu != 1);
}

function checkRequest(pods: u32, gpu: u32): i32 {
  if (!loaded) return STATUS_NOT_LOADED;
  if (gpu < 1 || gpu > 32 || badShare(gpu)) return STATUS_BAD_REQUEST;
  if (<u64>pods > <u64>nodeCount * MAX_PODS_PER_NODE) return STATUS_OK;
  if (pods > podCap) return STATUS_SCRATCH_TOO_SMALL;
  return STATUS_OK;
}

/**
 * Places a gang on free capacity. strategy: 0 binpack, 1 spread, 2 fragmentation (the
 * workload set by setWorkload). On STATUS_OK the header's
 * HDR_OUT_POD_COUNT pods are in OUT_PODS. The loaded state is unchanged afterwards.
 */
export function place(pods: u32, gpu: u32, cpu: f64, mem: f64, pool: u32, strategy: i32, strict: i32): i32 {
  calls++;
  store<u32>(<usize>LAYOUT_BASE + HDR_OUT_POD_COUNT, 0);
  const status = checkRequest(pods, gpu);
  if (status != STATUS_OK) return status;
  if (<u64>pods > <u64>nodeCount * MAX_PODS_PER_NODE) return STATUS_NO_ROOM;
  beginQuery();
  setRequest(gpu, cpu, mem, pool, strategy, strict != 0);
  const placed = placeGang(pods);
  restoreNodes();
  if (!placed) return STATUS_NO_ROOM;
  store<u32>(<usize>LAYOUT_BASE + HDR_OUT_POD_COUNT, pods);
  return STATUS_OK;
}

/**
 * Answers alternative `alternative` (0, 1, ... in the caller's order) of one victim query:
 * a minimal set among the `candidates` in CANDIDATES that relieves every one of the
 * `constraints` in the header and lets the gang be placed, best by the victim `order`
 * (criteria.ts). Alternative 0 starts the query; each later one replaces the answer only
 * when its set is better (an exact tie goes to the lower `standing`: 0 in-quota, 1
 * borrowing). After the last call the header holds the answer: HDR_OUT_ALTERNATIVE (-1
 * when no alternative has a set), HDR_OUT_EXACT, and the counts of OUT_VICTIMS and
 * OUT_PODS. Returns STATUS_NO_ROOM when this alternative has no set.
 *
 * `alone` != 0: the status is instead what this alternative would answer as the only
 * one (OK when its set is placed), and `aloneCount()` victims at OUT_VICTIMS[cap/2..)
 * are its set, in job order, until the next call (victims.ts).
 */
export function selectVictims(
  pods: u32, gpu: u32, cpu: f64, mem: f64, pool: u32, strategy: i32, strict: i32,
  candidates: u32, constraints: u32, order: u32, alternative: u32, standing: u32, alone: i32,
): i32 {
  calls++;
  if (alternative == 0) {
    resetWinner();
    store<u32>(<usize>LAYOUT_BASE + HDR_OUT_POD_COUNT, 0);
    store<u32>(<usize>LAYOUT_BASE + HDR_OUT_VICTIM_COUNT, 0);
    store<i32>(<usize>LAYOUT_BASE + HDR_OUT_ALTERNATIVE, -1);
    store<u32>(<usize>LAYOUT_BASE + HDR_OUT_EXACT, 0);
  }
  const status = checkRequest(pods, gpu);
  if (status != STATUS_OK) return status;
  if (constraints > MAX_CONSTRAINTS) return STATUS_BAD_REQUEST;
  if (!validOrder(order)) return STATUS_BAD_ORDER;
  if (candidates > candidateCap) return STATUS_SCRATCH_TOO_SMALL;
  beginQuery();
  setRequest(gpu, cpu, mem, pool, strategy, strict != 0);
  setOrder(order);
  const hopeless = <u64>pods > <u64>nodeCount * MAX_PODS_PER_NODE;
  const answer = chooseVictims(hopeless ? 0 : pods, candidates, constraints, hopeless, alternative, standing, alone != 0);
  if (answer != STATUS_OK && answer != STATUS_NO_ROOM) return answer;
  if (winner >= 0) {
    store<u32>(<usize>LAYOUT_BASE + HDR_OUT_POD_COUNT, pods);
    store<u32>(<usize>LAYOUT_BASE + HDR_OUT_VICTIM_COUNT, victimCount);
    store<i32>(<usize>LAYOUT_BASE + HDR_OUT_ALTERNATIVE, winner);
    store<u32>(<usize>LAYOUT_BASE + HDR_OUT_EXACT, winnerExact ? 1 : 0);
  }
  return answer;
}
