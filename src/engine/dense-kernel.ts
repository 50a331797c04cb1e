/**
 * A kernel whose job indices stay dense while jobs come and go, over a kernel whose
 * indices are never reused (the `Kernel` contract's addJob / removeJob). A Snapshot
 * numbers its running jobs 0..count-1 and a LiveSnapshot removes a job by moving the
 * last one into its place (swap-remove); this wrapper keeps that numbering on its side
 * and translates at the boundary: candidates going in, victims coming out. So a start or
 * an end costs one `addJob` or `removeJob` of the inner kernel, never a reload of the
 * whole cluster (the simulator's per-event cost, issue 9 item 12).
 *
 * The inner kernel's retired indices cost memory; once they outnumber the live ones (and
 * a floor), `compactIfDue` reloads the inner kernel from the caller's state — amortised
 * O(1) per change, and the dense numbering is unchanged by it.
 *
 * Where the `Kernel` contract says indices are never reused, this wrapper's are: after
 * `removeJob(i)` index i names the job that was last. Only LiveSnapshot drives it.
 */
import type { Candidate, GangRequest, Kernel, KernelJob, KernelSnapshot, PlacementResult, PoolRoom, VictimAlternative, VictimOptions, VictimResult } from '../kernel/types.js';
import type { VictimOrder } from '../kernel/victim-order.js';

/** Retired inner indices tolerated before a compaction, besides one per live job. */
const COMPACT_FLOOR = 4096;

/** Counters of what the wrapper asked of the inner kernel (tests assert the incremental path ran). */
export interface DenseKernelStats {
  loads: number;
  adds: number;
  removes: number;
  compactions: number;
}

/** A `Kernel` with dense, swap-removed job indices over one with never-reused indices. */
export class DenseKernel implements Kernel {
  readonly backend: Kernel['backend'];
  /** Dense index → inner index. */
  private toInner: Int32Array = new Int32Array(64);
  /** Inner index → dense index (−1: retired). */
  private toDense: Int32Array = new Int32Array(64);
  private count = 0;
  /** Inner indices handed out since the last load (live and retired). */
  private innerCount = 0;
  readonly stats: DenseKernelStats = { loads: 0, adds: 0, removes: 0, compactions: 0 };
  /**
   * Called with every alternative before victims are chosen: the LiveSnapshot brings the
   * candidates' lost-work keys up to the current time here (only they are read).
   */
  beforeVictims?: (alternatives: readonly VictimAlternative[]) => void;

  /** `compactFloor`: retired inner indices tolerated besides one per live job (tests lower it). */
  constructor(
    readonly inner: Kernel,
    private readonly compactFloor = COMPACT_FLOOR,
  ) {
    this.backend = inner.backend;
  }

  /** Jobs held. */
  get size(): number {
    return this.count;
  }

  load(snapshot: KernelSnapshot): void {
    this.inner.load(snapshot);
    this.stats.loads++;
    const n = snapshot.jobs.length;
    this.ensure(n, n);
    for (let i = 0; i < n; i++) {
      this.toInner[i] = i;
      this.toDense[i] = i;
    }
    this.count = n;
    this.innerCount = n;
  }

  place(req: GangRequest): PlacementResult {
    return this.inner.place(req);
  }

  room(req: GangRequest): PoolRoom {
    return this.inner.room(req);
  }

  selectVictims(req: GangRequest, alternatives: readonly VictimAlternative[], order?: VictimOrder, options?: VictimOptions): VictimResult {
    this.beforeVictims?.(alternatives);
    const inner = alternatives.map((a) => ({ standing: a.standing, constraints: a.constraints, candidates: a.candidates.map((c) => this.candidate(c)) }));
    const res = this.inner.selectVictims(req, inner, order, options);
    const alone = res.alone ? { alone: res.alone.map((r) => ({ ok: r.ok, victims: r.victims.map((k) => this.toDense[k]!) })) } : {};
    if (!res.ok) return { ...res, ...alone };
    return { ...res, victims: res.victims.map((k) => this.toDense[k]!), ...alone };
  }

  /** Adds a running job at the next dense index (the job count) and returns that index. */
  addJob(job: KernelJob): number {
    const k = this.inner.addJob(job);
    this.stats.adds++;
    const dense = this.count++;
    this.ensure(this.count, k + 1);
    this.toInner[dense] = k;
    this.toDense[k] = dense;
    this.innerCount = Math.max(this.innerCount, k + 1);
    return dense;
  }

  /** Ends the job at dense `index`; the last job takes that index (as LiveSnapshot.remove). */
  removeJob(index: number): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) throw new Error(`dense kernel: no job at index ${index} (${this.count} jobs)`);
    const k = this.toInner[index]!;
    this.inner.removeJob(k);
    this.stats.removes++;
    this.toDense[k] = -1;
    const last = --this.count;
    if (index !== last) {
      const moved = this.toInner[last]!;
      this.toInner[index] = moved;
      this.toDense[moved] = index;
    }
  }

  /**
   * Replaces the record of the job at dense `index` (new keys: lost work, standing) with
   * `job`, keeping its index: the inner kernel ends the old record and adds the new one.
   */
  rewrite(index: number, job: KernelJob): void {
    if (!Number.isInteger(index) || index < 0 || index >= this.count) throw new Error(`dense kernel: no job at index ${index} (${this.count} jobs)`);
    const old = this.toInner[index]!;
    this.inner.removeJob(old);
    this.toDense[old] = -1;
    const k = this.inner.addJob(job);
    this.stats.removes++;
    this.stats.adds++;
    this.ensure(this.count, k + 1);
    this.toInner[index] = k;
    this.toDense[k] = index;
    this.innerCount = Math.max(this.innerCount, k + 1);
  }

  private candidate(c: Candidate): Candidate {
    if (!Number.isInteger(c.job) || c.job < 0 || c.job >= this.count) return c; // the inner kernel refuses it, located
    return { job: this.toInner[c.job]!, constraintMask: c.constraintMask };
  }

  /**
   * Reloads the inner kernel from `state` — which must hold exactly this kernel's jobs,
   * in dense order — when retired indices outnumber live ones (and the floor).
   */
  compactIfDue(state: KernelSnapshot): void {
    if (this.innerCount - this.count <= this.count + this.compactFloor) return;
    if (state.jobs.length !== this.count) throw new Error(`dense kernel: the state to compact from has ${state.jobs.length} jobs, the kernel ${this.count}`);
    this.load(state);
    this.stats.loads--;
    this.stats.compactions++;
  }

  private ensure(dense: number, inner: number): void {
    if (dense > this.toInner.length) this.toInner = grown(this.toInner, dense, 0);
    if (inner > this.toDense.length) this.toDense = grown(this.toDense, inner, -1);
  }
}

function grown(a: Int32Array, need: number, fill: number): Int32Array {
  const out = new Int32Array(Math.max(need, a.length * 2)).fill(fill);
  out.set(a);
  return out;
}
