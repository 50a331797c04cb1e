// The loaded snapshot's sizes, its region pointers, and the undo log that lets a query
// change node state in place and put it back exactly. Invariant: between queries the
// node records hold exactly what JS wrote at load plus the permanent changes of addJob
// and removeJob (outside any query, so outside the undo log).

import {
  NODE_STRIDE, NODE_MASK, NODE_GPUS, NODE_FREE_CPU, NODE_FREE_MEM, NODE_POOL,
  JOB_STRIDE, JOB_CPU_SUM, JOB_MEM_SUM, JOB_POD_START, JOB_POD_COUNT, JOB_GPU_SUM,
  JOB_FLAGS, JOB_REMOVED,
  POD_STRIDE, POD_NODE, POD_MASK, POD_CPU, POD_MEM, POD_MILLI, SHARE_STRIDE, MILLI_PER_GPU,
  UNDO_STRIDE, UNDO_NODE, UNDO_MASK, UNDO_FREE_CPU, UNDO_FREE_MEM, UNDO_SHARES,
  REGION_NODES, REGION_SHARES, REGION_JOBS, REGION_PODS, REGION_POOL_STARTS, REGION_POOL_NODES,
  REGION_NODE_STAMPS, REGION_JOB_STAMPS, REGION_HEAP, REGION_UNDO, REGION_CANDIDATES,
  REGION_ORDER, REGION_OUT_VICTIMS, REGION_OUT_PODS, REGION_KEYS, REGION_END, MAX_NODES, REGION_FRAG_CACHE,
  FRAG_STRIDE, FRAG_BEFORE, FRAG_VERSION,
  computeRegions, regionStart,
} from './layout';
import { fullMask } from './bitmap';
import { cacheBucketPointers, buildBuckets, moveNode } from './buckets';

export let nodeCount: u32 = 0;
export let jobCount: u32 = 0;
export let podCount: u32 = 0;
export let poolCount: u32 = 0;
export let candidateCap: u32 = 0;
export let podCap: u32 = 0;
/** Job slots and pod-store slots laid out: addJob writes past the counts, up to these. */
export let jobCap: u32 = 0;
export let podStoreCap: u32 = 0;
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
export let keysPtr: usize = 0;
export let sharesPtr: usize = 0;
/** Per node (FRAG_STRIDE): its fragmentation + 1 under the current workload (0 = not known), and its version (fragmentation.ts). */
export let fragCachePtr: usize = 0;

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
  keysPtr = regionStart(REGION_KEYS);
  sharesPtr = regionStart(REGION_SHARES);
  fragCachePtr = regionStart(REGION_FRAG_CACHE);
  cacheBucketPointers(nodeCount);
}

/** Grows linear memory so that bytes [0, end) exist; false when the engine refuses. */
export function ensureMemory(end: usize): bool {
  const have = (<usize>memory.size()) << 16;
  if (end <= have) return true;
  const pages = (end - have + 0xffff) >>> 16;
  return memory.grow(<i32>pages) >= 0;
}

/**
 * Lays out regions for these node and pool counts and these capacities (job slots, pod
 * store, scratch), growing memory to hold them. With the loaded snapshot's node and pool
 * counts and capacities that still hold its jobs and pods, the state stays loaded: node
 * records and jobs never move, PODS is moved to its new start, job stamps are cleared.
 * Otherwise the snapshot must be written again and committed.
 */
export function reserveRegions(
  nodes: u32, jobs: u32, podStore: u32, pools: u32, candidates: u32, outPods: u32,
): bool {
  if (nodes > MAX_NODES) return false;
  const keep = loaded && nodes == nodeCount && pools == poolCount && jobs >= jobCount && podStore >= podCount;
  const oldPods = podsPtr;
  computeRegions(nodes, jobs, podStore, pools, candidates, outPods);
  // The rank memo lives past REGION_END, which may move: it is laid out again before use.
  rankMemoReady = false;
  if (!ensureMemory(regionStart(REGION_END))) {
    // Put the previous layout back so a loaded state stays addressable.
    computeRegions(nodeCount, jobCap, podStoreCap, poolCount, candidateCap, podCap);
    return false;
  }
  if (!keep) {
    loaded = false;
    jobCount = 0;
    podCount = 0;
  }
  nodeCount = nodes;
  jobCap = jobs;
  podStoreCap = podStore;
  poolCount = pools;
  candidateCap = candidates;
  podCap = outPods;
  cachePointers();
  if (keep) {
    // memory.copy is a memmove: the new PODS may overlap the old one.
    if (podsPtr != oldPods) memory.copy(podsPtr, oldPods, <usize>podCount * POD_STRIDE);
    memory.fill(jobStampsPtr, 0, <usize>jobCap << 2);
  }
  return true;
}

/**
 * Derives what the kernel keeps beside the raw snapshot: nodes grouped by pool (counting
 * sort, so each pool lists its nodes in ascending index order) and each job's freed sums.
 * Returns false when a node's pool or a pod's node is out of range.
 */
export function commitState(jobs: u32, pods: u32): bool {
  loaded = false;
  if (jobs > jobCap || pods > podStoreCap) return false;
  jobCount = jobs;
  podCount = pods;
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
  buildBuckets(nodeCount, poolCount, nodesPtr, poolNodesPtr);
  memory.fill(sharesPtr, 0, <usize>nodeCount * SHARE_STRIDE);
  forgetFragmentation();

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
      const n = load<u32>(pod + POD_NODE);
      if (n >= nodeCount) return false;
      const mask = load<u32>(pod + POD_MASK);
      const milli = load<u32>(pod + POD_MILLI);
      if (milli > 0) {
        // JS wrote the node's mask with this GPU's bit set; the slot sums the shares.
        if (milli >= MILLI_PER_GPU || popcnt<u32>(mask) != 1) return false;
        const slot = shareAt(n, ctz<u32>(mask));
        const sum = <u32>load<u16>(slot) + milli;
        if (sum > MILLI_PER_GPU) return false;
        store<u16>(slot, <u16>sum);
      }
      gpus += podMilli(mask, milli);
      cpu += load<f64>(pod + POD_CPU);
      mem += load<f64>(pod + POD_MEM);
    }
    store<f64>(job + JOB_CPU_SUM, cpu);
    store<f64>(job + JOB_MEM_SUM, mem);
    store<u32>(job + JOB_GPU_SUM, gpus);
    store<u32>(job + JOB_FLAGS, 0);
  }
  memory.fill(nodeStampsPtr, 0, <usize>nodeCount << 2);
  memory.fill(jobStampsPtr, 0, <usize>jobCap << 2);
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
    memory.fill(jobStampsPtr, 0, <usize>jobCap << 2);
    epoch = 1;
  }
  undoCount = 0;
}

/**
 * A node's SHARES record (SHARE_STRIDE bytes) from `src` to `dst` by 64-bit words:
 * V8 runs `memory.copy` as a call out of the wasm code.
 */
@inline function copyShares(dst: usize, src: usize): void {
  for (let at: usize = 0; at < <usize>SHARE_STRIDE; at += 8) store<u64>(dst + at, load<u64>(src + at));
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
    copyShares(entry + UNDO_SHARES, shareAt(n, 0));
    undoCount++;
  }
}

/** Ends a query: every node it touched gets back its loaded record, bit for bit. */
export function restoreNodes(): void {
  for (let i: u32 = 0; i < undoCount; i++) {
    const entry = undoPtr + <usize>i * UNDO_STRIDE;
    const n = load<u32>(entry + UNDO_NODE);
    const node = nodeAt(n);
    setNodeMask(n, load<u32>(entry + UNDO_MASK));
    store<f64>(node + NODE_FREE_CPU, load<f64>(entry + UNDO_FREE_CPU));
    store<f64>(node + NODE_FREE_MEM, load<f64>(entry + UNDO_FREE_MEM));
    copyShares(shareAt(n, 0), entry + UNDO_SHARES);
  }
  undoCount = 0;
}

/** Address of node `n`'s record. */
@inline export function nodeAt(n: u32): usize {
  return nodesPtr + <usize>n * NODE_STRIDE;
}

/** Address of node `n`'s SHARES slot for GPU `g` (u16 milli-GPUs used by sharing pods). */
@inline export function shareAt(n: u32, g: u32): usize {
  return sharesPtr + <usize>n * SHARE_STRIDE + (<usize>g << 1);
}

/** Milli-GPUs a pod holds: its share, or 1000 per GPU of its mask. */
@inline export function podMilli(mask: u32, milli: u32): u32 {
  return milli > 0 ? milli : popcnt<u32>(mask) * MILLI_PER_GPU;
}

/** Address of job `j`'s record. */
@inline export function jobAt(j: u32): usize {
  return jobsPtr + <usize>j * JOB_STRIDE;
}

/** Address of pod `i`'s record. */
@inline export function podAt(i: u32): usize {
  return podsPtr + <usize>i * POD_STRIDE;
}

/**
 * The one way node `n`'s GPU mask changes (queries, undo, addJob, removeJob), so that
 * whatever the kernel derives from masks can follow every change. Every change of a
 * node's shares or free cpu and memory goes through it too (with the mask unchanged when
 * only those move), so it is also where the node's cached fragmentation is dropped.
 */
@inline export function setNodeMask(n: u32, mask: u32): void {
  const node = nodeAt(n);
  // Every change of a node (mask, shares, cpu: each path sets the mask too) drops its
  // cached fragmentation and bumps its version (which outdates its memoized ranks),
  // whether or not buckets follow.
  const frag = fragCachePtr + <usize>n * FRAG_STRIDE;
  store<f64>(frag + FRAG_BEFORE, 0);
  const version = load<u32>(frag + FRAG_VERSION) + 1;
  store<u32>(frag + FRAG_VERSION, version == 0 ? 1 : version);
  // After 2^32 changes of one node its version comes round again: clear the whole memo.
  if (version == 0) rankMemoReady = false;
  if (bucketsFollow) moveNode(n, node, load<u32>(node + NODE_MASK), mask);
  store<u32>(node + NODE_MASK, mask);
}

/**
 * Drops every node's cached fragmentation and every memoized rank (a new snapshot or a
 * new workload). Versions restart at 1: the memo is cleared (to version 0) before its
 * next use, so no memo entry can match a node again.
 */
export function forgetFragmentation(): void {
  for (let n: u32 = 0; n < nodeCount; n++) {
    const frag = fragCachePtr + <usize>n * FRAG_STRIDE;
    store<f64>(frag + FRAG_BEFORE, 0);
    store<u32>(frag + FRAG_VERSION, 1);
  }
  rankMemoReady = false;
}

/**
 * Whether the rank memo past REGION_END (fragmentation.ts) is laid out for the current
 * regions and holds nothing stale. False after every `reserveRegions` (REGION_END may
 * move) and `forgetFragmentation`.
 */
export let rankMemoReady: bool = false;

/** Marks the rank memo laid out and cleared (fragmentation.ts `prepareRankMemo`). */
export function setRankMemoReady(): void {
  rankMemoReady = true;
}

/**
 * Whether `setNodeMask` moves nodes between buckets. A victim search (victims.ts) turns
 * it off while it frees and re-occupies candidates: it reads only `fitsOf`, never the
 * buckets, and `restoreNodes` undoes every change it made in the same mode, so the
 * buckets keep describing the loaded state and no change pays for two bucket moves.
 * Invariant: it is turned back on only when every node holds its loaded mask (the undo
 * log restored), and before anything that reads the buckets (placeGang, poolFitsSum
 * after a change).
 */
let bucketsFollow: bool = true;

/** Turns bucket maintenance on or off (see `bucketsFollow`). */
export function setBucketsFollow(on: bool): void {
  bucketsFollow = on;
}

/**
 * Puts pod `i` of the pod store onto its node (occupy) or takes it off: its GPUs, cpu
 * and memory. The caller logs the node first (`touchNode`) when the change is a query's.
 */
export function applyPod(i: u32, occupy: bool): void {
  const pod = podAt(i);
  const n = load<u32>(pod + POD_NODE);
  const node = nodeAt(n);
  const mask = load<u32>(pod + POD_MASK);
  const milli = load<u32>(pod + POD_MILLI);
  if (milli > 0) {
    // A share: the slot follows the pods; the bit stays set while any share remains.
    const slot = shareAt(n, ctz<u32>(mask));
    const left = occupy ? <u32>load<u16>(slot) + milli : <u32>load<u16>(slot) - milli;
    store<u16>(slot, <u16>left);
    const used = load<u32>(node + NODE_MASK);
    setNodeMask(n, left > 0 ? used | mask : used & ~mask);
    const sign: f64 = occupy ? -1 : 1;
    store<f64>(node + NODE_FREE_CPU, load<f64>(node + NODE_FREE_CPU) + sign * load<f64>(pod + POD_CPU));
    store<f64>(node + NODE_FREE_MEM, load<f64>(node + NODE_FREE_MEM) + sign * load<f64>(pod + POD_MEM));
    return;
  }
  if (occupy) {
    setNodeMask(n, load<u32>(node + NODE_MASK) | mask);
    store<f64>(node + NODE_FREE_CPU, load<f64>(node + NODE_FREE_CPU) - load<f64>(pod + POD_CPU));
    store<f64>(node + NODE_FREE_MEM, load<f64>(node + NODE_FREE_MEM) - load<f64>(pod + POD_MEM));
  } else {
    setNodeMask(n, load<u32>(node + NODE_MASK) & ~mask);
    store<f64>(node + NODE_FREE_CPU, load<f64>(node + NODE_FREE_CPU) + load<f64>(pod + POD_CPU));
    store<f64>(node + NODE_FREE_MEM, load<f64>(node + NODE_FREE_MEM) + load<f64>(pod + POD_MEM));
  }
}

/** True when job `j` is a live job of the snapshot (in range and not removed). */
export function jobLive(j: u32): bool {
  return j < jobCount && (load<u32>(jobAt(j) + JOB_FLAGS) & JOB_REMOVED) == 0;
}

/**
 * Adds the job JS wrote at slot `jobCount` (its pods at PODS[podCount..], podStart and
 * podCount set) as a running job, permanently: its pods occupy their nodes. Fails, and
 * changes nothing, when a pod names a node out of range or a GPU the node lacks or that
 * is already held. Returns the new job's index, or -1 on failure.
 */
export function addJobState(): i32 {
  if (!loaded || jobCount >= jobCap) return -1;
  const job = jobAt(jobCount);
  const first = load<u32>(job + JOB_POD_START);
  const count = load<u32>(job + JOB_POD_COUNT);
  if (first != podCount || <u64>first + count > <u64>podStoreCap) return -1;
  let cpu: f64 = 0;
  let mem: f64 = 0;
  let gpus: u32 = 0;
  for (let i = first; i < first + count; i++) {
    const pod = podAt(i);
    const n = load<u32>(pod + POD_NODE);
    const mask = load<u32>(pod + POD_MASK);
    const milli = load<u32>(pod + POD_MILLI);
    let bad = n >= nodeCount;
    if (!bad) {
      const node = nodeAt(n);
      bad = (mask & ~fullMask(load<u32>(node + NODE_GPUS))) != 0;
      if (!bad && milli > 0) {
        // A share goes on a free GPU or one other shares hold, up to 1000 milli in all.
        const share = <u32>load<u16>(shareAt(n, ctz<u32>(mask)));
        bad = milli >= MILLI_PER_GPU || popcnt<u32>(mask) != 1 || share + milli > MILLI_PER_GPU
          || (share == 0 && (mask & load<u32>(node + NODE_MASK)) != 0);
      } else if (!bad) {
        bad = (mask & load<u32>(node + NODE_MASK)) != 0;
      }
    }
    if (bad) {
      // Take back the pods already placed: the snapshot is as before the call.
      for (let k = i; k > first; k--) applyPod(k - 1, false);
      return -1;
    }
    applyPod(i, true);
    gpus += podMilli(mask, milli);
    cpu += load<f64>(pod + POD_CPU);
    mem += load<f64>(pod + POD_MEM);
  }
  store<f64>(job + JOB_CPU_SUM, cpu);
  store<f64>(job + JOB_MEM_SUM, mem);
  store<u32>(job + JOB_GPU_SUM, gpus);
  store<u32>(job + JOB_FLAGS, 0);
  store<u32>(jobStampsPtr + (<usize>jobCount << 2), 0);
  podCount += count;
  return <i32>(jobCount++);
}

/** Frees every pod of live job `j`, permanently, and marks it removed; false when `j` is not live. */
export function removeJobState(j: u32): bool {
  if (!loaded || !jobLive(j)) return false;
  const job = jobAt(j);
  const first = load<u32>(job + JOB_POD_START);
  const end = first + load<u32>(job + JOB_POD_COUNT);
  for (let i = first; i < end; i++) applyPod(i, false);
  store<u32>(job + JOB_FLAGS, JOB_REMOVED);
  return true;
}
