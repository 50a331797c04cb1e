// The kernel's linear-memory layout. `src/kernel/layout.ts` mirrors every constant and
// the region computation below; `test/unit/kernel/layout.test.ts` holds the two equal.
//
// Page 0 holds AssemblyScript's static data (the kernel allocates nothing on its heap);
// everything the kernel works on starts at LAYOUT_BASE and is addressed by offset.
//
//   LAYOUT_BASE ┌──────────────────────────────┐
//               │ header (HEADER_SIZE bytes)   │ out counts, region table, constraints in,
//               │                              │ winning alternative, deficits
//               ├──────────────────────────────┤ ── node state: fixed by the snapshot's nodes
//   NODES       │ node × nodeCount   (32 B)    │ mask u32 · gpus u32 · freeCpu f64 ·
//               │                              │ freeMem f64 · pool u32 · model u32
//   POOL_STARTS │ u32 × (poolCount + 1)        │ pool p's nodes are POOL_NODES[start[p]..start[p+1])
//   POOL_NODES  │ u32 × nodeCount              │ node indices grouped by pool, ascending
//   NODE_STAMPS │ u32 × nodeCount              │ epoch a node was last saved to UNDO
//   HEAP        │ u32 × nodeCount              │ placement heap keys (rank << 26 | unaligned << 25 | node)
//   UNDO        │ undo × nodeCount   (88 B)    │ node u32 · mask u32 · freeCpu f64 · freeMem f64 ·
//               │                              │ the node's 64 B of SHARES
//   NODE_SLOTS  │ u32 × nodeCount              │ node n's position in POOL_NODES
//   BUCKET_COUNTS u32 × poolCount × BUCKETS    │ nodes of pool p in bucket (free f, align level l)
//   FREE_MASKS  │ u64 × poolCount              │ bit f: pool p has a node with f free GPUs
//   LEVEL_MASKS │ u32 × poolCount × 33         │ bit l: bucket (f, l) of pool p is not empty
//   BUCKET_BITS │ u64 × BUCKETS × ⌈nodes/64⌉   │ bit s: the node at POOL_NODES[s] is in the bucket
//   BUCKET_SUMMARY u64 × BUCKETS × ⌈words/64⌉  │ bit w: word w of the bucket's bits is not zero
//   SHARES      │ u16 × 32 × nodeCount (64 B)  │ milli-GPUs that sharing pods use on each GPU (0: not shared)
//   FRAG_CACHE  │ frag × nodeCount   (16 B)    │ fragmentation + 1 under the workload (0 = not known) f64 ·
//               │                              │ version u32, bumped by every change of the node (fragmentation.ts)
//               ├──────────────────────────────┤ ── jobs: grow with addJob (capacities, not counts)
//   JOBS        │ job × jobCap       (64 B)    │ lostWork f64 · startedAt f64 · cpuSum f64 ·
//               │                              │ memSum f64 · rank · priority · gpus · order ·
//               │                              │ podStart · podCount · gpuSum · flags (i32/u32)
//   PODS        │ pod × podStoreCap  (32 B)    │ node u32 · mask u32 · cpu f64 · mem f64 · milli u32
//   JOB_STAMPS  │ u32 × jobCap                 │ epoch a job was last seen as a candidate
//               ├──────────────────────────────┤ ── scratch: grown when a bigger query comes
//   CANDIDATES  │ cand × candidateCap (8 B)    │ job u32 · constraintMask u32   (JS writes)
//   ORDER       │ u32 × candidateCap           │ [0,n) positions heaped or sorted, [n,2n) a pass's picks
//   OUT_VICTIMS │ u32 × candidateCap           │ [0,cap/2) chosen job indices (JS reads); [cap/2,cap)
//               │                              │ the current alternative's best (victims.ts)
//   OUT_PODS    │ out × podCap        (8 B)    │ node u32 · mask u32             (JS reads)
//   KEYS        │ key × candidateCap (64 B)    │ a candidate's sort key for one greedy pass
//               │                              │ (criteria.ts `jobKey`), by position
//               └──────────────────────────────┘
//   past REGION_END, on the first fragmentation query after a reserve: the rank memo,
//   MAX_SHAPES columns × nodeCount × 16 B, a column's nodes side by side (rank f64 · node
//   version u32 · GPU u16 · memory level u16; fragmentation.ts)
//
// A node's GPUs are the low `gpus` bits of a 32-bit mask (bit i set = GPU i allocated):
//
//   8-GPU node, mask 0b0000_0010     GPU: 7 6 5 4 3 2 1 0
//                                         . . . . . . # .    free = 7
//   aligned blocks of 4: [0-3] holds GPU 1, [4-7] is fully free → a 4-GPU pod gets 4-7.
//
// Buckets (buckets.ts) make placement O(1) in the node count: a node sits in bucket
// (free GPUs f, align level l), l = log2(its largest free aligned block) + 1, 0 when it
// has no free GPU; BUCKETS = 33 × 7. Every mask change goes through `setNodeMask`, so the
// buckets follow queries, their undo, addJob and removeJob.
//
// GPU sharing (issue 11 item 6): a pod asking a share of one GPU (milli 1..999, openb's
// gpu_milli) holds one bit of the mask like a whole-GPU pod, and adds its milli to that
// GPU's SHARES slot. Invariant: a GPU's bit is set iff a whole-GPU pod holds it or its
// SHARES slot is > 0 (never both), and no slot exceeds 1000. So a GPU partly used by
// sharing pods is never free for a whole-GPU pod, and every whole-GPU structure (free
// counts, aligned blocks, buckets) needs no change; sharing pods read SHARES.
//
// Jobs come after everything sized by nodes, so growing the job capacity (addJob) moves
// only PODS and what follows it, never a node record. Removed jobs keep their slot
// (JOB_FLAGS has JOB_REMOVED) and their pods stay in PODS, unreferenced: indices are
// never reused, so an index the engine holds names one job for the kernel's lifetime.
//
// Every region starts on an 8-byte boundary so f64 fields are aligned for both wasm
// loads and JS Float64Array views.

/** Where the kernel's regions begin: one 64 KiB page above AssemblyScript's static data. */
export const LAYOUT_BASE: u32 = 65536;

/** Header: fixed-size slots before the state. */
export const HEADER_SIZE: u32 = 1024;
/** u32: pods written to OUT_PODS by the last query. */
export const HDR_OUT_POD_COUNT: u32 = 0;
/** u32: victims written to OUT_VICTIMS by the last query. */
export const HDR_OUT_VICTIM_COUNT: u32 = 4;
/** Region start table: REGION_COUNT × u32 (up to 24), written by `computeRegions`. */
export const HDR_REGIONS: u32 = 928;
/** Constraints in: MAX_CONSTRAINTS × CONSTRAINT_STRIDE, written by JS per query. */
export const HDR_CONSTRAINTS: u32 = 64;
/** i32: which alternative gave the last selectVictims answer (-1: none). */
export const HDR_OUT_ALTERNATIVE: u32 = 576;
/** u32: 1 when that answer is the proven optimum of its alternative, 0 when the heuristic's. */
export const HDR_OUT_EXACT: u32 = 580;
/** Working copy of the deficits: MAX_CONSTRAINTS × f64, kernel-private. */
export const HDR_DEFICITS: u32 = 640;
export const MAX_CONSTRAINTS: u32 = 32;
/** u32 in: the request's allowed GPU models, bit m = model m (0 = any); JS writes it per query. */
export const HDR_REQ_MODELS: u32 = 896;
/** u32 out of `room`: free GPUs on the request's eligible nodes. */
export const HDR_OUT_FREE: u32 = 900;
/** u32 out of `room`: the most free GPUs on one eligible node. */
export const HDR_OUT_LARGEST: u32 = 904;
/** u32 out of `room`: how many pods of the request's shape fit on free capacity (sum of fits). */
export const HDR_OUT_FITS: u32 = 908;
/** u32 in: the request's share of one GPU in milli (1..999), 0 for whole GPUs; JS writes it per query. */
export const HDR_REQ_MILLI: u32 = 912;

export const NODE_STRIDE: u32 = 32;
export const NODE_MASK: u32 = 0;
export const NODE_GPUS: u32 = 4;
export const NODE_FREE_CPU: u32 = 8;
export const NODE_FREE_MEM: u32 = 16;
export const NODE_POOL: u32 = 24;
/** GPU model index 0..31 (requests filter on it with a model mask). */
export const NODE_MODEL: u32 = 28;

export const JOB_STRIDE: u32 = 64;
export const JOB_LOST_WORK: u32 = 0;
export const JOB_STARTED_AT: u32 = 8;
/** Derived by the kernel at commit: the sums a job's eviction frees (quota contributions). */
export const JOB_CPU_SUM: u32 = 16;
export const JOB_MEM_SUM: u32 = 24;
export const JOB_RANK: u32 = 32;
export const JOB_PRIORITY: u32 = 36;
export const JOB_GPUS: u32 = 40;
export const JOB_ORDER: u32 = 44;
export const JOB_POD_START: u32 = 48;
export const JOB_POD_COUNT: u32 = 52;
/** Derived at commit: the milli-GPUs the job's pods hold (1000 per whole GPU, plus shares). */
export const JOB_GPU_SUM: u32 = 56;
/** Bit set JOB_REMOVED: removeJob freed the job's pods; it is never a candidate again. */
export const JOB_FLAGS: u32 = 60;
export const JOB_REMOVED: u32 = 1;

export const POD_STRIDE: u32 = 32;
export const POD_NODE: u32 = 0;
export const POD_MASK: u32 = 4;
export const POD_CPU: u32 = 8;
export const POD_MEM: u32 = 16;
/** Milli-GPUs of the one GPU in the mask the pod shares (1..999); 0 = it holds its GPUs whole. */
export const POD_MILLI: u32 = 24;

/** One node's SHARES record: a u16 per GPU index. */
export const SHARE_STRIDE: u32 = 64;
/** A whole GPU, in milli-GPUs. */
export const MILLI_PER_GPU: u32 = 1000;

export const UNDO_STRIDE: u32 = 88;
export const UNDO_NODE: u32 = 0;
export const UNDO_MASK: u32 = 4;
export const UNDO_FREE_CPU: u32 = 8;
export const UNDO_FREE_MEM: u32 = 16;
/** The node's SHARES record as it was (SHARE_STRIDE bytes). */
export const UNDO_SHARES: u32 = 24;

/** One node's FRAG_CACHE record: its fragmentation + 1 (0 = not known) and its change count. */
export const FRAG_STRIDE: u32 = 16;
export const FRAG_BEFORE: u32 = 0;
export const FRAG_VERSION: u32 = 8;

export const CONSTRAINT_STRIDE: u32 = 16;
export const CONSTRAINT_RESOURCE: u32 = 0;
export const CONSTRAINT_DEFICIT: u32 = 8;

export const CANDIDATE_STRIDE: u32 = 8;
export const CANDIDATE_JOB: u32 = 0;
export const CANDIDATE_MASK: u32 = 4;

/** One candidate's sort key: up to 8 f64 words (criteria.ts `jobKey` writes at most 7). */
export const KEY_STRIDE: u32 = 64;

export const OUT_POD_STRIDE: u32 = 8;
export const OUT_POD_NODE: u32 = 0;
export const OUT_POD_MASK: u32 = 4;

/**
 * Node indices live in the low bits of a heap key; above them one bit says "no aligned
 * block for this shape" (SEMANTICS 5.4: among equal ranks, aligned nodes first), and the
 * strategy's rank (free count, or 32 − free) sits on top: 6 + 1 + 25 = 32 bits.
 */
export const NODE_INDEX_BITS: u32 = 25;
export const MAX_NODES: u32 = 1 << NODE_INDEX_BITS;

/** Region ids, in memory order; `regionOffset(id)` answers where each starts. */
export const REGION_NODES: i32 = 0;
export const REGION_POOL_STARTS: i32 = 1;
export const REGION_POOL_NODES: i32 = 2;
export const REGION_NODE_STAMPS: i32 = 3;
export const REGION_HEAP: i32 = 4;
export const REGION_UNDO: i32 = 5;
export const REGION_NODE_SLOTS: i32 = 6;
export const REGION_BUCKET_COUNTS: i32 = 7;
export const REGION_FREE_MASKS: i32 = 8;
export const REGION_LEVEL_MASKS: i32 = 9;
export const REGION_BUCKET_BITS: i32 = 10;
export const REGION_BUCKET_SUMMARY: i32 = 11;
export const REGION_SHARES: i32 = 12;
export const REGION_FRAG_CACHE: i32 = 13;
export const REGION_JOBS: i32 = 14;
export const REGION_PODS: i32 = 15;
export const REGION_JOB_STAMPS: i32 = 16;
export const REGION_CANDIDATES: i32 = 17;
export const REGION_ORDER: i32 = 18;
export const REGION_OUT_VICTIMS: i32 = 19;
export const REGION_OUT_PODS: i32 = 20;
export const REGION_KEYS: i32 = 21;
/** One past the last region: its offset is the end of the used memory. */
export const REGION_END: i32 = 22;
export const REGION_COUNT: i32 = 23;

/** Align levels 0..6 (no free GPU; largest free aligned block 1, 2, 4, 8, 16, 32). */
export const LEVELS: u32 = 7;
/** Buckets per pool: free counts 0..32 × align levels. */
export const BUCKETS: u32 = 33 * LEVELS;

/** 64-bit words of one bucket's bitset over `nodeCount` slots. */
@inline export function bucketWords(nodeCount: u32): usize {
  return (<usize>nodeCount + 63) >>> 6;
}

@inline function align8(x: usize): usize {
  return (x + 7) & ~(<usize>7);
}

/** Writes region `r`'s start and returns where the next region starts. */
@inline function putRegion(r: i32, at: usize, size: usize): usize {
  store<u32>(<usize>LAYOUT_BASE + HDR_REGIONS + (<usize>r << 2), <u32>at);
  return align8(at + size);
}

/**
 * Computes every region's start offset for the given sizes and writes them into the
 * header's HDR_REGIONS table (REGION_COUNT u32 slots; the last is the end of used
 * memory). Node regions depend only on the node and pool counts, and JOBS only on them
 * too, so growing the job, pod-store or scratch capacities never moves a node record or
 * a job record (PODS and later regions may move; `reserveRegions` moves their contents).
 * Allocates nothing: the stub runtime never frees.
 */
export function computeRegions(
  nodeCount: u32,
  jobCap: u32,
  podStoreCap: u32,
  poolCount: u32,
  candidateCap: u32,
  podCap: u32,
): void {
  const n = <usize>nodeCount;
  const j = <usize>jobCap;
  const c = <usize>candidateCap;
  let at: usize = <usize>LAYOUT_BASE + HEADER_SIZE;
  at = putRegion(REGION_NODES, at, n * NODE_STRIDE);
  at = putRegion(REGION_POOL_STARTS, at, (<usize>poolCount + 1) * 4);
  at = putRegion(REGION_POOL_NODES, at, n * 4);
  at = putRegion(REGION_NODE_STAMPS, at, n * 4);
  at = putRegion(REGION_HEAP, at, n * 4);
  at = putRegion(REGION_UNDO, at, n * UNDO_STRIDE);
  const p = <usize>poolCount;
  const words = bucketWords(nodeCount);
  at = putRegion(REGION_NODE_SLOTS, at, n * 4);
  at = putRegion(REGION_BUCKET_COUNTS, at, p * BUCKETS * 4);
  at = putRegion(REGION_FREE_MASKS, at, p * 8);
  at = putRegion(REGION_LEVEL_MASKS, at, p * 33 * 4);
  at = putRegion(REGION_BUCKET_BITS, at, <usize>BUCKETS * words * 8);
  at = putRegion(REGION_BUCKET_SUMMARY, at, <usize>BUCKETS * ((words + 63) >>> 6) * 8);
  at = putRegion(REGION_SHARES, at, n * SHARE_STRIDE);
  at = putRegion(REGION_FRAG_CACHE, at, n * FRAG_STRIDE);
  at = putRegion(REGION_JOBS, at, j * JOB_STRIDE);
  at = putRegion(REGION_PODS, at, <usize>podStoreCap * POD_STRIDE);
  at = putRegion(REGION_JOB_STAMPS, at, j * 4);
  at = putRegion(REGION_CANDIDATES, at, c * CANDIDATE_STRIDE);
  at = putRegion(REGION_ORDER, at, c * 4);
  at = putRegion(REGION_OUT_VICTIMS, at, c * 4);
  at = putRegion(REGION_OUT_PODS, at, <usize>podCap * OUT_POD_STRIDE);
  at = putRegion(REGION_KEYS, at, c * KEY_STRIDE);
  putRegion(REGION_END, at, 0);
}

/** Start of region `r`, as last computed by `computeRegions`. */
@inline export function regionStart(r: i32): usize {
  return <usize>load<u32>(<usize>LAYOUT_BASE + HDR_REGIONS + (<usize>r << 2));
}
