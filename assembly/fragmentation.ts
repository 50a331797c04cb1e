// Fragmentation as the FGD paper measures it (Weng et al., ATC '23), the score the
// `fragmentation` strategy places by; src/kernel/fragmentation.ts is its definition and
// the twin's copy. For one node and one typical pod shape s, in milli-GPUs: a cpu-only
// shape, or one whose models exclude the node's, cannot use any free milli (all count);
// a shape that fits (s.gpu GPUs with ≥ s.milli left, s.cpu free, and s.mem free when it
// asks memory) cannot use the milli on GPUs with less than s.milli left; a shape that
// does not fit can use none.
// The node's fragmentation is Σ weight(s) · term(s).
//
// How the kernel computes it (the twin scans every GPU for every shape; this gives the
// same integers): with W the sum of all weights and `usable(m)` the milli left on GPUs
// with at least m left, fragmentation = W · total − Σ over shapes s that fit of
// weight(s) · usable(s.milli). The node's per-GPU room sorted in descending order makes
// `usable` and "fits" a prefix: walking the GPU shapes by descending milli, the prefix
// of GPUs with room ≥ milli only grows, so a node costs one pass over the shapes plus
// one over its GPUs (`evaluate`), not shapes × GPUs.
//
// A node's fragmentation before a pod depends only on its state and the workload, and a
// placement changes one node, so it is cached per node (FRAG_CACHE, layout.ts) until the
// node changes: `setNodeMask` (state.ts), which every change of a node goes through —
// a query's placement, its undo, victim selection's freeing and re-occupying, addJob,
// removeJob — drops the node's entry; a new snapshot or workload drops them all.
//
// The same holds for a whole choice: the rank of placing a pod on a node depends only on
// the node's state, the workload and the pod's (gpu, milli, cpu). Requests whose shape is
// one of the workload's (the common case: the workload lists the typical pods) keep each
// node's rank and chosen GPU in a memo, one slot per (node, workload shape), stamped with
// the node's version (bumped by `setNodeMask`): a pass over the pool then computes ranks
// only for the nodes that changed since the shape last came. The request's memory enters
// a rank only through which shapes' memory still fits beside the pod (free memory after
// ≥ s.mem), that is through how many of the workload's distinct memory asks are ≤ the
// memory left after (`memLevel`); the slot keeps that count too, so pods of one shape
// asking different memory share a slot exactly when their ranks are the same. The memo sits past
// REGION_END (nodes × MAX_SHAPES × 16 B), laid out on the first fragmentation query after
// a reserve (`prepareRankMemo`), so a kernel never asked to place by fragmentation spends
// no memory on it.
//
// A rank also carries the growth of the node's cpu shortfall (src/kernel/fragmentation.ts
// `cpuShortfall`: the milli-GPUs its free cpu cannot serve at the workload's milli per
// millicore), which depends on the node's milli and cpu before and after only, so the
// memo holds it too.
//
// JS writes the workload once into a static table (it never moves when memory grows)
// and the count with `setWorkload`. Weights are integers (src/kernel/fragmentation.ts
// kernelWorkload), so every fragmentation sum here is an exact integer in an f64 and
// agrees with the twin's whatever the order. The shortfall is not an integer: it is
// computed by the twin's expressions in the twin's order (`milliPerCpu` summed in the
// table's order), so IEEE arithmetic gives both the same bits.

import {
  NODE_MASK, NODE_GPUS, NODE_FREE_CPU, NODE_FREE_MEM, NODE_MODEL, MILLI_PER_GPU, FRAG_STRIDE, FRAG_BEFORE, FRAG_VERSION, REGION_END,
  regionStart,
} from './layout';
import {
  nodeAt, shareAt, fragCachePtr, forgetFragmentation, nodeCount, ensureMemory, rankMemoReady, setRankMemoReady,
} from './state';

/**
 * Rank of a choice: growth + shortfall growth + LEFT_WEIGHT · (milli-GPUs left on the
 * node after + free cpu after / CPU_PER_MILLI), a pull toward packing;
 * src/kernel/fragmentation.ts says why.
 */
export const LEFT_WEIGHT: f64 = 4096;
/** Millicores of free cpu that weigh as one milli-GPU left in the rank. */
export const CPU_PER_MILLI: f64 = 16;

/** Rank of a choice (src/kernel/fragmentation.ts placementRank), added in the twin's order. */
@inline export function placementRank(growth: f64, shortGrowth: f64, milliLeft: u32, cpuLeft: f64): f64 {
  return growth + shortGrowth + LEFT_WEIGHT * (<f64>milliLeft + cpuLeft / CPU_PER_MILLI);
}

/**
 * Milli-GPUs the workload's GPU shapes ask per millicore of cpu (Σ weight · gpu · milli /
 * Σ weight · cpu, in the table's order; `useShapes`); 0 when none asks cpu: no shortfall.
 */
let milliPerCpu: f64 = 0;

/** The twin's `cpuShortfall`: max(0, milliLeft − cpuLeft · milliPerCpu), a NaN giving 0. */
@inline function cpuShortfall(milliLeft: u32, cpuLeft: f64): f64 {
  if (milliPerCpu == 0) return 0;
  const short = <f64>milliLeft - cpuLeft * milliPerCpu;
  return short > 0 ? short : 0;
}

/** The twin's `shortfallGrowth`: W · (shortfall after − shortfall before). */
@inline function shortfallGrowth(milliBefore: u32, cpuBefore: f64, milliAfter: u32, cpuAfter: f64): f64 {
  return weightSum * (cpuShortfall(milliAfter, cpuAfter) - cpuShortfall(milliBefore, cpuBefore));
}

/** The most typical pod shapes a workload lists. */
export const MAX_SHAPES: u32 = 64;
/** One shape: gpu u32 · milli u32 (1000 whole, 0 cpu-only) · models u32 · pad · cpu f64 · weight f64 · mem f64 (MiB, 0 not asked). */
export const SHAPE_STRIDE: u32 = 40;
export const SHAPE_GPU: u32 = 0;
export const SHAPE_MILLI: u32 = 4;
export const SHAPE_MODELS: u32 = 8;
export const SHAPE_CPU: u32 = 16;
export const SHAPE_WEIGHT: u32 = 24;
export const SHAPE_MEM: u32 = 32;

const table: usize = memory.data(<i32>(MAX_SHAPES * SHAPE_STRIDE), 8);
/** The GPU shapes of the table by descending milli (`useShapes`), as parallel arrays for `evaluate`. */
const byMilli: usize = memory.data(<i32>MAX_SHAPES * 4, 8);
const byGpu: usize = memory.data(<i32>MAX_SHAPES * 4, 8);
const byModels: usize = memory.data(<i32>MAX_SHAPES * 4, 8);
const byCpu: usize = memory.data(<i32>MAX_SHAPES * 8, 8);
const byWeight: usize = memory.data(<i32>MAX_SHAPES * 8, 8);
const byMem: usize = memory.data(<i32>MAX_SHAPES * 8, 8);
/** The distinct memory asks > 0 of the GPU shapes, ascending (f64 × levelCount): `memLevel`'s steps. */
const memLevels: usize = memory.data(<i32>MAX_SHAPES * 8, 8);
let levelCount: u32 = 0;
/** Shapes of the table in use (`useShapes`). */
let shapeCount: u32 = 0;
/** GPU shapes in the by-milli arrays. */
let gpuShapes: u32 = 0;
/** Σ weight over every shape, cpu-only ones too (W in the header comment). */
let weightSum: f64 = 0;
/** Milli-GPUs left on each GPU of the node being scored, by GPU index (u32 × 32). */
const left: usize = memory.data(128, 8);
/** The same, sorted in descending order (u32 × 32). */
const sorted: usize = memory.data(128, 8);
/** `sorted` after a share is placed on one GPU (u32 × 32). */
const after: usize = memory.data(128, 8);

/** Where JS writes the workload's shapes (static: never moves). */
export function workloadTable(): usize {
  return table;
}

/**
 * Uses the first `count` shapes of the table from now on: orders the GPU shapes by
 * descending milli for `evaluate` and drops every cached fragmentation (it was for the
 * workload before). False, changing nothing, when count > MAX_SHAPES.
 */
export function useShapes(count: u32): bool {
  if (count > MAX_SHAPES) return false;
  shapeCount = count;
  weightSum = 0;
  gpuShapes = 0;
  levelCount = 0;
  let milliSum: f64 = 0;
  let cpuSum: f64 = 0;
  for (let s: u32 = 0; s < count; s++) {
    const at = table + <usize>s * SHAPE_STRIDE;
    const weight = load<f64>(at + SHAPE_WEIGHT);
    weightSum += weight;
    const milli = load<u32>(at + SHAPE_MILLI);
    if (milli == 0) continue;
    milliSum += weight * <f64>load<u32>(at + SHAPE_GPU) * <f64>milli;
    cpuSum += weight * load<f64>(at + SHAPE_CPU);
    addMemLevel(load<f64>(at + SHAPE_MEM));
    // Insertion by descending milli (≤ 64 shapes, once per workload).
    let i = gpuShapes++;
    while (i > 0 && load<u32>(byMilli + ((<usize>i - 1) << 2)) < milli) {
      const j = <usize>i - 1;
      store<u32>(byMilli + (<usize>i << 2), load<u32>(byMilli + (j << 2)));
      store<u32>(byGpu + (<usize>i << 2), load<u32>(byGpu + (j << 2)));
      store<u32>(byModels + (<usize>i << 2), load<u32>(byModels + (j << 2)));
      store<f64>(byCpu + (<usize>i << 3), load<f64>(byCpu + (j << 3)));
      store<f64>(byWeight + (<usize>i << 3), load<f64>(byWeight + (j << 3)));
      store<f64>(byMem + (<usize>i << 3), load<f64>(byMem + (j << 3)));
      i--;
    }
    store<u32>(byMilli + (<usize>i << 2), milli);
    store<u32>(byGpu + (<usize>i << 2), load<u32>(at + SHAPE_GPU));
    store<u32>(byModels + (<usize>i << 2), load<u32>(at + SHAPE_MODELS));
    store<f64>(byCpu + (<usize>i << 3), load<f64>(at + SHAPE_CPU));
    store<f64>(byWeight + (<usize>i << 3), weight);
    store<f64>(byMem + (<usize>i << 3), load<f64>(at + SHAPE_MEM));
  }
  milliPerCpu = cpuSum > 0 ? milliSum / cpuSum : 0;
  forgetFragmentation();
  return true;
}

/** Adds `mem` (> 0, not yet listed) to the ascending `memLevels`. */
function addMemLevel(mem: f64): void {
  if (!(mem > 0)) return;
  let i = levelCount;
  while (i > 0 && load<f64>(memLevels + ((<usize>i - 1) << 3)) >= mem) {
    if (load<f64>(memLevels + ((<usize>i - 1) << 3)) == mem) return;
    i--;
  }
  for (let j = levelCount; j > i; j--) store<f64>(memLevels + (<usize>j << 3), load<f64>(memLevels + ((<usize>j - 1) << 3)));
  store<f64>(memLevels + (<usize>i << 3), mem);
  levelCount++;
}

/**
 * How many of the workload's distinct memory asks are ≤ `freeMem` (binary search): two
 * node states of equal GPUs and cpu whose free memory has the same level fit the same shapes.
 */
function memLevel(freeMem: f64): u32 {
  let lo: u32 = 0;
  let hi = levelCount;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (load<f64>(memLevels + (<usize>mid << 3)) <= freeMem) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

@inline function leftAt(g: u32): u32 {
  return load<u32>(left + (<usize>g << 2));
}

@inline function sortedAt(list: usize, i: u32): u32 {
  return load<u32>(list + (<usize>i << 2));
}

/**
 * Loads node `n`'s per-GPU milli left (1000 free, 0 held whole, 1000 − used when
 * shared) into `left`, and the same values in descending order into `sorted`; returns
 * their sum.
 */
function loadNode(n: u32): u32 {
  const node = nodeAt(n);
  const gpus = load<u32>(node + NODE_GPUS);
  const mask = load<u32>(node + NODE_MASK);
  let total: u32 = 0;
  for (let g: u32 = 0; g < gpus; g++) {
    const used = <u32>load<u16>(shareAt(n, g));
    const x = used > 0 ? MILLI_PER_GPU - used : ((mask >>> g) & 1) != 0 ? 0 : MILLI_PER_GPU;
    store<u32>(left + (<usize>g << 2), x);
    total += x;
    // Insertion into the descending prefix sorted[0..g).
    let i = g;
    while (i > 0 && sortedAt(sorted, i - 1) < x) {
      store<u32>(sorted + (<usize>i << 2), sortedAt(sorted, i - 1));
      i--;
    }
    store<u32>(sorted + (<usize>i << 2), x);
  }
  return total;
}

/**
 * Fragmentation of a node of GPU model `model` whose first `gpus` GPUs (the rest hold
 * nothing usable) have the room in `list` (descending) summing to `total`, with `cpu`
 * and `mem` free: W · total − Σ over fitting GPU shapes of weight · usable (the header comment).
 */
function evaluate(list: usize, gpus: u32, total: u32, cpu: f64, mem: f64, model: u32): f64 {
  let frag = weightSum * <f64>total;
  let k: u32 = 0;
  let usable: u32 = 0;
  for (let s: u32 = 0; s < gpuShapes; s++) {
    const milli = load<u32>(byMilli + (<usize>s << 2));
    while (k < gpus && sortedAt(list, k) >= milli) {
      usable += sortedAt(list, k);
      k++;
    }
    if (k < load<u32>(byGpu + (<usize>s << 2)) || cpu < load<f64>(byCpu + (<usize>s << 3))) continue;
    const shapeMem = load<f64>(byMem + (<usize>s << 3));
    // `!(≥)`: as the twin's `freeMem >= mem`, a NaN fits nothing.
    if (shapeMem > 0 && !(mem >= shapeMem)) continue;
    const models = load<u32>(byModels + (<usize>s << 2));
    if (models != 0 && ((models >>> model) & 1) == 0) continue;
    frag -= load<f64>(byWeight + (<usize>s << 3)) * <f64>usable;
  }
  return frag;
}

/** Node `n`'s fragmentation now, with `loadNode(n)`'s `total` already loaded: from the cache, else computed and cached. */
function fragmentationBefore(n: u32, total: u32): f64 {
  const at = fragCachePtr + <usize>n * FRAG_STRIDE + FRAG_BEFORE;
  const cached = load<f64>(at);
  if (cached != 0) return cached - 1;
  const node = nodeAt(n);
  const frag = evaluate(sorted, load<u32>(node + NODE_GPUS), total, load<f64>(node + NODE_FREE_CPU), load<f64>(node + NODE_FREE_MEM), load<u32>(node + NODE_MODEL));
  store<f64>(at, frag + 1);
  return frag;
}

/**
 * Node `n`'s fragmentation under the current workload: the cached value (−1 when none is
 * cached) when `fromCache`, else computed afresh without touching the cache. For the
 * test that holds the cache to a fresh computation (and the twin) after every kind of change.
 */
export function fragmentationOf(n: u32, fromCache: bool): f64 {
  if (fromCache) return load<f64>(fragCachePtr + <usize>n * FRAG_STRIDE + FRAG_BEFORE) - 1;
  const total = loadNode(n);
  const node = nodeAt(n);
  return evaluate(sorted, load<u32>(node + NODE_GPUS), total, load<f64>(node + NODE_FREE_CPU), load<f64>(node + NODE_FREE_MEM), load<u32>(node + NODE_MODEL));
}

/**
 * One memo slot: rank f64 · the node's version when it was computed u32 (0 = empty) ·
 * the chosen GPU u16 · the memory level after the pod (`memLevel`) u16.
 */
const MEMO_STRIDE: u32 = 16;
const MEMO_RANK: u32 = 0;
const MEMO_VERSION: u32 = 8;
const MEMO_GPU: u32 = 12;
const MEMO_LEVEL: u32 = 14;
let memoPtr: usize = 0;

/**
 * Lays the rank memo out past REGION_END and clears it, unless it is ready already;
 * false when memory cannot grow for it (then no memo is used).
 */
export function prepareRankMemo(): bool {
  if (rankMemoReady) return true;
  const start = regionStart(REGION_END);
  const size = <usize>nodeCount * MAX_SHAPES * MEMO_STRIDE;
  if (!ensureMemory(start + size)) return false;
  memory.fill(start, 0, size);
  memoPtr = start;
  setRankMemoReady();
  return true;
}

/**
 * The memo column of a request of `gpu` GPUs (1 for a share), `milli` per GPU (0 whole)
 * and `cpu`: the first workload shape of that (gpu, milli, cpu), whatever its models
 * (they do not change a rank); −1 when no shape matches or the memo is not laid out.
 */
export function memoColumn(gpu: u32, milli: u32, cpu: f64): i32 {
  if (!rankMemoReady) return -1;
  const m = milli > 0 ? milli : MILLI_PER_GPU;
  for (let s: u32 = 0; s < shapeCount; s++) {
    const at = table + <usize>s * SHAPE_STRIDE;
    if (load<u32>(at + SHAPE_GPU) == gpu && load<u32>(at + SHAPE_MILLI) == m && load<f64>(at + SHAPE_CPU) == cpu) return <i32>s;
  }
  return -1;
}

/**
 * Node `n`'s memo slot for column `column`. Column-major: a placement's pass over the
 * pool reads one column, so its slots lie side by side (16 B a node) instead of one
 * cache line apart each.
 */
@inline function memoSlot(n: u32, column: i32): usize {
  return memoPtr + (<usize>column * nodeCount + <usize>n) * MEMO_STRIDE;
}

/**
 * True when `memLevel(freeMem)` is `level`: the level-th smallest memory ask is ≤
 * freeMem and the next is not (memLevel counts the asks ≤ freeMem, a monotone test, so
 * two comparisons settle it; a NaN has level 0, as there).
 */
@inline function hasMemLevel(level: u32, freeMem: f64): bool {
  if (level > 0 && !(load<f64>(memLevels + ((<usize>level - 1) << 3)) <= freeMem)) return false;
  return level >= levelCount || !(load<f64>(memLevels + (<usize>level << 3)) <= freeMem);
}

/** Node `n`'s version (bumped by every change of the node, state.ts `setNodeMask`). */
@inline function versionOf(n: u32): u32 {
  return load<u32>(fragCachePtr + <usize>n * FRAG_STRIDE + FRAG_VERSION);
}

/**
 * Rank of the request's pod on node `n` (which fits it): from the memo when column ≥ 0
 * and the slot was computed at the node's current version and memory level after the
 * pod, else `rankWhole` / `rankShare` (milli > 0), memoized. Leaves the GPU a share
 * takes in `shareGpu`.
 */
export function rankOf(n: u32, gpu: u32, milli: u32, cpu: f64, mem: f64, column: i32): f64 {
  if (column < 0) return milli > 0 ? rankShare(n, milli, cpu, mem) : rankWhole(n, gpu, cpu, mem);
  const slot = memoSlot(n, column);
  const version = versionOf(n);
  const memAfter = load<f64>(nodeAt(n) + NODE_FREE_MEM) - mem;
  if (load<u32>(slot + MEMO_VERSION) == version && hasMemLevel(<u32>load<u16>(slot + MEMO_LEVEL), memAfter)) {
    shareGpu = <u32>load<u16>(slot + MEMO_GPU);
    return load<f64>(slot + MEMO_RANK);
  }
  const level = memLevel(memAfter);
  const rank = milli > 0 ? rankShare(n, milli, cpu, mem) : rankWhole(n, gpu, cpu, mem);
  store<f64>(slot + MEMO_RANK, rank);
  store<u32>(slot + MEMO_VERSION, version);
  store<u16>(slot + MEMO_GPU, <u16>shareGpu);
  store<u16>(slot + MEMO_LEVEL, <u16>level);
  return rank;
}

/**
 * Rank (placementRank) of placing one pod of `gpu` whole GPUs asking `cpu` and `mem` on
 * node `n`, which fits it. Every free GPU is alike to the measure (room 1000, the first
 * entries of `sorted`), so the node after is `sorted` without `gpu` of its leading 1000s.
 */
export function rankWhole(n: u32, gpu: u32, cpu: f64, mem: f64): f64 {
  const total = loadNode(n);
  const before = fragmentationBefore(n, total);
  const node = nodeAt(n);
  const cpuAfter = load<f64>(node + NODE_FREE_CPU) - cpu;
  const totalAfter = total - gpu * MILLI_PER_GPU;
  const gpus = load<u32>(node + NODE_GPUS);
  const memAfter = load<f64>(node + NODE_FREE_MEM) - mem;
  const growth = evaluate(sorted + (<usize>gpu << 2), gpus - gpu, totalAfter, cpuAfter, memAfter, load<u32>(node + NODE_MODEL)) - before;
  return placementRank(growth, shortfallGrowth(total, load<f64>(node + NODE_FREE_CPU), totalAfter, cpuAfter), totalAfter, cpuAfter);
}

/** The GPU `rankShare` chose on its node. */
export let shareGpu: u32 = 0;

/**
 * Rank (placementRank) of placing one pod sharing `milli` of a GPU, asking `cpu` and `mem`, on node
 * `n`, which fits it, at its best GPU (left in `shareGpu`): each distinct room ≥ milli is
 * tried once (GPUs of equal room leave the same node); least growth, then least room,
 * then the lowest GPU of that room — the twin's order over every GPU.
 */
export function rankShare(n: u32, milli: u32, cpu: f64, mem: f64): f64 {
  const total = loadNode(n);
  const before = fragmentationBefore(n, total);
  const node = nodeAt(n);
  const gpus = load<u32>(node + NODE_GPUS);
  const model = load<u32>(node + NODE_MODEL);
  const cpuAfter = load<f64>(node + NODE_FREE_CPU) - cpu;
  const memAfter = load<f64>(node + NODE_FREE_MEM) - mem;
  let bestGrowth: f64 = 0;
  let bestRoom: u32 = 0;
  let found = false;
  for (let i: u32 = 0; i < gpus; i++) {
    const room = sortedAt(sorted, i);
    if (room < milli) break;
    if (i > 0 && sortedAt(sorted, i - 1) == room) continue;
    // `after`: sorted with this room lowered by milli, moved down to keep the order.
    memory.copy(after, sorted, <usize>gpus << 2);
    const x = room - milli;
    let j = i;
    while (j + 1 < gpus && sortedAt(after, j + 1) > x) {
      store<u32>(after + (<usize>j << 2), sortedAt(after, j + 1));
      j++;
    }
    store<u32>(after + (<usize>j << 2), x);
    const growth = evaluate(after, gpus, total - milli, cpuAfter, memAfter, model) - before;
    // Rooms come in descending order: an equal growth later has less room and wins.
    if (!found || growth <= bestGrowth) {
      found = true;
      bestGrowth = growth;
      bestRoom = room;
    }
  }
  let g: u32 = 0;
  while (leftAt(g) != bestRoom) g++;
  shareGpu = g;
  // The shortfall is the same whichever GPU takes the share: it ranks the node, not the GPU.
  return placementRank(bestGrowth, shortfallGrowth(total, load<f64>(node + NODE_FREE_CPU), total - milli, cpuAfter), total - milli, cpuAfter);
}
