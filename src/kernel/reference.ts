/**
 * The pure-TypeScript twin of the wasm kernel (ARCHITECTURE "The pure-TS twin"): the same
 * placement and victim selection, written for clarity. It is the oracle of the
 * differential property test and the baseline the B2 benchmark measures the kernel
 * against; every arithmetic step happens in the same order as in `assembly/`, so the
 * two agree bit for bit, not just approximately.
 */
import { KernelError } from './kernel-error.js';
import { popcount } from './gpu-mask.js';
import { WorkingNodes, applyPodTo, fitsOf, freeGpus, modelAllowed, placeGang, type TwinNode } from './reference-placement.js';
import { beatsAcross, bestForAlternative, type AlternativeBest, type JobTotals, type TwinSnapshot } from './reference-victims.js';
import { MILLI_PER_GPU, failJob, validateCandidates, validateConstraints, validateJob, validateOrder, validateRequest, validateSnapshot } from './validate.js';
import { DEFAULT_VICTIM_ORDER, compareJobs, type VictimOrder } from './victim-order.js';
import type { AloneResult, GangRequest, Kernel, KernelJob, KernelNode, KernelSnapshot, PlacementResult, PodPlacement, PoolRoom, VictimAlternative, VictimOptions, VictimResult } from './types.js';

/** Frees every pod of `job` on `nodes` (a query's copy-on-write view). */
function freeJob(nodes: WorkingNodes, job: KernelJob): void {
  for (const pod of job.pods) applyPodTo(nodes.edit(pod.node), pod, false);
}

/** What a job's eviction frees, summed over its pods in pod order; GPUs in milli-GPUs (shares exact). */
function jobTotals(job: KernelJob): JobTotals {
  const totals: JobTotals = { gpu: 0, cpu: 0, mem: 0 };
  for (const pod of job.pods) {
    totals.gpu += pod.milli ? pod.milli : popcount(pod.mask) * MILLI_PER_GPU;
    totals.cpu += pod.cpu;
    totals.mem += pod.mem;
  }
  return totals;
}

/** The node's GPUs as an unsigned mask. */
const fullMaskOf = (node: KernelNode): number => (node.gpus >= 32 ? 0xffffffff : 2 ** node.gpus - 1);

/** Puts a pod on its node (occupy) or takes it off, in the wasm kernel's arithmetic order. */
function applyPod(node: TwinNode, pod: KernelJob['pods'][number], occupy: boolean): void {
  applyPodTo(node, pod, occupy);
}

/** Placement and victim selection in plain TypeScript; `backend` is 'reference'. */
export class ReferenceKernel implements Kernel {
  readonly backend = 'reference' as const;
  /** The kernel's own copy: node records change with addJob/removeJob, the caller's never do. */
  private snapshot: TwinSnapshot | null = null;
  private poolNodes = new Map<number, number[]>();
  private totals: JobTotals[] = [];
  /** removed[j]: removeJob ended job j. */
  private removed: boolean[] = [];

  /** Copies the nodes and the job list, and indexes nodes by pool and jobs by totals. */
  load(snapshot: KernelSnapshot): void {
    validateSnapshot(snapshot);
    const nodes: TwinNode[] = snapshot.nodes.map((n) => ({ ...n, shares: new Array<number>(n.gpus).fill(0) }));
    // Shares are derived from the sharing pods, as the wasm's commit does (validate checked the sums).
    for (const job of snapshot.jobs) for (const pod of job.pods) if (pod.milli) nodes[pod.node]!.shares[Math.log2(pod.mask >>> 0)]! += pod.milli;
    this.snapshot = { nodes, jobs: [...snapshot.jobs] };
    this.poolNodes = new Map();
    snapshot.nodes.forEach((node, n) => {
      const list = this.poolNodes.get(node.pool) ?? [];
      list.push(n);
      this.poolNodes.set(node.pool, list);
    });
    this.totals = snapshot.jobs.map(jobTotals);
    this.removed = snapshot.jobs.map(() => false);
  }

  /**
   * Adds a running job permanently: each pod in turn must name GPUs of its node that are
   * free (after the job's earlier pods), else nothing changes and `kernel/invalid-job`.
   */
  addJob(job: KernelJob): number {
    const snapshot = this.loaded();
    validateJob(job, snapshot.nodes.length);
    const masks = new Map<number, number>();
    const shares = new Map<number, number>();
    job.pods.forEach((pod, p) => {
      const node = snapshot.nodes[pod.node]!;
      const used = masks.get(pod.node) ?? node.usedMask;
      const mask = pod.mask >>> 0;
      if (mask > fullMaskOf(node)) failJob(`job.pods[${p}].mask`, `names a GPU node ${pod.node} does not have`);
      if (pod.milli) {
        // A share goes on a free GPU or one other shares use, up to 1000 milli in all.
        const g = Math.log2(mask);
        const key = pod.node * 32 + g;
        const share = shares.get(key) ?? node.shares[g]!;
        if (share === 0 && (used & mask) >>> 0 !== 0) failJob(`job.pods[${p}].mask`, `names GPU ${g} of node ${pod.node}, which a whole-GPU pod holds`);
        if (share + pod.milli > MILLI_PER_GPU) failJob(`job.pods[${p}].milli`, `brings GPU ${g} of node ${pod.node} above ${MILLI_PER_GPU} milli`);
        shares.set(key, share + pod.milli);
      } else if ((used & mask) >>> 0 !== 0) {
        failJob(`job.pods[${p}].mask`, `names a GPU of node ${pod.node} that is already held`);
      }
      masks.set(pod.node, (used | mask) >>> 0);
    });
    for (const pod of job.pods) applyPod(snapshot.nodes[pod.node]!, pod, true);
    snapshot.jobs.push(job);
    this.totals.push(jobTotals(job));
    this.removed.push(false);
    return snapshot.jobs.length - 1;
  }

  /** Frees job `index`'s pods permanently and retires the index. */
  removeJob(index: number): void {
    const snapshot = this.loaded();
    if (!Number.isInteger(index) || index < 0 || index >= snapshot.jobs.length) failJob(`job ${index}`, 'is not a job of the snapshot');
    if (this.removed[index]) failJob(`job ${index}`, 'was already removed');
    for (const pod of snapshot.jobs[index]!.pods) applyPod(snapshot.nodes[pod.node]!, pod, false);
    this.removed[index] = true;
  }

  /** Free capacity and fragmentation for the request's pod shape over its pool's allowed nodes. */
  room(req: GangRequest): PoolRoom {
    const snapshot = this.loaded();
    validateRequest(req);
    const nodes = new WorkingNodes(snapshot.nodes);
    let freeGpusSum = 0;
    let largestFree = 0;
    let podsFit = 0;
    for (const n of this.poolOf(req)) {
      if (!modelAllowed(snapshot.nodes[n]!, req)) continue;
      const free = freeGpus(nodes, n);
      freeGpusSum += free;
      largestFree = Math.max(largestFree, free);
      podsFit += fitsOf(nodes, n, req);
    }
    return {
      freeGpus: freeGpusSum,
      largestFree,
      podsFit,
      fragmentedGpus: freeGpusSum - Math.min(freeGpusSum, podsFit * req.gpu),
    };
  }

  /** Places the gang on free capacity; the loaded snapshot is unchanged. */
  place(req: GangRequest): PlacementResult {
    const snapshot = this.loaded();
    validateRequest(req);
    const pods = placeGang(new WorkingNodes(snapshot.nodes), this.poolOf(req), req);
    return pods ? { ok: true, pods } : { ok: false, pods: [] };
  }

  /**
   * The whole of SEMANTICS 5.3 (reference-victims.ts): each alternative's best set, then
   * the best across alternatives by the same order; the winner is placed on the nodes
   * its victims free. With `options.alone`, every alternative's set is placed, and each
   * one's own answer is reported too.
   */
  selectVictims(req: GangRequest, alternatives: readonly VictimAlternative[], order: VictimOrder = DEFAULT_VICTIM_ORDER, options: VictimOptions = {}): VictimResult {
    const snapshot = this.loaded();
    validateRequest(req);
    validateOrder(order);
    for (const alt of alternatives) {
      validateConstraints(alt.constraints);
      validateCandidates(alt.candidates, snapshot.jobs.length, (j) => !this.removed[j]);
    }
    const poolNodes = this.poolOf(req);
    const inJobOrder = (jobs: readonly number[]): number[] => [...jobs].sort((a, b) => compareJobs(snapshot.jobs[a]!, snapshot.jobs[b]!, a, b, order, 0));
    const alone: AloneResult[] = [];
    let winner: { best: AlternativeBest; index: number; rank: number; pods: PodPlacement[] } | null = null;
    alternatives.forEach((alt, index) => {
      const best = bestForAlternative(snapshot, poolNodes, req, alt, this.totals, order);
      if (!best) {
        alone.push({ ok: false, victims: [] });
        return;
      }
      const rank = alt.standing === 'in-quota' ? 0 : 1;
      const wins = !winner || beatsAcross(snapshot.jobs, best, rank, winner.best, winner.rank, order);
      if (!wins && !options.alone) return;
      const nodes = new WorkingNodes(snapshot.nodes);
      for (const j of best.jobs) freeJob(nodes, snapshot.jobs[j]!);
      const pods = placeGang(nodes, poolNodes, req);
      alone.push(pods ? { ok: true, victims: inJobOrder(best.jobs) } : { ok: false, victims: [] });
      if (pods && wins) winner = { best, index, rank, pods };
    });
    const each = options.alone ? { alone } : {};
    if (!winner) return { ok: false, victims: [], pods: [], alternative: -1, exact: false, ...each };
    const won: { best: AlternativeBest; index: number; pods: PodPlacement[] } = winner;
    return { ok: true, victims: inJobOrder(won.best.jobs), pods: won.pods, alternative: won.index, exact: won.best.exact, ...each };
  }

  private loaded(): TwinSnapshot {
    if (!this.snapshot) throw new KernelError('kernel/not-loaded', 'call load(snapshot) before a query');
    return this.snapshot;
  }

  private poolOf(req: GangRequest): readonly number[] {
    return this.poolNodes.get(req.pool) ?? [];
  }
}
