// Gang placement (SEMANTICS 5.4, invariant 8): pods go one by one onto nodes of the
// request's pool only; binpack takes the fitting node with the fewest free GPUs, spread
// the one with the most; among those a node offering a free aligned block of the pod's
// size (a power of two) comes first, then the lowest index. When only free GPUs limit
// the pod (no cpu, memory, model or strict constraint) the free-GPU buckets answer each
// pod in time independent of the node count (buckets.ts), and binpack reads them
// without changing a node, so it has nothing to undo. Otherwise a min-heap keyed
// (rank, unaligned, node) yields the node; only the chosen node changes after a pod, so
// only it is re-keyed, and a placement costs one pass over the pool plus P·log(nodes).
//
// One room, read whole (past the ~500 lines a file is otherwise split at): every way of
// placing (buckets, heap, fragmentation, shared GPUs) reads the one request that
// `setRequest` keeps in module state, so the hot helpers take one argument, and
// `placeGang` chooses among them by that request. Split by way, the request would become
// mutable globals exported across files, and the choice could not be read beside what it
// chooses. The parts that stand alone have their rooms: buckets.ts, fragmentation.ts,
// bitmap.ts, state.ts.

import {
  NODE_MASK, NODE_GPUS, NODE_FREE_CPU, NODE_FREE_MEM, NODE_POOL, NODE_MODEL, NODE_INDEX_BITS,
  OUT_POD_STRIDE, OUT_POD_NODE, OUT_POD_MASK, LAYOUT_BASE, HDR_REQ_MODELS, HDR_OUT_FREE,
  HDR_OUT_LARGEST, HDR_OUT_FITS, HDR_REQ_MILLI, MILLI_PER_GPU,
} from './layout';
import { freeMaskOf, isPowerOfTwo, freeBlockStarts, lowestBits, blockMask } from './bitmap';
import {
  nodeAt, touchNode, heapPtr, poolStartsPtr, poolNodesPtr, poolCount, outPodsPtr, setNodeMask, shareAt,
} from './state';
import { bestSlot, bucketFitsSum, firstOfLevels, freeCountsOf, levelsOf } from './buckets';
import { rankOf, memoColumn, shareGpu } from './fragmentation';

/** Strategy codes of `place` and `selectVictims` (src/kernel/validate.ts PLACEMENT_STRATEGIES). */
export const STRATEGY_SPREAD: i32 = 1;
export const STRATEGY_FRAGMENTATION: i32 = 2;

/** The request being answered; set by `setRequest` so the hot helpers take one argument. */
let reqGpu: u32 = 1;
let reqCpu: f64 = 0;
let reqMem: f64 = 0;
let reqPool: u32 = 0;
let reqSpread: bool = false;
/** Place by fragmentation (FGD): fragmentation.ts scores each fitting node. */
let reqFragmentation: bool = false;
let reqStrict: bool = false;
/** g is a power of two: GPU fits is a shift, not a division (which costs ~25 cycles a node). */
let reqPow2: bool = true;
let reqShift: u32 = 0;
/** cpu or memory asked: only then does fits need the floating-point path. */
let reqLimited: bool = false;
/** Allowed GPU models, bit m = model m; 0 = any (read from HDR_REQ_MODELS per query). */
let reqModels: u32 = 0;
/** The pod's share of one GPU in milli (1..999), 0 for whole GPUs (HDR_REQ_MILLI per query). */
let reqMilli: u32 = 0;

const INDEX_MASK: u32 = (<u32>1 << NODE_INDEX_BITS) - 1;

/**
 * Records the request the next `fitsOf`/`placeGang` calls answer. The allowed-models
 * mask comes from the header (HDR_REQ_MODELS), which JS writes before every query.
 */
export function setRequest(gpu: u32, cpu: f64, mem: f64, pool: u32, strategy: i32, strict: bool): void {
  reqModels = load<u32>(<usize>LAYOUT_BASE + HDR_REQ_MODELS);
  reqMilli = load<u32>(<usize>LAYOUT_BASE + HDR_REQ_MILLI);
  reqGpu = gpu;
  reqCpu = cpu;
  reqMem = mem;
  reqPool = pool;
  reqSpread = strategy == STRATEGY_SPREAD;
  reqFragmentation = strategy == STRATEGY_FRAGMENTATION;
  reqStrict = strict;
  reqPow2 = isPowerOfTwo(gpu);
  reqShift = ctz<u32>(gpu);
  reqLimited = cpu > 0 || mem > 0;
}

/** True when node `n` is in the request's pool (pools are never mixed). */
@inline export function inRequestPool(n: u32): bool {
  return load<u32>(nodeAt(n) + NODE_POOL) == reqPool;
}

/** True when node `n`'s GPU model is one the request allows (mask 0 allows every model). */
@inline function modelAllowed(n: u32): bool {
  return reqModels == 0 || ((reqModels >>> load<u32>(nodeAt(n) + NODE_MODEL)) & 1) != 0;
}

/**
 * How many more pods of the request's shape node `n` takes: the least of its GPU fits
 * (aligned free blocks under strict topology, else free GPUs / g), cpu fits and memory
 * fits. Placing one pod lowers it by exactly one, which keeps the fits sum exact.
 */
@inline export function fitsOf(n: u32): i32 {
  if (!modelAllowed(n)) return 0;
  const node = nodeAt(n);
  const gpus = load<u32>(node + NODE_GPUS);
  const g = reqGpu;
  const free = freeMaskOf(load<u32>(node + NODE_MASK), gpus);
  let gpuFits: u32;
  if (reqMilli > 0) {
    gpuFits = shareFits(n, gpus, free);
  } else if (reqStrict && reqPow2 && g <= gpus) {
    gpuFits = popcnt<u32>(freeBlockStarts(free, g));
  } else {
    gpuFits = reqPow2 ? popcnt<u32>(free) >>> reqShift : popcnt<u32>(free) / g;
  }
  if (!reqLimited) return <i32>gpuFits;
  let f = <f64>gpuFits;
  if (reqCpu > 0) f = Math.min(f, Math.floor(load<f64>(node + NODE_FREE_CPU) / reqCpu));
  if (reqMem > 0) f = Math.min(f, Math.floor(load<f64>(node + NODE_FREE_MEM) / reqMem));
  // `!(f >= 1)` also turns a NaN into "does not fit".
  if (!(f >= 1)) return 0;
  return <i32>f;
}

/**
 * Pods of the request's share node `n` takes on its GPUs: on each GPU sharing pods
 * already use, ⌊room / milli⌋; on each free GPU, ⌊1000 / milli⌋. Placing one pod (on a
 * GPU where one fits) lowers it by exactly one.
 */
function shareFits(n: u32, gpus: u32, free: u32): u32 {
  const m = reqMilli;
  let fits = popcnt<u32>(free) * (MILLI_PER_GPU / m);
  for (let g: u32 = 0; g < gpus; g++) {
    const used = <u32>load<u16>(shareAt(n, g));
    if (used > 0) fits += (MILLI_PER_GPU - used) / m;
  }
  return fits;
}

/** Milli-GPUs node `n` has left for sharing pods: free GPUs whole, plus the room on shared ones. */
function freeMilli(n: u32): u32 {
  const node = nodeAt(n);
  const gpus = load<u32>(node + NODE_GPUS);
  let left = popcnt<u32>(freeMaskOf(load<u32>(node + NODE_MASK), gpus)) * MILLI_PER_GPU;
  for (let g: u32 = 0; g < gpus; g++) {
    const used = <u32>load<u16>(shareAt(n, g));
    if (used > 0) left += MILLI_PER_GPU - used;
  }
  return left;
}

/**
 * The GPU a share goes to on node `n` (which fits one): binpack the shared GPU with the
 * least room that still holds it, else the lowest free GPU; spread the lowest free GPU,
 * else the shared GPU with the most room. Ties go to the lowest index.
 */
function chooseShareGpu(n: u32): u32 {
  const node = nodeAt(n);
  const gpus = load<u32>(node + NODE_GPUS);
  const free = freeMaskOf(load<u32>(node + NODE_MASK), gpus);
  if (reqSpread && free != 0) return ctz<u32>(free);
  let best: i32 = -1;
  let bestRoom: u32 = 0;
  for (let g: u32 = 0; g < gpus; g++) {
    const used = <u32>load<u16>(shareAt(n, g));
    if (used == 0) continue;
    const room = MILLI_PER_GPU - used;
    if (room < reqMilli) continue;
    if (best < 0 || (reqSpread ? room > bestRoom : room < bestRoom)) {
      best = <i32>g;
      bestRoom = room;
    }
  }
  if (best >= 0) return <u32>best;
  return ctz<u32>(free);
}

/**
 * How many pods of the current request the pool's nodes [from, to) could take in all,
 * each node counted alone (`fitsOf`): every pod placed uses up at least one of them, so
 * fewer than the gang's pods is the pod-by-pod placers' early refusal.
 */
function poolFits(from: u32, to: u32): u32 {
  let sum: u32 = 0;
  for (let i = from; i < to; i++) sum += <u32>fitsOf(load<u32>(poolNodesPtr + (<usize>i << 2)));
  return sum;
}

/**
 * placeGang for a share of one GPU: pod by pod, one pass over the pool's nodes keeps the
 * fitting node binpack ranks first (fewest milli-GPUs left), spread last (most), ties to
 * the lowest index; the pod takes `chooseShareGpu`'s GPU. Shares are small gangs, so a
 * pass per pod is fine; the buckets count whole free GPUs and cannot rank shares.
 */
function placeShares(pods: u32, from: u32, to: u32): bool {
  if (poolFits(from, to) < pods) return false;
  for (let p: u32 = 0; p < pods; p++) {
    let best: i32 = -1;
    let bestLeft: u32 = 0;
    for (let i = from; i < to; i++) {
      const n = load<u32>(poolNodesPtr + (<usize>i << 2));
      if (fitsOf(n) <= 0) continue;
      const left = freeMilli(n);
      if (best < 0 || (reqSpread ? left > bestLeft : left < bestLeft)) {
        best = <i32>n;
        bestLeft = left;
      }
    }
    if (best < 0) return false;
    placeShareOn(p, <u32>best, chooseShareGpu(<u32>best));
  }
  return true;
}

/** Pod `p` takes the request's share of GPU `g` on node `n`: into SHARES, the mask, OUT_PODS. */
function placeShareOn(p: u32, n: u32, g: u32): void {
  // The undo entry is taken before the share changes (touchNode is once per node and query).
  touchNode(n);
  const slot = shareAt(n, g);
  store<u16>(slot, <u16>(<u32>load<u16>(slot) + reqMilli));
  // The rest (mask, cpu, memory, the pod's answer) is what a whole-GPU pod does with one GPU.
  placeWholeOn(p, n, <u32>1 << g);
}

/** Free GPUs of node `n` now. */
@inline function freeCount(n: u32): u32 {
  const node = nodeAt(n);
  return popcnt<u32>(freeMaskOf(load<u32>(node + NODE_MASK), load<u32>(node + NODE_GPUS)));
}

/**
 * True when fits is just free / g: no strict topology, no cpu or memory asked, g a power
 * of two, any GPU model. The scans then take a branch-free path (the common case, and B2's).
 */
@inline function plainShape(): bool {
  return !reqStrict && !reqLimited && reqPow2 && reqModels == 0 && reqMilli == 0;
}

/**
 * True when a node's fits depend on its free GPU count alone (no strict topology, no cpu
 * or memory asked, any model): the buckets then answer without a scan.
 */
@inline function bucketShape(): bool {
  return !reqStrict && !reqLimited && reqModels == 0 && reqMilli == 0;
}

/** Sum of fits over the request's pool: the gang is placeable iff it is ≥ P. */
export function poolFitsSum(): i32 {
  if (reqPool >= poolCount) return 0;
  if (bucketShape()) return <i32>bucketFitsSum(reqPool, reqGpu);
  const from = load<u32>(poolStartsPtr + (<usize>reqPool << 2));
  const to = load<u32>(poolStartsPtr + ((<usize>reqPool + 1) << 2));
  let sum: i32 = 0;
  if (plainShape()) {
    const shift = reqShift;
    for (let i = from; i < to; i++) sum += <i32>(freeCount(load<u32>(poolNodesPtr + (<usize>i << 2))) >>> shift);
  } else {
    for (let i = from; i < to; i++) sum += fitsOf(load<u32>(poolNodesPtr + (<usize>i << 2)));
  }
  return sum;
}

/** 1 when the pod's size is a power of two and node `n` has no free aligned block of it. */
@inline function unaligned(n: u32): u32 {
  if (!reqPow2) return 0;
  const node = nodeAt(n);
  return freeBlockStarts(freeMaskOf(load<u32>(node + NODE_MASK), load<u32>(node + NODE_GPUS)), reqGpu) == 0 ? 1 : 0;
}

/**
 * Heap key of a node with `free` free GPUs: smaller = preferred (fewest free for
 * binpack, most for spread; then aligned before unaligned; then the lowest index).
 */
@inline function keyOf(n: u32, free: u32): u32 {
  const rank = reqSpread ? 32 - free : free;
  return (rank << (NODE_INDEX_BITS + 1)) | (unaligned(n) << NODE_INDEX_BITS) | n;
}

@inline function heapAt(i: u32): usize {
  return heapPtr + (<usize>i << 2);
}

function siftDown(start: u32, size: u32): void {
  let i = start;
  const key = load<u32>(heapAt(i));
  while (true) {
    let child: u32 = (i << 1) + 1;
    if (child >= size) break;
    let childKey = load<u32>(heapAt(child));
    if (child + 1 < size) {
      const rightKey = load<u32>(heapAt(child + 1));
      if (rightKey < childKey) {
        child++;
        childKey = rightKey;
      }
    }
    if (childKey >= key) break;
    store<u32>(heapAt(i), childKey);
    i = child;
  }
  store<u32>(heapAt(i), key);
}

/**
 * GPUs for one pod on node `n`: the lowest fully free aligned block when the shape is
 * aligned and one exists, else (never under strict, where fits guaranteed a block) the
 * g lowest free GPUs.
 */
@inline function chooseGpus(n: u32): u32 {
  const node = nodeAt(n);
  const gpus = load<u32>(node + NODE_GPUS);
  return gpusFrom(freeMaskOf(load<u32>(node + NODE_MASK), gpus), gpus);
}

/** `chooseGpus` for a node with `gpus` GPUs of which `free` are free. */
@inline function gpusFrom(free: u32, gpus: u32): u32 {
  const g = reqGpu;
  if (g <= gpus && isPowerOfTwo(g)) {
    const starts = freeBlockStarts(free, g);
    if (starts != 0) return blockMask(ctz<u32>(starts), g);
  }
  return lowestBits(free, g);
}

/**
 * placeGang for a bucket shape: binpack walks the buckets without changing a node
 * (`binpackByBuckets`); spread, whose next node can be one it already used, looks each
 * pod's node up and moves only that node between buckets (setNodeMask). No cpu or
 * memory is asked, so free cpu and memory stay as they are.
 */
function placeByBuckets(pods: u32, from: u32, to: u32): bool {
  if (bucketFitsSum(reqPool, reqGpu) < pods) return false;
  if (!reqSpread) return binpackByBuckets(pods, from, to);
  const need: u32 = reqPow2 ? reqShift + 1 : 0;
  for (let p: u32 = 0; p < pods; p++) {
    const slot = bestSlot(reqPool, from, to, reqGpu, reqSpread, need);
    if (slot < 0) return false;
    const n = load<u32>(poolNodesPtr + (<usize>slot << 2));
    const gpusMask = chooseGpus(n);
    touchNode(n);
    setNodeMask(n, load<u32>(nodeAt(n) + NODE_MASK) | gpusMask);
    const out = outPodsPtr + <usize>p * OUT_POD_STRIDE;
    store<u32>(out + OUT_POD_NODE, n);
    store<u32>(out + OUT_POD_MASK, gpusMask);
  }
  return true;
}

/**
 * placeByBuckets under binpack, read-only: the pods `bestSlot` would pick one by one,
 * without moving any node between buckets (nor logging it for undo). Binpack takes the
 * fewest free GPUs f ≥ g; the node that takes a pod then has f − g free, and no node had
 * free in [g, f), so while f − g ≥ g it is the one fewest again and takes the next pod
 * too. Once it has fewer than g free it never fits again, and the next pod's node is the
 * next of the walk over the buckets as they stand: f ascending, each f's aligned levels
 * before its unaligned ones (SEMANTICS 5.4), slots ascending within each. Only OUT_PODS is
 * written. The fits sum was checked (≥ pods), so the walk places every pod.
 */
function binpackByBuckets(pods: u32, from: u32, to: u32): bool {
  const need: u32 = reqPow2 ? reqShift + 1 : 0;
  let p: u32 = 0;
  let fm = freeCountsOf(reqPool) & (~(<u64>0) << <u64>reqGpu);
  while (fm != 0) {
    const f = <u32>ctz<u64>(fm);
    fm &= fm - 1;
    const levels = levelsOf(reqPool, f);
    const aligned = need > 0 ? levels & (~(<u32>0) << need) : levels;
    p = fillNodesOf(f, aligned, p, pods, from, to);
    if (p < pods && need > 0) p = fillNodesOf(f, levels & ~aligned, p, pods, from, to);
    if (p == pods) return true;
  }
  return false;
}

/**
 * For `binpackByBuckets`: the nodes of bucket f's levels `levels` in slot order, each
 * taking pods while it has g free, from pod `p` up to `pods`. Returns the next pod.
 */
function fillNodesOf(f: u32, levels: u32, p: u32, pods: u32, from: u32, to: u32): u32 {
  if (levels == 0) return p;
  const g = reqGpu;
  let cursor = from;
  while (p < pods) {
    const slot = firstOfLevels(f, levels, cursor, to);
    if (slot < 0) break;
    cursor = <u32>slot + 1;
    const n = load<u32>(poolNodesPtr + (<usize>slot << 2));
    const node = nodeAt(n);
    const gpus = load<u32>(node + NODE_GPUS);
    let free = freeMaskOf(load<u32>(node + NODE_MASK), gpus);
    while (p < pods && popcnt<u32>(free) >= g) {
      const mask = gpusFrom(free, gpus);
      free &= ~mask;
      const out = outPodsPtr + <usize>p * OUT_POD_STRIDE;
      store<u32>(out + OUT_POD_NODE, n);
      store<u32>(out + OUT_POD_MASK, mask);
      p++;
    }
  }
  return p;
}

/**
 * Places `pods` pods of the current request, writing one (node, mask) per pod to
 * OUT_PODS and changing node state in place (the caller restores it). Returns false when
 * the pool lacks room; then nothing useful is in OUT_PODS.
 */
export function placeGang(pods: u32): bool {
  if (pods == 0) return true;
  if (reqPool >= poolCount) return false;
  const from = load<u32>(poolStartsPtr + (<usize>reqPool << 2));
  const to = load<u32>(poolStartsPtr + ((<usize>reqPool + 1) << 2));
  if (reqFragmentation) return placeByFragmentation(pods, from, to);
  if (bucketShape()) return placeByBuckets(pods, from, to);
  if (reqMilli > 0) return placeShares(pods, from, to);
  let sum: u32 = 0;
  let size: u32 = 0;
  if (plainShape()) {
    const shift = reqShift;
    for (let i = from; i < to; i++) {
      const n = load<u32>(poolNodesPtr + (<usize>i << 2));
      const free = freeCount(n);
      const f = free >>> shift;
      if (f > 0) {
        sum += f;
        store<u32>(heapAt(size++), keyOf(n, free));
      }
    }
  } else {
    for (let i = from; i < to; i++) {
      const n = load<u32>(poolNodesPtr + (<usize>i << 2));
      const f = fitsOf(n);
      if (f > 0) {
        sum += <u32>f;
        store<u32>(heapAt(size++), keyOf(n, freeCount(n)));
      }
    }
  }
  if (sum < pods) return false;
  for (let i = <i32>(size >>> 1) - 1; i >= 0; i--) siftDown(<u32>i, size);

  for (let p: u32 = 0; p < pods; p++) {
    if (size == 0) return false;
    const n = load<u32>(heapAt(0)) & INDEX_MASK;
    placeWholeOn(p, n, chooseGpus(n));
    // Only node n changed: re-key it in place, or drop it once it takes no more pods.
    if (fitsOf(n) > 0) {
      store<u32>(heapAt(0), keyOf(n, freeCount(n)));
    } else {
      size--;
      store<u32>(heapAt(0), load<u32>(heapAt(size)));
    }
    if (size > 1) siftDown(0, size);
  }
  return true;
}

/**
 * Room for the request on free capacity, without placing (SEMANTICS 5.4's fragmentation):
 * over the pool's nodes of an allowed model, the free GPUs, the most free on one node,
 * and the sum of fits. Written to the header's HDR_OUT_FREE / _LARGEST / _FITS.
 */
export function poolRoom(): void {
  let free: u32 = 0;
  let largest: u32 = 0;
  let fits: u32 = 0;
  if (reqPool < poolCount) {
    const from = load<u32>(poolStartsPtr + (<usize>reqPool << 2));
    const to = load<u32>(poolStartsPtr + ((<usize>reqPool + 1) << 2));
    for (let i = from; i < to; i++) {
      const n = load<u32>(poolNodesPtr + (<usize>i << 2));
      if (!modelAllowed(n)) continue;
      const f = freeCount(n);
      free += f;
      if (f > largest) largest = f;
      fits += <u32>fitsOf(n);
    }
  }
  store<u32>(<usize>LAYOUT_BASE + HDR_OUT_FREE, free);
  store<u32>(<usize>LAYOUT_BASE + HDR_OUT_LARGEST, largest);
  store<u32>(<usize>LAYOUT_BASE + HDR_OUT_FITS, fits);
}

/**
 * placeByFragmentation (FGD): pod by pod, one pass over the pool ranks every fitting
 * node by fragmentation.ts (growth of fragmentation plus a pull toward packing; a node's
 * fragmentation, and its rank for a workload shape, are kept until the node changes)
 * and takes the least rank, then the lowest index. A share goes on the GPU `rankShare` chose; whole GPUs on
 * `chooseGpus`'s, since every free GPU is alike to the measure. Fits drop by one per pod
 * placed, so a fits sum ≥ pods guarantees every pod a node.
 */
function placeByFragmentation(pods: u32, from: u32, to: u32): bool {
  // The early refusal of a gang; one pod that fits nowhere finds no node below (no pass for it).
  if (pods > 1 && poolFits(from, to) < pods) return false;
  const column = memoColumn(reqGpu, reqMilli, reqCpu);
  for (let p: u32 = 0; p < pods; p++) {
    let best: i32 = -1;
    let bestGpu: u32 = 0;
    let bestKey: f64 = 0;
    for (let i = from; i < to; i++) {
      const n = load<u32>(poolNodesPtr + (<usize>i << 2));
      if (fitsOf(n) <= 0) continue;
      const key = rankOf(n, reqGpu, reqMilli, reqCpu, reqMem, column);
      if (best < 0 || key < bestKey) {
        best = <i32>n;
        bestGpu = shareGpu;
        bestKey = key;
      }
    }
    if (best < 0) return false;
    const n = <u32>best;
    if (reqMilli > 0) placeShareOn(p, n, bestGpu);
    else placeWholeOn(p, n, chooseGpus(n));
  }
  return true;
}

/** Pod `p` takes the GPUs of `mask` on node `n` whole, with the request's cpu and memory; into OUT_PODS. */
function placeWholeOn(p: u32, n: u32, mask: u32): void {
  touchNode(n);
  const node = nodeAt(n);
  setNodeMask(n, load<u32>(node + NODE_MASK) | mask);
  store<f64>(node + NODE_FREE_CPU, load<f64>(node + NODE_FREE_CPU) - reqCpu);
  store<f64>(node + NODE_FREE_MEM, load<f64>(node + NODE_FREE_MEM) - reqMem);
  const out = outPodsPtr + <usize>p * OUT_POD_STRIDE;
  store<u32>(out + OUT_POD_NODE, n);
  store<u32>(out + OUT_POD_MASK, mask);
}
