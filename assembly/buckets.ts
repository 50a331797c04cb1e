// Free-GPU buckets (issue 11 item 3): per pool, the nodes grouped by (free GPUs f, align
// level l), each bucket a two-level bitset over POOL_NODES slots with a count per pool.
// Slots of a pool are its nodes in ascending index order, so the lowest set slot of a
// bucket inside the pool's range is its lowest-index node: SEMANTICS 5.4's tie-break.
// Invariant: between any two mask changes, node n is in exactly bucket
// bucketOf(its mask) of its pool; `moveNode` is called by `setNodeMask` on every change.
//
// Placement then needs no scan: the best f is a bit scan of the pool's free-count mask,
// the aligned levels a bit scan of (f)'s level mask, the node a bit scan of ≤ ⌈n/4096⌉
// summary words. Cost per pod is independent of the node count up to that last term.

import {
  NODE_STRIDE, NODE_MASK, NODE_GPUS, NODE_POOL, LEVELS, BUCKETS, bucketWords,
  REGION_NODE_SLOTS, REGION_BUCKET_COUNTS, REGION_FREE_MASKS, REGION_LEVEL_MASKS,
  REGION_BUCKET_BITS, REGION_BUCKET_SUMMARY, regionStart,
} from './layout';
import { freeMaskOf, blockStarts } from './bitmap';

let slotsPtr: usize = 0;
let countsPtr: usize = 0;
let freeMasksPtr: usize = 0;
let levelMasksPtr: usize = 0;
let bitsPtr: usize = 0;
let summaryPtr: usize = 0;
let words: usize = 0;
let summaryWords: usize = 0;

/** Re-reads the bucket regions' starts after a layout change. */
export function cacheBucketPointers(nodeCount: u32): void {
  slotsPtr = regionStart(REGION_NODE_SLOTS);
  countsPtr = regionStart(REGION_BUCKET_COUNTS);
  freeMasksPtr = regionStart(REGION_FREE_MASKS);
  levelMasksPtr = regionStart(REGION_LEVEL_MASKS);
  bitsPtr = regionStart(REGION_BUCKET_BITS);
  summaryPtr = regionStart(REGION_BUCKET_SUMMARY);
  words = bucketWords(nodeCount);
  summaryWords = (words + 63) >>> 6;
}

/**
 * Align level of a free mask: 0 with no free GPU, else log2(largest fully free aligned
 * block) + 1. A node offers an aligned block of g = 2^k GPUs iff its level is ≥ k + 1.
 */
@inline export function alignLevel(free: u32): u32 {
  if (free == 0) return 0;
  let level: u32 = 1;
  let x = free; // bits where a free aligned block of 2^(level−1) starts
  for (let s: u32 = 1; s < 32; s <<= 1) {
    const y = x & (x >>> s) & blockStarts(s << 1);
    if (y == 0) break;
    x = y;
    level++;
  }
  return level;
}

/** The bucket of a node with this used mask and GPU count. */
@inline function bucketOf(mask: u32, gpus: u32): u32 {
  const free = freeMaskOf(mask, gpus);
  return popcnt<u32>(free) * LEVELS + alignLevel(free);
}

@inline function bitsAt(b: u32, w: usize): usize {
  return bitsPtr + ((<usize>b * words + w) << 3);
}

@inline function summaryAt(b: u32, s: usize): usize {
  return summaryPtr + ((<usize>b * summaryWords + s) << 3);
}

@inline function countAt(pool: u32, b: u32): usize {
  return countsPtr + ((<usize>pool * BUCKETS + b) << 2);
}

@inline function levelMaskAt(pool: u32, f: u32): usize {
  return levelMasksPtr + ((<usize>pool * 33 + f) << 2);
}

function addTo(b: u32, slot: u32, pool: u32): void {
  const w = <usize>(slot >>> 6);
  const at = bitsAt(b, w);
  const old = load<u64>(at);
  store<u64>(at, old | (<u64>1 << <u64>(slot & 63)));
  if (old == 0) {
    const sa = summaryAt(b, w >>> 6);
    store<u64>(sa, load<u64>(sa) | (<u64>1 << <u64>(w & 63)));
  }
  const ca = countAt(pool, b);
  const count = load<u32>(ca);
  store<u32>(ca, count + 1);
  if (count == 0) {
    const f = b / LEVELS;
    const la = levelMaskAt(pool, f);
    store<u32>(la, load<u32>(la) | (<u32>1 << (b % LEVELS)));
    const fa = freeMasksPtr + (<usize>pool << 3);
    store<u64>(fa, load<u64>(fa) | (<u64>1 << <u64>f));
  }
}

function removeFrom(b: u32, slot: u32, pool: u32): void {
  const w = <usize>(slot >>> 6);
  const at = bitsAt(b, w);
  const next = load<u64>(at) & ~(<u64>1 << <u64>(slot & 63));
  store<u64>(at, next);
  if (next == 0) {
    const sa = summaryAt(b, w >>> 6);
    store<u64>(sa, load<u64>(sa) & ~(<u64>1 << <u64>(w & 63)));
  }
  const ca = countAt(pool, b);
  const count = load<u32>(ca) - 1;
  store<u32>(ca, count);
  if (count == 0) {
    const f = b / LEVELS;
    const la = levelMaskAt(pool, f);
    const levels = load<u32>(la) & ~(<u32>1 << (b % LEVELS));
    store<u32>(la, levels);
    if (levels == 0) {
      const fa = freeMasksPtr + (<usize>pool << 3);
      store<u64>(fa, load<u64>(fa) & ~(<u64>1 << <u64>f));
    }
  }
}

/** Keeps node `n` (record at `node`) in the right bucket as its mask goes from `oldMask` to `newMask`. */
@inline export function moveNode(n: u32, node: usize, oldMask: u32, newMask: u32): void {
  const gpus = load<u32>(node + NODE_GPUS);
  const from = bucketOf(oldMask, gpus);
  const to = bucketOf(newMask, gpus);
  if (from == to) return;
  const slot = load<u32>(slotsPtr + (<usize>n << 2));
  const pool = load<u32>(node + NODE_POOL);
  removeFrom(from, slot, pool);
  addTo(to, slot, pool);
}

/** Fills every bucket from the node records; POOL_NODES must be built already. */
export function buildBuckets(nodeCount: u32, poolCount: u32, nodesPtr: usize, poolNodesPtr: usize): void {
  memory.fill(countsPtr, 0, <usize>poolCount * BUCKETS * 4);
  memory.fill(freeMasksPtr, 0, <usize>poolCount * 8);
  memory.fill(levelMasksPtr, 0, <usize>poolCount * 33 * 4);
  memory.fill(bitsPtr, 0, <usize>BUCKETS * words * 8);
  memory.fill(summaryPtr, 0, <usize>BUCKETS * summaryWords * 8);
  for (let slot: u32 = 0; slot < nodeCount; slot++) {
    const n = load<u32>(poolNodesPtr + (<usize>slot << 2));
    store<u32>(slotsPtr + (<usize>n << 2), slot);
    const node = nodesPtr + <usize>n * NODE_STRIDE;
    addTo(bucketOf(load<u32>(node + NODE_MASK), load<u32>(node + NODE_GPUS)), slot, load<u32>(node + NODE_POOL));
  }
}

/** Lowest slot of bucket `b` in [from, to), or −1. */
function firstIn(b: u32, from: u32, to: u32): i32 {
  if (from >= to) return -1;
  const w0 = <usize>(from >>> 6);
  const w1 = <usize>((to - 1) >>> 6);
  const s0 = w0 >>> 6;
  const s1 = w1 >>> 6;
  for (let s = s0; s <= s1; s++) {
    let bits = load<u64>(summaryAt(b, s));
    if (s == s0) bits &= ~(<u64>0) << <u64>(w0 & 63);
    if (s == s1 && (w1 & 63) < 63) bits &= (<u64>1 << <u64>((w1 & 63) + 1)) - 1;
    while (bits != 0) {
      const w = (s << 6) + <usize>ctz<u64>(bits);
      bits &= bits - 1;
      let word = load<u64>(bitsAt(b, w));
      if (w == w0) word &= ~(<u64>0) << <u64>(from & 63);
      if (w == w1 && ((to - 1) & 63) < 63) word &= (<u64>1 << <u64>(((to - 1) & 63) + 1)) - 1;
      if (word != 0) return <i32>((w << 6) + <usize>ctz<u64>(word));
    }
  }
  return -1;
}

/** Lowest slot in [from, to) over the buckets (f, l) for the levels set in `levels`, or −1. */
export function firstOfLevels(f: u32, levels: u32, from: u32, to: u32): i32 {
  let best: i32 = -1;
  while (levels != 0) {
    const l = ctz<u32>(levels);
    levels &= levels - 1;
    const slot = firstIn(f * LEVELS + l, from, to);
    if (slot >= 0 && (best < 0 || slot < best)) best = slot;
  }
  return best;
}

/**
 * The slot of the node a pod of `g` GPUs goes to when only free GPUs limit it (no cpu,
 * memory, model or strict constraint): binpack the fewest free ≥ g, spread the most;
 * among those, a node with an aligned free block of g (`need` = log2(g) + 1; 0 when g
 * is not a power of two) before one without; then the lowest index. −1 when none fits.
 */
export function bestSlot(pool: u32, from: u32, to: u32, g: u32, spread: bool, need: u32): i32 {
  let fm = load<u64>(freeMasksPtr + (<usize>pool << 3)) & (~(<u64>0) << <u64>g);
  while (fm != 0) {
    const f = spread ? <u32>(63 - clz<u64>(fm)) : <u32>ctz<u64>(fm);
    fm &= ~(<u64>1 << <u64>f);
    const levels = load<u32>(levelMaskAt(pool, f));
    const aligned = need > 0 ? levels & (~(<u32>0) << need) : levels;
    let slot = firstOfLevels(f, aligned, from, to);
    if (slot < 0 && need > 0) slot = firstOfLevels(f, levels & ~aligned, from, to);
    if (slot >= 0) return slot;
  }
  return -1;
}

/** Bit f set: some node of `pool` has exactly f free GPUs. */
@inline export function freeCountsOf(pool: u32): u64 {
  return load<u64>(freeMasksPtr + (<usize>pool << 3));
}

/** Bit l set: some node of `pool` with f free GPUs has align level l. */
@inline export function levelsOf(pool: u32, f: u32): u32 {
  return load<u32>(levelMaskAt(pool, f));
}

/** Pods of `g` GPUs the pool's free GPUs hold, summed over nodes (Σ count × ⌊f / g⌋). */
export function bucketFitsSum(pool: u32, g: u32): u32 {
  let sum: u32 = 0;
  let fm = load<u64>(freeMasksPtr + (<usize>pool << 3)) & (~(<u64>0) << <u64>g);
  while (fm != 0) {
    const f = <u32>ctz<u64>(fm);
    fm &= fm - 1;
    let levels = load<u32>(levelMaskAt(pool, f));
    let nodes: u32 = 0;
    while (levels != 0) {
      const l = ctz<u32>(levels);
      levels &= levels - 1;
      nodes += load<u32>(countAt(pool, f * LEVELS + l));
    }
    sum += nodes * (f / g);
  }
  return sum;
}
