/**
 * The simulator's quota scheduler room: every quota's queue (engine/queue-order.ts), and
 * the scheduling pass that puts waiting jobs to the answer pipeline (engine/pipeline.ts
 * `answerJob`) against the live Snapshot — the call `quotient whatif` makes — and carries
 * the answer out as given: its victims are preempted (each with the rule, policy line and
 * reason the answer names), and the job starts with the answer's standing on the answer's
 * placement. A pass is repeated while it starts something.
 *
 * Seams: `ask` is the one place a job meets the engine; `tryQueued` the one place an
 * answer's decision is acted on (admit/preempt start, reject leaves, wait stays).
 */
import type { Answer } from '../engine/answer.js';
import type { LiveSnapshot } from '../engine/live-snapshot.js';
import { answerJob } from '../engine/pipeline.js';
import { JobQueue, servePass, type PassOutcome } from '../engine/queue-order.js';
import type { Reason } from '../engine/reason-codes.js';
import type { Snapshot } from '../engine/snapshot.js';
import type { EngineContext } from '../engine/whatif.js';
import { popcount } from '../kernel/gpu-mask.js';
import { shareMilli } from '../model/resources.js';
import type { PodPlacement } from '../kernel/types.js';
import type { JobSpec, Quota, RunningJob, Standing } from '../model/policy.js';
import { r4 } from './report.js';
import * as occupancy from './gpu-occupancy.js';
import { gpusOf, HOUR, type Entry, type JobState, type SimCore } from './sim-job.js';

/** A quota job starting on the cluster: when, with which standing, preempting whom. */
export interface SimStart {
  job: string;
  /** Run time, ms. */
  t: number;
  standing: Standing;
  victims: string[];
}

export class QuotaScheduler {
  /** Per quota (the policy's order), its waiting jobs. */
  readonly queues: Array<JobQueue<Entry>>;
  /** Per job shape (shapeKey), the cluster version at which it last had to wait. */
  private readonly memo = new Map<string, number>();
  /** Per job shape, the reasons of its last `wait` answer (the memo's answer). */
  private readonly memoReasons = new Map<string, Reason[]>();
  /** After the last pass: per queue index, the blocking job that could not start (servePass's `blocked`). */
  lastBlocked: ReadonlyMap<number, Entry> = new Map();

  constructor(
    private readonly core: SimCore,
    quotas: readonly Quota[],
    private readonly ctx: EngineContext & { viewer?: undefined },
    private readonly live: LiveSnapshot,
    private readonly snap: Snapshot,
    private readonly onStart?: (start: SimStart) => void,
  ) {
    this.queues = quotas.map((q) => new JobQueue<Entry>(q.queueStrategy, q.queue));
  }

  /** A quota job enters its quota's queue; `order` is its last tie-break. */
  enqueue(js: JobState, order: number, at: number): void {
    js.entry = { js, priority: js.sim.spec.priority, submit: js.sim.submit, order, enqueuedAt: at };
    this.queues[js.quota]!.add(js.entry);
  }

  /** Scheduling passes over every queue until one starts nothing. */
  async pass(): Promise<void> {
    for (let sweep = 0; ; sweep++) {
      const before = this.core.version;
      const { blocked } = await servePass(this.queues, this.core.now, (entry, q) => this.tryQueued(entry, q));
      this.lastBlocked = blocked;
      if (this.core.version === before || sweep > 1000) break;
    }
  }

  /** One attempt of a pass (engine/queue-order.ts servePass): asks the engine about a waiting job and carries out its answer. */
  private async tryQueued(entry: Entry, q: number): Promise<PassOutcome> {
    const js = entry.js;
    if (js.status !== 'waiting') return 'left';
    const queue = this.queues[q]!;
    const key = shapeKey(js.sim.spec);
    // The same question against an unchanged cluster gets the same answer.
    if (this.memo.get(key) === this.core.version) {
      js.reasons = this.memoReasons.get(key);
      return 'waits';
    }
    const answer = await this.ask(js.sim.spec);
    if (answer.decision === 'admit' || answer.decision === 'preempt') {
      queue.remove(entry);
      this.carryOut(js, answer);
      return 'started';
    }
    if (answer.decision === 'reject') {
      queue.remove(entry);
      js.status = 'rejected';
      this.core.jobs[js.id] = undefined;
      for (const g of this.core.metrics.groups(js.team, js.quota)) g.rejected++;
      this.core.metrics.rejections.push({ job: js.sim.spec.name, team: js.team, quota: js.sim.spec.quota, hour: r4(this.core.now / HOUR), reason: answer.reasons.map((r) => r.message).join('; ') });
      return 'left';
    }
    this.memo.set(key, this.core.version);
    this.memoReasons.set(key, answer.reasons);
    js.reasons = answer.reasons;
    return 'waits';
  }

  /** The answer pipeline's call, as `quotient whatif` makes it, against the cluster as it is now. */
  private async ask(spec: JobSpec): Promise<Answer> {
    this.live.sync();
    let answer: Answer = await answerJob(this.ctx, 'simulate', spec);
    // Which victims are cheapest depends on lost work now; feasibility does not. Keys are
    // brought up to date only when the answer preempts, then the question is asked again.
    if (answer.decision === 'preempt' && this.live.keysStale) {
      this.live.refreshLostWork();
      answer = await answerJob(this.ctx, 'simulate', spec);
    }
    return answer;
  }

  /** Preempts the answer's victims, then starts the job where the answer placed it. */
  private carryOut(js: JobState, answer: Answer): void {
    const core = this.core;
    for (const v of answer.victims) {
      const victim = core.byName.get(v.job)!;
      const { kept } = core.interrupt(victim);
      core.stopCluster(victim);
      const restarted = core.afterInterrupt(victim, kept);
      core.metrics.preemption(
        { hour: r4(core.now / HOUR), job: v.job, team: victim.team, quota: v.quota, rule: v.rule, source: v.source, reason: v.reason, lostGpuHours: v.lostGpuHours, by: js.sim.spec.name, restarted },
        victim.quota,
      );
    }
    this.live.sync();
    const pods: PodPlacement[] = answer.placement.map((p) => ({ node: this.snap.nodeIndex.get(p.node)!, mask: p.gpus.reduce((m, g) => m | (1 << g), 0) >>> 0 }));
    const standing = answer.standing as Standing;
    // Object.assign keeps one hidden class per spec shape (a spread literal makes one per job).
    const job: RunningJob = Object.assign({}, js.sim.spec, { standing, startedAt: core.now, placement: [], placedByEngine: false });
    const free = occupancy.onStart(this.snap.state.nodes, pods, shareMilli(job.resources.gpu));
    this.live.start(job, pods, js.order);
    core.metrics.started(js.team, js.quota, standing, gpusOf(js), free);
    core.begin(js, standing);
    this.onStart?.({ job: js.sim.spec.name, t: core.now, standing, victims: answer.victims.map((v) => v.job) });
    core.version++;
  }

  /** Jobs waiting in quota queues. */
  waitingCount(): number {
    return this.queues.reduce((s, q) => s + q.size, 0);
  }

  /** Free GPUs that no waiting pod shape can use (SEMANTICS 5.4); none when nothing waits. */
  fragmented(): number {
    let smallest = Infinity;
    for (const q of this.queues) for (const e of q.all()) smallest = Math.min(smallest, e.js.sim.spec.resources.gpu);
    if (!Number.isFinite(smallest)) return 0;
    let frag = 0;
    for (const n of this.snap.state.nodes) {
      const free = n.gpus - popcount(n.usedMask);
      if (free > 0 && free < smallest) frag += free;
    }
    return frag;
  }

  /** A waiting quota job's place in the order its queue's strategy tries it now (0 = next), or -1. */
  queuePosition(job: string): number {
    for (const q of this.queues) {
      const e = q.all().find((x) => x.js.sim.spec.name === job);
      if (e) return q.position(e, this.core.now);
    }
    return -1;
  }
}

/** What decides an answer about a job, besides the cluster: jobs with equal keys get equal answers. */
function shapeKey(s: JobSpec): string {
  return `${s.quota}|${s.workspace}|${s.submittedBy ?? ''}|${s.module}|${s.priority}|${s.pods}|${s.resources.gpu}|${s.resources.cpu ?? ''}|${s.resources.memory ?? ''}|${s.idleResources}|${s.maxRuntime ?? ''}|${s.gpuModels?.join('|') ?? ''}`;
}
