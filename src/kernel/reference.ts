/**
 * The pure-TypeScript twin of the wasm kernel (ARCHITECTURE "The pure-TS twin"): the same
 * placement and victim selection, written for clarity. It is the oracle of the
 * differential property test and the baseline the B2 benchmark measures the kernel
 * against; every arithmetic step happens in the same order as in `assembly/`, so the
 * two agree bit for bit, not just approximately.
 */
import { KernelError } from './kernel-error.js';
import { popcount } from './gpu-mask.js';
import { WorkingNodes, fitsOf, placeGang } from './reference-placement.js';
import { validateCandidates, validateConstraints, validateRequest, validateSnapshot } from './validate.js';
import {
  RESOURCE_CPU,
  RESOURCE_GPU,
  type Candidate,
  type GangRequest,
  type Kernel,
  type KernelJob,
  type KernelSnapshot,
  type PlacementResult,
  type QuotaConstraint,
  type VictimResult,
} from './types.js';

/** What evicting a job frees, per quota resource (summed over its pods in pod order). */
interface JobTotals {
  gpu: number;
  cpu: number;
  mem: number;
}

/**
 * SEMANTICS 5.3's preference order between two candidate jobs, as a comparator:
 * 1. rank (idle < borrowing < in-quota), then priority, ascending;
 * 2. lost work ascending; 3. GPUs ascending;
 * 5. start time descending (more recent first), then name order ascending;
 * last, the position in the candidate list, so the order is total.
 */
export function compareVictims(a: KernelJob, b: KernelJob, posA: number, posB: number): number {
  if (a.rank !== b.rank) return a.rank < b.rank ? -1 : 1;
  if (a.priority !== b.priority) return a.priority < b.priority ? -1 : 1;
  if (a.lostWork !== b.lostWork) return a.lostWork < b.lostWork ? -1 : 1;
  if (a.gpus !== b.gpus) return a.gpus < b.gpus ? -1 : 1;
  if (a.startedAt !== b.startedAt) return a.startedAt > b.startedAt ? -1 : 1;
  if (a.order !== b.order) return a.order < b.order ? -1 : 1;
  return posA - posB;
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
   * Greedy in preference order until every constraint is relieved and the gang fits,
   * then a reprieve in reverse order; feasibility is monotone in the freed set, so the
   * result is minimal (invariant 4).
   */
  selectVictims(req: GangRequest, candidates: Candidate[], constraints: QuotaConstraint[]): VictimResult {
    const snapshot = this.loaded();
    validateRequest(req);
    validateConstraints(constraints);
    validateCandidates(candidates, snapshot.jobs.length);
    const fail: VictimResult = { ok: false, victims: [], pods: [] };

    const nodes = new WorkingNodes(snapshot.nodes);
    const pool = req.pool;
    const poolNodes = this.poolOf(req);
    const deficits = constraints.map((c) => c.deficit);
    let fitsSum = poolNodes.reduce((sum, n) => sum + fitsOf(nodes, n, req), 0);
    const feasible = (): boolean => deficits.every((d) => !(d > 0)) && fitsSum >= req.pods;

    /** Frees (or re-occupies) every pod of the job, keeping the pool's fits sum current. */
    const moveJob = (job: KernelJob, occupy: boolean): void => {
      for (const pod of job.pods) {
        const counted = snapshot.nodes[pod.node]!.pool === pool;
        const before = counted ? fitsOf(nodes, pod.node, req) : 0;
        const state = nodes.edit(pod.node);
        if (occupy) {
          state.usedMask = (state.usedMask | pod.mask) >>> 0;
          state.freeCpu -= pod.cpu;
          state.freeMem -= pod.mem;
        } else {
          state.usedMask = (state.usedMask & ~pod.mask) >>> 0;
          state.freeCpu += pod.cpu;
          state.freeMem += pod.mem;
        }
        if (counted) fitsSum += fitsOf(nodes, pod.node, req) - before;
      }
    };
    /** Applies (relieve) or takes back a candidate's contributions to the deficits it relieves. */
    const relieve = (candidate: Candidate, relieve: boolean): void => {
      const totals = this.totals[candidate.job]!;
      constraints.forEach((c, k) => {
        if (((candidate.constraintMask >>> k) & 1) === 0) return;
        const amount = c.resource === RESOURCE_GPU ? totals.gpu : c.resource === RESOURCE_CPU ? totals.cpu : totals.mem;
        deficits[k] = relieve ? deficits[k]! - amount : deficits[k]! + amount;
      });
    };

    const ordered = candidates
      .map((candidate, pos) => ({ candidate, pos }))
      .sort((a, b) => compareVictims(snapshot.jobs[a.candidate.job]!, snapshot.jobs[b.candidate.job]!, a.pos, b.pos))
      .map((entry) => entry.candidate);

    const chosen: Candidate[] = [];
    for (const candidate of ordered) {
      if (feasible()) break;
      moveJob(snapshot.jobs[candidate.job]!, false);
      relieve(candidate, true);
      chosen.push(candidate);
    }
    if (!feasible()) return fail;

    const kept = new Set(chosen);
    for (let i = chosen.length - 1; i >= 0; i--) {
      const candidate = chosen[i]!;
      const job = snapshot.jobs[candidate.job]!;
      moveJob(job, true);
      relieve(candidate, false);
      if (feasible()) {
        kept.delete(candidate);
      } else {
        moveJob(job, false);
        relieve(candidate, true);
      }
    }

    const pods = placeGang(nodes, poolNodes, req);
    if (!pods) return fail;
    return { ok: true, victims: chosen.filter((c) => kept.has(c)).map((c) => c.job), pods };
  }

  private loaded(): KernelSnapshot {
    if (!this.snapshot) throw new KernelError('kernel/not-loaded', 'call load(snapshot) before a query');
    return this.snapshot;
  }

  private poolOf(req: GangRequest): readonly number[] {
    return this.poolNodes.get(req.pool) ?? [];
  }
}
