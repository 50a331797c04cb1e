/**
 * The JS mirror of `assembly/layout.ts`: where the kernel's linear memory keeps each
 * region and each field. The picture lives there; `test/unit/kernel/layout.test.ts`
 * compares every constant below with the wasm's exported globals and `computeRegions`
 * with the wasm's own, so a change on one side that misses the other fails a test
 * (and a stale build/kernel.wasm fails at load with `kernel/layout-mismatch`).
 *
 * All offsets are bytes; every region starts 8-byte aligned so Float64Array views work.
 */
export const LAYOUT = {
  LAYOUT_BASE: 65536,
  HEADER_SIZE: 1024,
  HDR_OUT_POD_COUNT: 0,
  HDR_OUT_VICTIM_COUNT: 4,
  HDR_REGIONS: 928,
  HDR_CONSTRAINTS: 64,
  HDR_OUT_ALTERNATIVE: 576,
  HDR_OUT_EXACT: 580,
  HDR_DEFICITS: 640,
  MAX_CONSTRAINTS: 32,
  HDR_REQ_MODELS: 896,
  HDR_OUT_FREE: 900,
  HDR_OUT_LARGEST: 904,
  HDR_OUT_FITS: 908,
  HDR_REQ_MILLI: 912,
  NODE_STRIDE: 32,
  NODE_MASK: 0,
  NODE_GPUS: 4,
  NODE_FREE_CPU: 8,
  NODE_FREE_MEM: 16,
  NODE_POOL: 24,
  NODE_MODEL: 28,
  JOB_STRIDE: 64,
  JOB_LOST_WORK: 0,
  JOB_STARTED_AT: 8,
  JOB_CPU_SUM: 16,
  JOB_MEM_SUM: 24,
  JOB_RANK: 32,
  JOB_PRIORITY: 36,
  JOB_GPUS: 40,
  JOB_ORDER: 44,
  JOB_POD_START: 48,
  JOB_POD_COUNT: 52,
  JOB_GPU_SUM: 56,
  JOB_FLAGS: 60,
  JOB_REMOVED: 1,
  POD_STRIDE: 32,
  POD_NODE: 0,
  POD_MASK: 4,
  POD_CPU: 8,
  POD_MEM: 16,
  POD_MILLI: 24,
  SHARE_STRIDE: 64,
  MILLI_PER_GPU: 1000,
  UNDO_STRIDE: 88,
  UNDO_NODE: 0,
  UNDO_MASK: 4,
  UNDO_FREE_CPU: 8,
  UNDO_FREE_MEM: 16,
  UNDO_SHARES: 24,
  FRAG_STRIDE: 16,
  FRAG_BEFORE: 0,
  FRAG_VERSION: 8,
  CONSTRAINT_STRIDE: 16,
  CONSTRAINT_RESOURCE: 0,
  CONSTRAINT_DEFICIT: 8,
  CANDIDATE_STRIDE: 8,
  CANDIDATE_JOB: 0,
  CANDIDATE_MASK: 4,
  KEY_STRIDE: 64,
  OUT_POD_STRIDE: 8,
  OUT_POD_NODE: 0,
  OUT_POD_MASK: 4,
  NODE_INDEX_BITS: 25,
  LEVELS: 7,
  BUCKETS: 231,
  MAX_NODES: 1 << 25,
  REGION_NODES: 0,
  REGION_POOL_STARTS: 1,
  REGION_POOL_NODES: 2,
  REGION_NODE_STAMPS: 3,
  REGION_HEAP: 4,
  REGION_UNDO: 5,
  REGION_NODE_SLOTS: 6,
  REGION_BUCKET_COUNTS: 7,
  REGION_FREE_MASKS: 8,
  REGION_LEVEL_MASKS: 9,
  REGION_BUCKET_BITS: 10,
  REGION_BUCKET_SUMMARY: 11,
  REGION_SHARES: 12,
  REGION_FRAG_CACHE: 13,
  REGION_JOBS: 14,
  REGION_PODS: 15,
  REGION_JOB_STAMPS: 16,
  REGION_CANDIDATES: 17,
  REGION_ORDER: 18,
  REGION_OUT_VICTIMS: 19,
  REGION_OUT_PODS: 20,
  REGION_KEYS: 21,
  REGION_END: 22,
  REGION_COUNT: 23,
} as const;

/**
 * The sizes a layout depends on: the snapshot's node and pool counts, and capacities —
 * job slots and pod-store slots (at least the loaded jobs and pods; addJob fills them),
 * and the scratch capacities.
 */
export interface LayoutSizes {
  nodes: number;
  /** Job slots. */
  jobs: number;
  /** Pod-store slots. */
  pods: number;
  pools: number;
  candidateCap: number;
  podCap: number;
}

const align8 = (x: number): number => Math.ceil(x / 8) * 8;

/**
 * Region start offsets (indexed by `LAYOUT.REGION_*`; the last entry is the end of used
 * memory), computed exactly as `assembly/layout.ts` `computeRegions` does. Node regions
 * come first and JOBS after them, so growing the job, pod-store or scratch capacities
 * never moves a node or job record.
 */
export function computeRegions(sizes: LayoutSizes): number[] {
  const { nodes, jobs, pods, pools, candidateCap, podCap } = sizes;
  /** 64-bit words of one free-GPU bucket's bitset (assembly/buckets.ts). */
  const words = Math.ceil(nodes / 64);
  const regionSizes = [
    nodes * LAYOUT.NODE_STRIDE,
    (pools + 1) * 4,
    nodes * 4,
    nodes * 4,
    nodes * 4,
    nodes * LAYOUT.UNDO_STRIDE,
    nodes * 4,
    pools * LAYOUT.BUCKETS * 4,
    pools * 8,
    pools * 33 * 4,
    LAYOUT.BUCKETS * words * 8,
    LAYOUT.BUCKETS * Math.ceil(words / 64) * 8,
    nodes * LAYOUT.SHARE_STRIDE,
    nodes * LAYOUT.FRAG_STRIDE,
    jobs * LAYOUT.JOB_STRIDE,
    pods * LAYOUT.POD_STRIDE,
    jobs * 4,
    candidateCap * LAYOUT.CANDIDATE_STRIDE,
    candidateCap * 4,
    candidateCap * 4,
    podCap * LAYOUT.OUT_POD_STRIDE,
    candidateCap * LAYOUT.KEY_STRIDE,
  ];
  const starts: number[] = [];
  let at = LAYOUT.LAYOUT_BASE + LAYOUT.HEADER_SIZE;
  for (const size of regionSizes) {
    starts.push(at);
    at = align8(at + size);
  }
  starts.push(at);
  return starts;
}
