// The loaded snapshot's sizes, its region pointers, and the undo log that lets a query
// change node state in place and put it back exactly. Invariant: between queries the
// node records hold exactly what JS wrote at load.

import {
  NODE_STRIDE, NODE_MASK, NODE_FREE_CPU, NODE_FREE_MEM, NODE_POOL,
  JOB_STRIDE, JOB_CPU_SUM, JOB_MEM_SUM, JOB_POD_START, JOB_POD_COUNT, JOB_GPU_SUM,
  POD_STRIDE, POD_NODE, POD_MASK, POD_CPU, POD_MEM,
  UNDO_STRIDE, UNDO_NODE, UNDO_MASK, UNDO_FREE_CPU, UNDO_FREE_MEM,
  REGION_NODES, REGION_JOBS, REGION_PODS, REGION_POOL_STARTS, REGION_POOL_NODES,
  REGION_NODE_STAMPS, REGION_JOB_STAMPS, REGION_HEAP, REGION_UNDO, REGION_CANDIDATES,
  REGION_ORDER, REGION_OUT_VICTIMS, REGION_OUT_PODS, REGION_END, MAX_NODES,
  computeRegions, regionStart,
} from './layout';

export let nodeCount: u32 = 0;
export let jobCount: u32 = 0;
export let podCount: u32 = 0;
export let poolCount: u32 = 0;
export let candidateCap: u32 = 0;
export let podCap: u32 = 0;
/** False from `reserve` until a successful `commit`: queries refuse to run meanwhile. */
export let loaded: bool = false;

export let nodesPtr: usize = 0;
export let jobsPtr: usize = 0;
export let podsPtr: usize = 0;
export let poolStartsPtr: usize = 0;
export let poolNodesPtr: usize = 0;
export let nodeStampsPtr: usize = 0;
export let jobStampsPtr: usize = 0;
export let heapPtr: usize = 0;
export let undoPtr: usize = 0;
export let candidatesPtr: usize = 0;
export let orderPtr: usize = 0;
export let outVictimsPtr: usize = 0;
export let outPodsPtr: usize = 0;

/** Current query's epoch: a node/job stamped with it was already seen this query. */
export let epoch: u32 = 0;
let undoCount: u32 = 0;

function cachePointers(): void {
  nodesPtr = regionStart(REGION_NODES);
  jobsPtr = regionStart(REGION_JOBS);
  podsPtr = regionStart(REGION_PODS);
  poolStartsPtr = regionStart(REGION_POOL_STARTS);
  poolNodesPtr = regionStart(REGION_POOL_NODES);
  nodeStampsPtr = regionStart(REGION_NODE_STAMPS);
  jobStampsPtr = regionStart(REGION_JOB_STAMPS);
  heapPtr = regionStart(REGION_HEAP);
  undoPtr = regionStart(REGION_UNDO);
  candidatesPtr = regionStart(REGION_CANDIDATES);
  orderPtr = regionStart(REGION_ORDER);
  outVictimsPtr = regionStart(REGION_OUT_VICTIMS);
  outPodsPtr = regionStart(REGION_OUT_PODS);
}

/** Grows linear memory so that bytes [0, end) exist; false when the engine refuses. */
function ensureMemory(end: usize): bool {
  const have = (<usize>memory.size()) << 16;
  if (end <= have) return true;
  const pages = (end - have + 0xffff) >>> 16;
  return memory.grow(<i32>pages) >= 0;
}

/**
 * Lays out regions for the given sizes and grows memory to hold them. With the same
 * counts as the loaded snapshot it only resizes scratch and the state stays loaded;
 * with new counts the snapshot must be written again and committed.
 */
export function reserveRegions(
  nodes: u32, jobs: u32, pods: u32, pools: u32, candidates: u32, outPods: u32,
): bool {
  if (nodes > MAX_NODES) return false;
  const sameState = nodes == nodeCount && jobs == jobCount && pods == podCount && pools == poolCount;
  computeRegions(nodes, jobs, pods, pools, candidates, outPods);
  if (!ensureMemory(regionStart(REGION_END))) {
    // Put the previous layout back so a loaded state stays addressable.
    computeRegions(nodeCount, jobCount, podCount, poolCount, candidateCap, podCap);
    return false;
  }
  if (!sameState) loaded = false;
  nodeCount = nodes;
  jobCount = jobs;
  podCount = pods;
  poolCount = pools;
  candidateCap = candidates;
  podCap = outPods;
  cachePointers();
  return true;
}

/**
 * Derives what the kernel keeps beside the raw snapshot: nodes grouped by pool (counting
 * sort, so each pool lists its nodes in ascending index order) and each job's freed sums.
 * Returns false when a node's pool or a pod's node is out of range.
 */
export function commitState(): bool {
  loaded = false;
  const starts = poolStartsPtr;
  memory.fill(starts, 0, (<usize>poolCount + 1) << 2);
  for (let n: u32 = 0; n < nodeCount; n++) {
    const pool = load<u32>(nodesPtr + <usize>n * NODE_STRIDE + NODE_POOL);
    if (pool >= poolCount) return false;
    const at = starts + ((<usize>pool + 1) << 2);
    store<u32>(at, load<u32>(at) + 1);
  }
  for (let p: u32 = 0; p < poolCount; p++) {
    const at = starts + ((<usize>p + 1) << 2);
    store<u32>(at, load<u32>(at) + load<u32>(at - 4));
  }
  // starts[p] is now pool p's first slot; use it as p's cursor while filling.
  for (let n: u32 = 0; n < nodeCount; n++) {
    const pool = load<u32>(nodesPtr + <usize>n * NODE_STRIDE + NODE_POOL);
    const at = starts + (<usize>pool << 2);
    const slot = load<u32>(at);
    store<u32>(poolNodesPtr + (<usize>slot << 2), n);
    store<u32>(at, slot + 1);
  }
  // Each start now holds its pool's end; shift right by one pool to restore the starts.
  for (let p = <i32>poolCount; p > 0; p--) {
    store<u32>(starts + (<usize>p << 2), load<u32>(starts + (<usize>(p - 1) << 2)));
  }
  store<u32>(starts, 0);

  for (let j: u32 = 0; j < jobCount; j++) {
    const job = jobsPtr + <usize>j * JOB_STRIDE;
    const first = load<u32>(job + JOB_POD_START);
    const count = load<u32>(job + JOB_POD_COUNT);
    if (<u64>first + count > <u64>podCount) return false;
    let cpu: f64 = 0;
    let mem: f64 = 0;
    let gpus: u32 = 0;
    for (let i = first; i < first + count; i++) {
      const pod = podsPtr + <usize>i * POD_STRIDE;
      if (load<u32>(pod + POD_NODE) >= nodeCount) return false;
      gpus += popcnt<u32>(load<u32>(pod + POD_MASK));
      cpu += load<f64>(pod + POD_CPU);
      mem += load<f64>(pod + POD_MEM);
    }
    store<f64>(job + JOB_CPU_SUM, cpu);
    store<f64>(job + JOB_MEM_SUM, mem);
    store<u32>(job + JOB_GPU_SUM, gpus);
  }
  memory.fill(nodeStampsPtr, 0, <usize>nodeCount << 2);
  memory.fill(jobStampsPtr, 0, <usize>jobCount << 2);
  epoch = 0;
  loaded = true;
  return true;
}

/** Starts a query: a fresh epoch and an empty undo log. */
export function beginQuery(): void {
  epoch++;
  if (epoch == 0) {
    // Wrapped after 2^32 queries: old stamps could collide with the new epochs.
    memory.fill(nodeStampsPtr, 0, <usize>nodeCount << 2);
    memory.fill(jobStampsPtr, 0, <usize>jobCount << 2);
    epoch = 1;
  }
  undoCount = 0;
}

/** Saves node `n` as loaded before its first change in this query. */
@inline export function touchNode(n: u32): void {
  const stamp = nodeStampsPtr + (<usize>n << 2);
  if (load<u32>(stamp) != epoch) {
    store<u32>(stamp, epoch);
    const node = nodesPtr + <usize>n * NODE_STRIDE;
    const entry = undoPtr + <usize>undoCount * UNDO_STRIDE;
    store<u32>(entry + UNDO_NODE, n);
    store<u32>(entry + UNDO_MASK, load<u32>(node + NODE_MASK));
    store<f64>(entry + UNDO_FREE_CPU, load<f64>(node + NODE_FREE_CPU));
    store<f64>(entry + UNDO_FREE_MEM, load<f64>(node + NODE_FREE_MEM));
    undoCount++;
  }
}

/** Ends a query: every node it touched gets back its loaded record, bit for bit. */
export function restoreNodes(): void {
  for (let i: u32 = 0; i < undoCount; i++) {
    const entry = undoPtr + <usize>i * UNDO_STRIDE;
    const node = nodesPtr + <usize>load<u32>(entry + UNDO_NODE) * NODE_STRIDE;
    store<u32>(node + NODE_MASK, load<u32>(entry + UNDO_MASK));
    store<f64>(node + NODE_FREE_CPU, load<f64>(entry + UNDO_FREE_CPU));
    store<f64>(node + NODE_FREE_MEM, load<f64>(entry + UNDO_FREE_MEM));
  }
  undoCount = 0;
}

/** Address of node `n`'s record. */
@inline export function nodeAt(n: u32): usize {
  return nodesPtr + <usize>n * NODE_STRIDE;
}

/** Address of job `j`'s record. */
@inline export function jobAt(j: u32): usize {
  return jobsPtr + <usize>j * JOB_STRIDE;
}

/** Address of pod `i`'s record. */
@inline export function podAt(i: u32): usize {
  return podsPtr + <usize>i * POD_STRIDE;
}
