/**
 * A Snapshot that changes over time (quotient simulate): start a job where an answer
 * placed it, end or preempt a running job, move the clock. Every change keeps the four
 * views of the running jobs in step — the `jobs` list, the kernel state (`state.jobs`,
 * node masks and free cpu/memory), the per-job typed arrays the candidate scan reads,
 * and usage per quota — so the next `answerWhatIf` sees exactly the cluster a fresh
 * `Snapshot.build` of the same jobs would (test/unit/engine/live-snapshot.test.ts).
 *
 * Jobs live at dense indices 0..count-1; removing a job moves the last one into its
 * place (swap-remove).
 *
 * The kernel follows in one of two ways, chosen by the Snapshot's kernel:
 *   - incremental (the Snapshot was built on a `DenseKernel`): each start, end and
 *     standing change is one addJob / removeJob of the kernel, and a running job's
 *     lost-work key is brought up to the current time only when it is a candidate of a
 *     victim search (only candidates' keys are read) — no per-event cost grows with the
 *     number of running jobs;
 *   - reload (any other kernel): changes mark the kernel dirty and `sync` reloads the
 *     whole state before the next question; `refreshLostWork` recomputes every key.
 * Both give the same answers (test/unit/simulate/incremental-kernel.test.ts).
 */
import type { KernelJob, KernelPod, PodPlacement, VictimAlternative } from '../kernel/types.js';
import { lostGpuHours } from '../model/lost-work.js';
import type { RunningJob, Standing } from '../model/policy.js';
import { RESOURCE_NAMES, addGpu, shareMilli } from '../model/resources.js';
import { comboIndex } from '../rules/facts.js';
import { DenseKernel } from './dense-kernel.js';
import { kernelGpus, maskToIndices, podsGpus, type Snapshot } from './snapshot.js';
import { countsAt, totalRequest } from './usage.js';

const RANK: Record<Standing, number> = { idle: 0, borrowing: 1, 'in-quota': 2 };

/** Mutations of one Snapshot; the Snapshot stays the object the engine answers from. */
export class LiveSnapshot {
  private quotaBuf: Int32Array;
  private comboBuf: Int32Array;
  private poolBuf: Int32Array;
  /** The time lost-work keys of the kernel jobs were computed at (reload mode). */
  private keysAt: number;
  /** Incremental mode: the kernel, with dense indices. */
  private readonly dense: DenseKernel | undefined;
  /** Incremental mode: per job, the time its lost-work key was computed at. */
  private keyAtBuf: Float64Array;

  constructor(readonly snap: Snapshot) {
    const n = snap.jobs.length;
    const cap = Math.max(64, n * 2);
    this.quotaBuf = grow(snap.index.jobQuota, cap);
    this.comboBuf = grow(snap.index.jobCombo, cap);
    this.poolBuf = grow(snap.index.jobPool, cap);
    this.keyAtBuf = new Float64Array(cap).fill(snap.cluster.at);
    this.keysAt = snap.cluster.at;
    this.dense = snap.kernel instanceof DenseKernel ? snap.kernel : undefined;
    if (this.dense) {
      if (this.dense.size !== n) throw new Error(`live snapshot: the kernel holds ${this.dense.size} jobs, the snapshot ${n}`);
      this.dense.beforeVictims = (alternatives) => this.freshenCandidates(alternatives);
    }
    this.publish();
  }

  /** True when each change is one kernel addJob / removeJob (the Snapshot's kernel is a DenseKernel). */
  get incremental(): boolean {
    return this.dense !== undefined;
  }

  /** Running jobs. */
  get count(): number {
    return this.snap.jobs.length;
  }

  /** The clock: answers count lost work and checkpoints up to it. */
  get now(): number {
    return this.snap.cluster.at;
  }

  /** Moves the clock to `t` (never backwards). */
  setTime(t: number): void {
    if (t < this.snap.cluster.at) throw new Error(`live snapshot: time may not run backwards (${t} < ${this.snap.cluster.at})`);
    this.snap.cluster.at = t;
  }

  /**
   * True when the kernel's lost-work keys were computed before the current time. Never
   * in incremental mode: there a candidate's key is freshened as its victim search starts.
   */
  get keysStale(): boolean {
    return !this.dense && this.keysAt !== this.snap.cluster.at;
  }

  /**
   * Recomputes every running job's lost-work key (SEMANTICS 5.3 criterion 2) at the
   * current time. Feasibility of a victim set never depends on these keys, only which
   * set is chosen, so a caller refreshes them only before accepting a `preempt` answer.
   */
  refreshLostWork(): void {
    const now = this.snap.cluster.at;
    const kjobs = this.snap.state.jobs;
    let changed = false;
    this.snap.jobs.forEach((job, i) => {
      const k = kjobs[i]!;
      const lost = lostGpuHours(job, now);
      this.keyAtBuf[i] = now;
      if (k.lostWork !== lost) {
        k.lostWork = lost;
        if (this.dense) this.dense.rewrite(i, k);
        changed = true;
      }
    });
    this.keysAt = now;
    if (changed) {
      if (!this.dense) this.dirty = true; // incremental: rewritten above, job by job
      this.snap.changed();
    }
    this.sync();
  }

  /**
   * Starts `job` (its `standing` and `startedAt` set by the caller) on `pods`, as an
   * answer placed it. `order` is the job's deterministic tie-break key (criterion 5):
   * its name's position among every job the run can hold. Returns the job's index.
   */
  start(job: RunningJob, pods: PodPlacement[], order: number): number {
    const snap = this.snap;
    if (snap.jobIndex.has(job.name)) throw new Error(`live snapshot: job "${job.name}" is already running`);
    if (pods.length !== job.pods) throw new Error(`live snapshot: job "${job.name}" has ${job.pods} pods but ${pods.length} placements`);
    const cpu = job.resources.cpu ?? 0;
    const mem = job.resources.memory ?? 0;
    const kpods: KernelPod[] = [];
    const milli = shareMilli(job.resources.gpu);
    for (const p of pods) {
      const node = snap.state.nodes[p.node];
      if (!node) throw new Error(`live snapshot: node ${p.node} does not exist`);
      // A share may join a GPU other shares use (the kernel's addJob checks the 1000-milli bound).
      if (!milli && (node.usedMask & p.mask) !== 0) throw new Error(`live snapshot: job "${job.name}" would take GPUs already allocated on node ${p.node}`);
      node.usedMask = (node.usedMask | p.mask) >>> 0;
      node.freeCpu -= cpu;
      node.freeMem -= mem;
      kpods.push({ node: p.node, mask: p.mask >>> 0, cpu, mem, ...(milli ? { milli } : {}) });
    }
    job.placement = pods.map((p) => ({ node: snap.cluster.nodes[p.node]!.name, gpus: maskToIndices(p.mask) }));
    const kjob: KernelJob = {
      pods: kpods,
      rank: RANK[job.standing],
      priority: job.priority,
      lostWork: lostGpuHours(job, snap.cluster.at),
      gpus: kernelGpus(job),
      startedAt: job.startedAt,
      order,
    };
    const i = snap.jobs.length;
    snap.jobs.push(job);
    snap.state.jobs.push(kjob);
    snap.jobIndex.set(job.name, i);
    if (i >= this.quotaBuf.length) {
      this.quotaBuf = grow(this.quotaBuf, this.quotaBuf.length * 2);
      this.comboBuf = grow(this.comboBuf, this.comboBuf.length * 2);
      this.poolBuf = grow(this.poolBuf, this.poolBuf.length * 2);
      const keyAt = new Float64Array(this.quotaBuf.length);
      keyAt.set(this.keyAtBuf);
      this.keyAtBuf = keyAt;
    }
    this.keyAtBuf[i] = snap.cluster.at;
    const q = snap.tree.indexOf(job.quota);
    this.quotaBuf[i] = q;
    this.comboBuf[i] = comboIndex(job.priority, job.module, job.standing);
    this.poolBuf[i] = kpods[0] ? snap.state.nodes[kpods[0].node]!.pool : snap.poolIndexOf(job.quota);
    this.addUsage(job, q, 1);
    this.publish();
    this.snap.changed();
    this.kernelAdd(kjob);
    return i;
  }

  /** Ends the running job at `index` (completed or preempted); the last job takes its index. */
  remove(index: number): RunningJob {
    const snap = this.snap;
    const job = snap.jobs[index];
    const kjob = snap.state.jobs[index];
    if (!job || !kjob) throw new Error(`live snapshot: no running job at index ${index}`);
    for (const p of kjob.pods) {
      const node = snap.state.nodes[p.node]!;
      // A shared GPU stays allocated while another job's share of it runs (kernel invariant).
      const stillShared = p.milli !== undefined && snap.state.jobs.some((k) => k !== kjob && k.pods.some((o) => o.milli !== undefined && o.node === p.node && o.mask === p.mask));
      if (!stillShared) node.usedMask = (node.usedMask & ~p.mask) >>> 0;
      node.freeCpu += p.cpu;
      node.freeMem += p.mem;
    }
    this.addUsage(job, this.quotaBuf[index]!, -1);
    const last = snap.jobs.length - 1;
    if (index !== last) {
      const moved = snap.jobs[last]!;
      snap.jobs[index] = moved;
      snap.state.jobs[index] = snap.state.jobs[last]!;
      snap.jobIndex.set(moved.name, index);
      this.quotaBuf[index] = this.quotaBuf[last]!;
      this.comboBuf[index] = this.comboBuf[last]!;
      this.poolBuf[index] = this.poolBuf[last]!;
      this.keyAtBuf[index] = this.keyAtBuf[last]!;
    }
    snap.jobs.pop();
    snap.state.jobs.pop();
    snap.jobIndex.delete(job.name);
    this.publish();
    this.snap.changed();
    this.kernelRemove(index);
    return job;
  }

  /**
   * Changes the standing of the running job at `index` (quota scaling, SEMANTICS 9):
   * its usage moves to where the new standing counts, and its victim facts follow.
   */
  setStanding(index: number, standing: Standing): void {
    const snap = this.snap;
    const job = snap.jobs[index];
    if (!job) throw new Error(`live snapshot: no running job at index ${index}`);
    if (job.standing === standing) return;
    const q = this.quotaBuf[index]!;
    this.addUsage(job, q, -1);
    // Changed on a copy: a built snapshot's jobs are the policy's own objects (Snapshot.build).
    const changed: RunningJob = Object.assign({}, job, { standing });
    snap.jobs[index] = changed;
    this.addUsage(changed, q, 1);
    this.comboBuf[index] = comboIndex(job.priority, job.module, standing);
    const kjob = snap.state.jobs[index]!;
    kjob.rank = RANK[standing];
    this.snap.changed();
    if (this.dense) this.dense.rewrite(index, kjob);
    else this.dirty = true;
  }

  /** GPUs held by the running job at `index`. */
  gpusOf(index: number): number {
    return podsGpus(this.snap.state.jobs[index]!.pods);
  }

  /** The kernel views see exactly `count` jobs (the candidate scan runs to `length`). */
  private publish(): void {
    const n = this.snap.jobs.length;
    const index = this.snap.index;
    index.jobQuota = this.quotaBuf.subarray(0, n);
    index.jobCombo = this.comboBuf.subarray(0, n);
    index.jobPool = this.poolBuf.subarray(0, n);
  }

  private addUsage(job: RunningJob, q: number, sign: 1 | -1): void {
    if (job.standing === 'idle') return;
    const tree = this.snap.tree;
    const need = totalRequest(job);
    for (const a of tree.pathToRoot(q)) {
      if (!countsAt(tree, job.standing, q, a)) continue;
      const row = this.snap.usage[a]!;
      RESOURCE_NAMES.forEach((r, k) => (row[k] = k === 0 ? addGpu(row[k]!, sign * need[r]) : row[k]! + sign * need[r]));
    }
  }

  /**
   * The kernel must hold exactly `state` before the engine next asks it. Incremental:
   * the DenseKernel adds the job at the same dense index. Reload: a removal renumbers
   * jobs (swap-remove), so the kernel is reloaded — lazily, once for every change since
   * the last question (`sync`), not once per change.
   */
  private kernelAdd(job: KernelJob): void {
    if (!this.dense) {
      this.dirty = true;
      return;
    }
    const i = this.dense.addJob(job);
    if (i !== this.snap.jobs.length - 1) throw new Error(`live snapshot: the kernel added job ${i}, the snapshot ${this.snap.jobs.length - 1}`);
    this.dense.compactIfDue(this.snap.state);
  }

  private kernelRemove(index: number): void {
    if (!this.dense) {
      this.dirty = true;
      return;
    }
    this.dense.removeJob(index);
    this.dense.compactIfDue(this.snap.state);
  }

  private dirty = false;

  /** Brings the kernel up to date with every change; call before asking the engine. */
  sync(): void {
    if (!this.dirty) return;
    this.snap.kernel.load(this.snap.state);
    this.dirty = false;
  }

  /**
   * Incremental mode, before a victim search: every candidate's lost-work key as of now
   * (SEMANTICS 5.3 criterion 2), rewritten in the kernel where it changed. Keys of jobs
   * that are not candidates are never read, so they may lag.
   */
  private freshenCandidates(alternatives: readonly VictimAlternative[]): void {
    const dense = this.dense!;
    const now = this.snap.cluster.at;
    const jobs = this.snap.jobs;
    const kjobs = this.snap.state.jobs;
    let changed = false;
    for (const alt of alternatives) {
      for (const c of alt.candidates) {
        const j = c.job;
        if (this.keyAtBuf[j] === now) continue;
        const job = jobs[j];
        const k = kjobs[j];
        if (!job || !k) continue; // not a job: the kernel refuses the candidate, located
        this.keyAtBuf[j] = now;
        const lost = lostGpuHours(job, now);
        if (k.lostWork === lost) continue;
        k.lostWork = lost;
        dense.rewrite(j, k);
        changed = true;
      }
    }
    // As refreshLostWork: a changed key is a change of the state answers memoize from.
    if (changed) this.snap.changed();
  }
}

function grow(a: Int32Array, cap: number): Int32Array {
  const out = new Int32Array(Math.max(cap, a.length));
  out.set(a);
  return out;
}
