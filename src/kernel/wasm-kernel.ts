/**
 * The WebAssembly kernel behind the `Kernel` contract. The snapshot is written once into
 * linear memory through typed views (ARCHITECTURE "The kernel's memory"); a query passes
 * only numbers, plus the candidate and constraint lists written into scratch, and reads
 * its answer from the output regions. Views are re-made whenever memory has grown, since
 * growth detaches the old ArrayBuffer.
 */
import { KernelError, type KernelErrorCode } from './kernel-error.js';
import { KERNEL_STATUS, STATUS_MEANING } from './kernel-status.js';
import { LAYOUT as LAYOUT_BINDING, computeRegions } from './layout.js';
import {
  PLACEMENT_STRATEGIES,
  failCandidate,
  failJob,
  isMaskValue,
  kernelDeficit,
  validateConstraints,
  validateJob,
  validateOrder,
  validateRequest,
  validateSnapshot,
  type SnapshotCounts,
} from './validate.js';
import { SHAPE_LAYOUT, kernelWorkload, shapeMilli } from './fragmentation.js';
import { DEFAULT_VICTIM_ORDER, encodeOrder, type VictimOrder } from './victim-order.js';
import { instantiateKernel, type KernelExports } from './wasm-module.js';
import { packedCandidates } from './packed-candidates.js';
import type {
  AloneResult,
  Candidate,
  GangRequest,
  Kernel,
  KernelJob,
  KernelSnapshot,
  PlacementResult,
  PodPlacement,
  PoolRoom,
  QuotaConstraint,
  VictimAlternative,
  VictimOptions,
  VictimResult,
  WorkloadShape,
} from './types.js';

/**
 * The layout, read once: where a CommonJS loader runs this module (tsx's, in the Piscina
 * workers of a TypeScript process) an imported binding is a getter, and the per-candidate
 * loops below read layout constants thousands of times per query — through the getter,
 * writing a query cost ~2× as much there (measured in B5's workers).
 */
const LAYOUT = LAYOUT_BINDING;

/** The workload of a fragmentation request that brings none: no shape to keep room for. */
const NO_WORKLOAD: readonly WorkloadShape[] = [];

/** A request's strategy as the wasm's code (0 binpack, 1 spread, 2 fragmentation). */
const strategyCode = (req: GangRequest): number => PLACEMENT_STRATEGIES.indexOf(req.strategy);

/** A node takes at most 32 pods of any shape: bigger gangs are answered "no room" without scratch. */
const MAX_PODS_PER_NODE = 32;
const INITIAL_CAP = 64;

/** Error code for each status that is not an answer. */
const STATUS_ERROR: Readonly<Record<number, KernelErrorCode>> = {
  [KERNEL_STATUS.STATUS_NOT_LOADED]: 'kernel/not-loaded',
  [KERNEL_STATUS.STATUS_BAD_CANDIDATE]: 'kernel/invalid-candidate',
  [KERNEL_STATUS.STATUS_DUPLICATE_CANDIDATE]: 'kernel/invalid-candidate',
  [KERNEL_STATUS.STATUS_BAD_CONSTRAINT]: 'kernel/invalid-constraint',
  [KERNEL_STATUS.STATUS_SCRATCH_TOO_SMALL]: 'kernel/internal',
  [KERNEL_STATUS.STATUS_OUT_OF_MEMORY]: 'kernel/out-of-memory',
  [KERNEL_STATUS.STATUS_BAD_SNAPSHOT]: 'kernel/invalid-snapshot',
  [KERNEL_STATUS.STATUS_BAD_REQUEST]: 'kernel/invalid-request',
  [KERNEL_STATUS.STATUS_BAD_ORDER]: 'kernel/invalid-order',
  [KERNEL_STATUS.STATUS_BAD_JOB]: 'kernel/invalid-job',
};

function statusError(status: number, call: string): KernelError {
  const meaning = STATUS_MEANING[status] ?? `unknown status ${status}`;
  return new KernelError(STATUS_ERROR[status] ?? 'kernel/internal', `wasm ${call}: ${meaning}`);
}

/** Placement and victim selection in WebAssembly; `backend` is 'wasm'. */
export class WasmKernel implements Kernel {
  readonly backend = 'wasm' as const;
  private readonly wasm: KernelExports;
  private buffer: ArrayBuffer | null = null;
  private u32 = new Uint32Array(0);
  private i32 = new Int32Array(0);
  private f64 = new Float64Array(0);
  private regions: number[] = [];
  /** Live sizes of the loaded snapshot: `jobs` and `pods` grow with addJob. */
  private counts: SnapshotCounts | null = null;
  private candidateCap = INITIAL_CAP;
  private podCap = INITIAL_CAP;
  /** Job slots and pod-store slots laid out in linear memory (≥ the counts). */
  private jobCap = 0;
  private podStoreCap = 0;
  /** The workload array last written to the wasm's table (rewritten only when another comes). */
  private workload: readonly WorkloadShape[] | null = null;

  /** Instantiates a kernel with its own linear memory; throws `kernel/wasm-missing` if unbuilt. */
  constructor() {
    this.wasm = instantiateKernel();
  }

  /** Queries the wasm kernel has answered (its own counter): proof the wasm path ran. */
  wasmCallCount(): number {
    return this.wasm.callCount();
  }

  /**
   * Each node's fragmentation under the workload of the last fragmentation request, as
   * the wasm caches it between queries (`fromCache`: −1 for a node with nothing cached)
   * or computed afresh: the test that holds the cache to fresh values reads both.
   */
  fragmentationScores(fromCache: boolean): number[] {
    const nodes = this.counts?.nodes ?? 0;
    return Array.from({ length: nodes }, (_, n) => this.wasm.fragmentationScore(n, fromCache ? 1 : 0));
  }

  /** One empty JS → wasm → JS round trip, for the benchmark's floor. */
  noop(): number {
    return this.wasm.noop();
  }

  /** Writes the snapshot into linear memory once; queries then address it by index. */
  load(snapshot: KernelSnapshot): void {
    const counts = validateSnapshot(snapshot);
    this.counts = null;
    this.reserve(counts, counts.jobs, counts.pods, this.candidateCap, this.podCap);
    this.writeNodes(snapshot);
    this.writeJobs(snapshot);
    const status = this.wasm.commit(counts.jobs, counts.pods);
    if (status !== KERNEL_STATUS.STATUS_OK) throw statusError(status, 'commit');
    this.counts = counts;
  }

  /** Adds a running job permanently; job slots and the pod store double when full. */
  addJob(job: KernelJob): number {
    const counts = this.loadedCounts();
    validateJob(job, counts.nodes);
    const jobCap = counts.jobs + 1 > this.jobCap ? Math.max(16, this.jobCap * 2) : this.jobCap;
    const need = counts.pods + job.pods.length;
    const podStoreCap = need > this.podStoreCap ? Math.max(need, 16, this.podStoreCap * 2) : this.podStoreCap;
    if (jobCap !== this.jobCap || podStoreCap !== this.podStoreCap) {
      this.reserve(counts, jobCap, podStoreCap, this.candidateCap, this.podCap);
    }
    this.writeJob(job, this.regions[LAYOUT.REGION_JOBS]! + counts.jobs * LAYOUT.JOB_STRIDE, counts.pods);
    const index = this.wasm.addJob();
    if (index < 0) throw statusError(-index, 'addJob');
    counts.jobs++;
    counts.pods = need;
    return index;
  }

  /** Frees job `index`'s pods permanently and retires the index. */
  removeJob(index: number): void {
    const counts = this.loadedCounts();
    if (!Number.isInteger(index) || index < 0 || index >= counts.jobs) failJob(`job ${index}`, 'is not a job of the snapshot');
    if (!this.isLive(index)) failJob(`job ${index}`, 'was already removed');
    const status = this.wasm.removeJob(index);
    if (status !== KERNEL_STATUS.STATUS_OK) throw statusError(status, 'removeJob');
  }

  /** Free capacity and fragmentation for the request's pod shape, computed in wasm. */
  room(req: GangRequest): PoolRoom {
    this.loadedCounts();
    validateRequest(req);
    this.writeModels(req);
    const status = this.wasm.room(req.gpu, req.cpu, req.mem, req.pool, req.strict ? 1 : 0);
    if (status !== KERNEL_STATUS.STATUS_OK) throw statusError(status, 'room');
    const base = LAYOUT.LAYOUT_BASE >>> 2;
    const freeGpus = this.u32[base + (LAYOUT.HDR_OUT_FREE >>> 2)]!;
    const podsFit = this.u32[base + (LAYOUT.HDR_OUT_FITS >>> 2)]!;
    return {
      freeGpus,
      largestFree: this.u32[base + (LAYOUT.HDR_OUT_LARGEST >>> 2)]!,
      podsFit,
      fragmentedGpus: freeGpus - Math.min(freeGpus, podsFit * req.gpu),
    };
  }

  /** Places the gang on free capacity; the loaded state is unchanged afterwards. */
  place(req: GangRequest): PlacementResult {
    const counts = this.loadedCounts();
    validateRequest(req);
    this.ensurePodCap(req.pods, counts);
    this.writeModels(req);
    const status = this.wasm.place(req.pods, req.gpu, req.cpu, req.mem, req.pool, strategyCode(req), req.strict ? 1 : 0);
    if (status === KERNEL_STATUS.STATUS_NO_ROOM) return { ok: false, pods: [] };
    if (status !== KERNEL_STATUS.STATUS_OK) throw statusError(status, 'place');
    return { ok: true, pods: this.readPods() };
  }

  /**
   * SEMANTICS 5.3 in wasm: one wasm call per alternative, each keeping the better set in
   * the kernel's output (assembly/victims.ts); the loaded state is unchanged afterwards.
   */
  selectVictims(req: GangRequest, alternatives: readonly VictimAlternative[], order: VictimOrder = DEFAULT_VICTIM_ORDER, options: VictimOptions = {}): VictimResult {
    const counts = this.loadedCounts();
    validateRequest(req);
    validateOrder(order);
    let most = 0;
    for (const alt of alternatives) {
      validateConstraints(alt.constraints);
      most = Math.max(most, alt.candidates.length);
    }
    // The kernel's scratch holds two lists per candidate (victims.ts).
    if (2 * most > this.candidateCap) {
      this.reserve(counts, this.jobCap, this.podStoreCap, Math.max(2 * most, this.candidateCap * 2), this.podCap);
    }
    this.ensurePodCap(req.pods, counts);
    const code = encodeOrder(order);
    const alone: AloneResult[] | undefined = options.alone ? [] : undefined;
    const header = LAYOUT.LAYOUT_BASE >>> 2;
    /** With `alone`, a losing alternative's placement overwrites OUT_PODS: the answer's is read when it becomes the answer. */
    let winnerPods: PodPlacement[] | null = null;
    this.writeModels(req);
    for (let a = 0; a < alternatives.length; a++) {
      const { candidates, constraints, standing } = alternatives[a]!;
      this.writeQuery(candidates, constraints, counts);
      const status = this.wasm.selectVictims(
        req.pods,
        req.gpu,
        req.cpu,
        req.mem,
        req.pool,
        strategyCode(req),
        req.strict ? 1 : 0,
        candidates.length,
        constraints.length,
        code,
        a,
        standing === 'in-quota' ? 0 : 1,
        alone ? 1 : 0,
      );
      if (status !== KERNEL_STATUS.STATUS_OK && status !== KERNEL_STATUS.STATUS_NO_ROOM) {
        if (status === KERNEL_STATUS.STATUS_BAD_CANDIDATE || status === KERNEL_STATUS.STATUS_DUPLICATE_CANDIDATE) this.locateEnded(candidates);
        throw statusError(status, 'selectVictims');
      }
      if (alone) {
        const ok = status === KERNEL_STATUS.STATUS_OK;
        const at = (this.regions[LAYOUT.REGION_OUT_VICTIMS]! >>> 2) + (this.candidateCap >>> 1);
        alone.push({ ok, victims: ok ? this.readList(at, this.wasm.aloneCount()) : [] });
        if (this.i32[header + (LAYOUT.HDR_OUT_ALTERNATIVE >>> 2)] === a) winnerPods = this.readPods();
      }
    }
    const alternative = this.i32[header + (LAYOUT.HDR_OUT_ALTERNATIVE >>> 2)]!;
    if (alternatives.length === 0 || alternative < 0) return { ok: false, victims: [], pods: [], alternative: -1, exact: false, ...(alone ? { alone } : {}) };
    const count = this.u32[header + (LAYOUT.HDR_OUT_VICTIM_COUNT >>> 2)]!;
    const at = this.regions[LAYOUT.REGION_OUT_VICTIMS]! >>> 2;
    return {
      ok: true,
      victims: this.readList(at, count),
      pods: winnerPods ?? this.readPods(),
      alternative,
      exact: this.u32[header + (LAYOUT.HDR_OUT_EXACT >>> 2)] === 1,
      ...(alone ? { alone } : {}),
    };
  }

  private loadedCounts(): SnapshotCounts {
    if (!this.counts) throw new KernelError('kernel/not-loaded', 'call load(snapshot) before a query');
    return this.counts;
  }

  /**
   * Lays memory out for these node/pool counts and capacities (growing it), then
   * re-makes the views. The wasm keeps a loaded state whose jobs and pods still fit.
   */
  private reserve(counts: SnapshotCounts, jobCap: number, podStoreCap: number, candidateCap: number, podCap: number): void {
    const status = this.wasm.reserve(counts.nodes, jobCap, podStoreCap, counts.pools, candidateCap, podCap);
    if (status !== KERNEL_STATUS.STATUS_OK) throw statusError(status, 'reserve');
    this.jobCap = jobCap;
    this.podStoreCap = podStoreCap;
    this.candidateCap = candidateCap;
    this.podCap = podCap;
    this.regions = computeRegions({ nodes: counts.nodes, jobs: jobCap, pods: podStoreCap, pools: counts.pools, candidateCap, podCap });
    const end = this.wasm.regionOffset(LAYOUT.REGION_END);
    if (end !== this.regions[LAYOUT.REGION_END]) {
      throw new KernelError('kernel/layout-mismatch', `wasm ends its regions at ${end}, src/kernel/layout.ts at ${this.regions[LAYOUT.REGION_END]}`);
    }
    this.refreshViews();
  }

  /** Re-makes the typed views when the wasm's memory grew (a grown memory has a new buffer). */
  private refreshViews(): void {
    const buffer = this.wasm.memory.buffer;
    if (buffer !== this.buffer) {
      this.buffer = buffer;
      this.u32 = new Uint32Array(buffer);
      this.i32 = new Int32Array(buffer);
      this.f64 = new Float64Array(buffer);
    }
  }

  /** Output pods are bounded by the gang size; only gangs that could fit at all need room. */
  private ensurePodCap(pods: number, counts: SnapshotCounts): void {
    if (pods > this.podCap && pods <= counts.nodes * MAX_PODS_PER_NODE) {
      this.reserve(counts, this.jobCap, this.podStoreCap, this.candidateCap, Math.max(pods, this.podCap * 2));
    }
  }

  private writeNodes(snapshot: KernelSnapshot): void {
    const { u32, f64 } = this;
    let at = this.regions[LAYOUT.REGION_NODES]!;
    for (const node of snapshot.nodes) {
      u32[(at + LAYOUT.NODE_MASK) >>> 2] = node.usedMask >>> 0;
      u32[(at + LAYOUT.NODE_GPUS) >>> 2] = node.gpus;
      f64[(at + LAYOUT.NODE_FREE_CPU) >>> 3] = node.freeCpu;
      f64[(at + LAYOUT.NODE_FREE_MEM) >>> 3] = node.freeMem;
      u32[(at + LAYOUT.NODE_POOL) >>> 2] = node.pool;
      u32[(at + LAYOUT.NODE_MODEL) >>> 2] = node.model ?? 0;
      at += LAYOUT.NODE_STRIDE;
    }
  }

  /** Jobs with their cost keys, and their pods flattened in job order (podStart/podCount). */
  private writeJobs(snapshot: KernelSnapshot): void {
    let jobAt = this.regions[LAYOUT.REGION_JOBS]!;
    let podIndex = 0;
    for (const job of snapshot.jobs) {
      this.writeJob(job, jobAt, podIndex);
      podIndex += job.pods.length;
      jobAt += LAYOUT.JOB_STRIDE;
    }
  }

  /** One job record at byte offset `jobAt`, its pods at pod-store slot `podIndex` onwards. */
  private writeJob(job: KernelJob, jobAt: number, podIndex: number): void {
    const { u32, i32, f64 } = this;
    f64[(jobAt + LAYOUT.JOB_LOST_WORK) >>> 3] = job.lostWork;
    f64[(jobAt + LAYOUT.JOB_STARTED_AT) >>> 3] = job.startedAt;
    i32[(jobAt + LAYOUT.JOB_RANK) >>> 2] = job.rank;
    i32[(jobAt + LAYOUT.JOB_PRIORITY) >>> 2] = job.priority;
    i32[(jobAt + LAYOUT.JOB_GPUS) >>> 2] = job.gpus;
    i32[(jobAt + LAYOUT.JOB_ORDER) >>> 2] = job.order;
    u32[(jobAt + LAYOUT.JOB_POD_START) >>> 2] = podIndex;
    u32[(jobAt + LAYOUT.JOB_POD_COUNT) >>> 2] = job.pods.length;
    let podAt = this.regions[LAYOUT.REGION_PODS]! + podIndex * LAYOUT.POD_STRIDE;
    for (const pod of job.pods) {
      u32[(podAt + LAYOUT.POD_NODE) >>> 2] = pod.node;
      u32[(podAt + LAYOUT.POD_MASK) >>> 2] = pod.mask >>> 0;
      f64[(podAt + LAYOUT.POD_CPU) >>> 3] = pod.cpu;
      f64[(podAt + LAYOUT.POD_MEM) >>> 3] = pod.mem;
      u32[(podAt + LAYOUT.POD_MILLI) >>> 2] = pod.milli ?? 0;
      podAt += LAYOUT.POD_STRIDE;
    }
  }

  /** True unless removeJob ended job `j` (read from the job's flags in linear memory). */
  private isLive(j: number): boolean {
    const flags = this.u32[(this.regions[LAYOUT.REGION_JOBS]! + j * LAYOUT.JOB_STRIDE + LAYOUT.JOB_FLAGS) >>> 2]!;
    return (flags & LAYOUT.JOB_REMOVED) === 0;
  }

  /**
   * A fragmentation request's workload into the wasm's static table, with integer
   * weights (kernelWorkload), when it is another array than the one written last.
   */
  private writeWorkload(req: GangRequest): void {
    if (req.strategy !== 'fragmentation') return;
    const workload = req.workload ?? NO_WORKLOAD;
    if (workload !== this.workload) this.writeShapes(workload);
    // The wasm's memo of ranks lives past the regions and may grow memory: views follow.
    // Without memory for it (prepareMemo 0) placements are the same, only slower.
    this.wasm.prepareMemo();
    this.refreshViews();
  }

  /** The workload's shapes into the wasm's static table, with integer weights (kernelWorkload). */
  private writeShapes(workload: readonly WorkloadShape[]): void {
    const { u32, f64 } = this;
    let at = this.wasm.workloadPtr();
    for (const shape of kernelWorkload(workload)) {
      u32[(at + SHAPE_LAYOUT.SHAPE_GPU) >>> 2] = shape.gpu;
      u32[(at + SHAPE_LAYOUT.SHAPE_MILLI) >>> 2] = shapeMilli(shape);
      u32[(at + SHAPE_LAYOUT.SHAPE_MODELS) >>> 2] = (shape.models ?? 0) >>> 0;
      f64[(at + SHAPE_LAYOUT.SHAPE_CPU) >>> 3] = shape.cpu;
      f64[(at + SHAPE_LAYOUT.SHAPE_WEIGHT) >>> 3] = shape.weight;
      f64[(at + SHAPE_LAYOUT.SHAPE_MEM) >>> 3] = shape.mem ?? 0;
      at += SHAPE_LAYOUT.SHAPE_STRIDE;
    }
    const status = this.wasm.setWorkload(workload.length);
    if (status !== KERNEL_STATUS.STATUS_OK) throw statusError(status, 'setWorkload');
    this.workload = workload;
  }

  /** The request's allowed-models mask and share into the header, where the wasm reads them per query. */
  private writeModels(req: GangRequest): void {
    this.writeWorkload(req);
    this.u32[(LAYOUT.LAYOUT_BASE + LAYOUT.HDR_REQ_MODELS) >>> 2] = (req.models ?? 0) >>> 0;
    this.u32[(LAYOUT.LAYOUT_BASE + LAYOUT.HDR_REQ_MILLI) >>> 2] = req.milli ?? 0;
  }

  /** Throws, located, for the first candidate naming a job removeJob ended (the wasm found one, or a duplicate). */
  private locateEnded(candidates: readonly Candidate[]): void {
    for (let i = 0; i < candidates.length; i++) {
      const { job } = candidates[i]!;
      if (!this.isLive(job)) failCandidate(i, `names job ${job}, which removeJob ended`);
    }
  }

  /** Candidates into CANDIDATES, constraints into the header; the wasm checks that each is live and none repeats. */
  private writeQuery(candidates: Candidate[], constraints: QuotaConstraint[], counts: SnapshotCounts): void {
    const { u32, f64 } = this;
    let at = this.regions[LAYOUT.REGION_CANDIDATES]!;
    const packed = packedCandidates(candidates);
    if (packed) {
      // The list's columns (packed-candidates.ts): two typed-array reads per candidate, no object.
      const { jobs, masks } = packed;
      const stride = LAYOUT.CANDIDATE_STRIDE >>> 2;
      let w = (at + LAYOUT.CANDIDATE_JOB) >>> 2;
      const maskOffset = (LAYOUT.CANDIDATE_MASK - LAYOUT.CANDIDATE_JOB) >>> 2;
      for (let i = 0; i < jobs.length; i++) {
        const job = jobs[i]!;
        if (job < 0 || job >= counts.jobs) failCandidate(i, '.job must index a job of the snapshot');
        u32[w] = job;
        u32[w + maskOffset] = masks[i]! >>> 0;
        w += stride;
      }
    } else
      for (let i = 0; i < candidates.length; i++) {
        const { job, constraintMask } = candidates[i]!;
        if (!Number.isInteger(job) || job < 0 || job >= counts.jobs) failCandidate(i, '.job must index a job of the snapshot');
        // Whether the job is live the wasm checks (a read of its record, so one cache miss
        // per candidate, done once there, not twice); `locateEnded` names the ended one.
        if (!isMaskValue(constraintMask)) failCandidate(i, '.constraintMask must be a 32-bit integer mask');
        u32[(at + LAYOUT.CANDIDATE_JOB) >>> 2] = job;
        u32[(at + LAYOUT.CANDIDATE_MASK) >>> 2] = constraintMask >>> 0;
        at += LAYOUT.CANDIDATE_STRIDE;
      }
    at = LAYOUT.LAYOUT_BASE + LAYOUT.HDR_CONSTRAINTS;
    for (const c of constraints) {
      u32[(at + LAYOUT.CONSTRAINT_RESOURCE) >>> 2] = c.resource;
      f64[(at + LAYOUT.CONSTRAINT_DEFICIT) >>> 3] = kernelDeficit(c.resource, c.deficit);
      at += LAYOUT.CONSTRAINT_STRIDE;
    }
  }

  /**
   * `count` u32s of linear memory from u32 index `at`, as a plain array. A loop, not
   * `Array.from(u32.subarray(...))`: that goes through the iterator protocol and was
   * most of selectVictims' own JS time in a B5 profile.
   */
  private readList(at: number, count: number): number[] {
    const { u32 } = this;
    const list = new Array<number>(count);
    for (let i = 0; i < count; i++) list[i] = u32[at + i]!;
    return list;
  }

  private readPods(): PodPlacement[] {
    const { u32 } = this;
    const count = u32[(LAYOUT.LAYOUT_BASE + LAYOUT.HDR_OUT_POD_COUNT) >>> 2]!;
    let at = this.regions[LAYOUT.REGION_OUT_PODS]!;
    const pods = new Array<PodPlacement>(count);
    for (let p = 0; p < count; p++) {
      pods[p] = { node: u32[(at + LAYOUT.OUT_POD_NODE) >>> 2]!, mask: u32[(at + LAYOUT.OUT_POD_MASK) >>> 2]! };
      at += LAYOUT.OUT_POD_STRIDE;
    }
    return pods;
  }
}
