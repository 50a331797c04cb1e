/**
 * The pure-TypeScript twin of the wasm kernel (ARCHITECTURE "The pure-TS twin"): the same
 * placement and victim selection, written for clarity. It is the oracle of the
 * differential property test and the baseline the B2 benchmark measures the kernel
 * against; every arithmetic step happens in the same order as in `assembly/`, so the
 * two agree bit for bit, not just approximately.
 */
import { KernelError } from './kernel-error.js';
import { popcount } from './gpu-mask.js';
import { WorkingNodes, placeGang } from './reference-placement.js';
import { beatsAcross, bestForAlternative, type AlternativeBest, type JobTotals } from './reference-victims.js';
import { validateCandidates, validateConstraints, validateOrder, validateRequest, validateSnapshot } from './validate.js';
import { DEFAULT_VICTIM_ORDER, compareJobs, type VictimOrder } from './victim-order.js';
import type {
  GangRequest, Kernel, KernelJob, KernelSnapshot, PlacementResult, PodPlacement, VictimAlternative, VictimResult,
} from './types.js';

/** Frees every pod of `job` on `nodes` (a query's copy-on-write view). */
function freeJob(nodes: WorkingNodes, job: KernelJob): void {
  for (const pod of job.pods) {
    const state = nodes.edit(pod.node);
    state.usedMask = (state.usedMask & ~pod.mask) >>> 0;
    state.freeCpu += pod.cpu;
    state.freeMem += pod.mem;
  }
}

/** Placement and victim selection in plain TypeScript; `backend` is 'reference'. */
export class ReferenceKernel implements Kernel {
  readonly backend = 'reference' as const;
  private snapshot: KernelSnapshot | null = null;
  private poolNodes = new Map<number, number[]>();
  private totals: JobTotals[] = [];

  /** Keeps the snapshot (never mutated) and indexes nodes by pool and jobs by totals. */
  load(snapshot: KernelSnapshot): void {
    validateSnapshot(snapshot);
    this.snapshot = snapshot;
    this.poolNodes = new Map();
    snapshot.nodes.forEach((node, n) => {
      const list = this.poolNodes.get(node.pool) ?? [];
      list.push(n);
      this.poolNodes.set(node.pool, list);
    });
    this.totals = snapshot.jobs.map((job) => {
      const totals: JobTotals = { gpu: 0, cpu: 0, mem: 0 };
      for (const pod of job.pods) {
        totals.gpu += popcount(pod.mask);
        totals.cpu += pod.cpu;
        totals.mem += pod.mem;
      }
      return totals;
    });
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
   * its victims free.
   */
  selectVictims(req: GangRequest, alternatives: readonly VictimAlternative[], order: VictimOrder = DEFAULT_VICTIM_ORDER): VictimResult {
    const snapshot = this.loaded();
    validateRequest(req);
    validateOrder(order);
    for (const alt of alternatives) {
      validateConstraints(alt.constraints);
      validateCandidates(alt.candidates, snapshot.jobs.length);
    }
    const poolNodes = this.poolOf(req);
    let winner: { best: AlternativeBest; index: number; rank: number; pods: PodPlacement[] } | null = null;
    alternatives.forEach((alt, index) => {
      const best = bestForAlternative(snapshot, poolNodes, req, alt, this.totals, order);
      if (!best) return;
      const rank = alt.standing === 'in-quota' ? 0 : 1;
      if (winner && !beatsAcross(snapshot.jobs, best, rank, winner.best, winner.rank, order)) return;
      const nodes = new WorkingNodes(snapshot.nodes);
      for (const j of best.jobs) freeJob(nodes, snapshot.jobs[j]!);
      const pods = placeGang(nodes, poolNodes, req);
      if (pods) winner = { best, index, rank, pods };
    });
    if (!winner) return { ok: false, victims: [], pods: [], alternative: -1, exact: false };
    const won: { best: AlternativeBest; index: number; pods: PodPlacement[] } = winner;
    const victims = [...won.best.jobs].sort((a, b) => compareJobs(snapshot.jobs[a]!, snapshot.jobs[b]!, a, b, order, 0));
    return { ok: true, victims, pods: won.pods, alternative: won.index, exact: won.best.exact };
  }

  private loaded(): KernelSnapshot {
    if (!this.snapshot) throw new KernelError('kernel/not-loaded', 'call load(snapshot) before a query');
    return this.snapshot;
  }

  private poolOf(req: GangRequest): readonly number[] {
    return this.poolNodes.get(req.pool) ?? [];
  }
}
