/**
 * The discrete-event simulator (docs/simulate.md). Time is simulated, never slept.
 *
 * This file is the event loop; its rooms are the quota scheduler (quota-scheduler.ts:
 * queues, the scheduling pass, the engine's answers carried out), the spot market
 * (spot-exchange.ts: bids, prices, releases) and the report (sim-report.ts), sharing the
 * job state of sim-job.ts. It reads best whole though just past 500 lines: one loop and
 * the handlers of its events, each a few lines that move a job between the rooms.
 *
 * Every decision about a quota job is the engine's (quota-scheduler.ts); spot jobs bid
 * on the market by the rules of engine/spot-rules.ts (spot-exchange.ts). In one step of
 * simulated time:
 *
 *   1. events at that time run in phase order: ends, quota scaling, market moves,
 *      protection expiries, arrivals (event-heap.ts);
 *   2. a scheduling pass over every quota's queue, the strategy choosing which jobs to
 *      try and the queues' heads taken by submission time (engine/queue-order.ts, the
 *      pass a what-if serves the snapshot's queue with), repeated while a pass starts
 *      something; then each instance type's bidding queue, highest bid first.
 *
 * A job preempted or released keeps the work up to its last checkpoint (SEMANTICS 7);
 * with `faultTolerance.autoRestart` it re-enters its queue (spot: its bidding queue) up
 * to `maxRestarts`, otherwise it ends Preempted.
 */
import type { EngineContext } from '../engine/whatif.js';
import { DenseKernel } from '../engine/dense-kernel.js';
import { LiveSnapshot } from '../engine/live-snapshot.js';
import { Snapshot } from '../engine/snapshot.js';
import { popcount } from '../kernel/gpu-mask.js';
import { hasErrors, QuotientError } from '../errors.js';
import { createKernel } from '../kernel/create-kernel.js';
import type { PodPlacement } from '../kernel/types.js';
import { lastCheckpoint, lostGpuHours } from '../model/lost-work.js';
import type { Cluster, JobSpec, Policy, RunningJob, Standing } from '../model/policy.js';
import { QuotaTree } from '../model/quota-tree.js';
import { shareMilli } from '../model/resources.js';
import { rescaleStandings } from '../model/rescale.js';
import { compileRules } from '../rules/compile-rules.js';
import { EligibilityTables } from '../rules/eligibility-table.js';
import { EventHeap, PHASE } from './event-heap.js';
import { NO_CHANGE, onStart, onStop } from './gpu-occupancy.js';
import { Metrics } from './metrics.js';
import { QuotaScheduler } from './quota-scheduler.js';
import { QueueDiagnostics } from './queue-diagnostics.js';
import type { SimInput, SimOptions, SimView } from './sim-input.js';
import { r4, type Report } from './report.js';
import { gpusOf, HOUR, type JobState, type SimCore } from './sim-job.js';
import { buildReport } from './sim-report.js';
import { SpotExchange } from './spot-exchange.js';
import type { SimJob } from './workload.js';

export type { SimStart } from './quota-scheduler.js';
export type { ScaleEvent, SimInput, SimOptions, SimView } from './sim-input.js';

/** Runs the workload against the policy and returns the report. */
export async function simulate(input: SimInput, options: SimOptions): Promise<Report> {
  const sim = new Simulation(input, options);
  return sim.run();
}

class Simulation implements SimCore {
  private readonly policy: Policy;
  private readonly tree: QuotaTree;
  private readonly live: LiveSnapshot;
  private readonly snap: Snapshot;
  readonly heap = new EventHeap();
  /** Per job id, its state from arrival until it ends; undefined before and after. */
  readonly jobs: Array<JobState | undefined>;
  private readonly orderOf: Int32Array;
  /** Running jobs by name (victims and releases are named): only running ones, so it stays small. */
  readonly byName = new Map<string, JobState>();
  private readonly scheduler: QuotaScheduler;
  private readonly spot: SpotExchange;
  private readonly diagnostics: QueueDiagnostics;
  readonly metrics: Metrics;
  private readonly capacity: number;
  private readonly notes: string[] = [];
  version = 0;
  now = 0;
  private arrived = 0;
  /** The first id of the snapshot's queued jobs (after the workload's and the running ones). */
  private readonly firstQueued: number;
  /** Job ids in arrival order: submission time, then id. */
  private readonly arrivals: Int32Array;
  private nextCycle = -1;
  /**
   * Snapshot jobs whose checkpoint gives `last`: their live job's `checkpoint.last` moves on
   * by `every` as run time passes, while their first run lasts (SEMANTICS 7 over time).
   */
  private readonly anchored = new Map<JobState, RunningJob>();

  constructor(
    private readonly input: SimInput,
    private readonly options: SimOptions,
  ) {
    this.policy = input.policy;
    // Quota scaling changes `min`: the run works on its own copy of the quotas.
    this.policy = { ...input.policy, quotas: input.policy.quotas.map((q) => ({ ...q, min: { ...q.min } })) };
    this.tree = new QuotaTree(this.policy.quotas);
    const cluster: Cluster = { name: 'simulate', at: 0, nodes: input.nodes, jobs: [], src: { file: input.label, line: 1, column: 1, path: '' } };
    const inner = options.kernel ?? createKernel(options.backend ?? 'wasm');
    const kernel = options.kernelUpdates === 'reload' || inner instanceof DenseKernel ? inner : new DenseKernel(inner);
    const built = Snapshot.build(this.policy, cluster, kernel);
    if (!built.snapshot || hasErrors(built.findings)) throw new QuotientError('simulate/bad-cluster', 'the cluster could not be loaded', built.findings.map((f) => f.message).join('; '));
    this.snap = built.snapshot;
    this.live = new LiveSnapshot(this.snap);
    const ctx: EngineContext & { viewer?: undefined } = { snapshot: this.snap, tables: new EligibilityTables(compileRules(this.policy), this.tree) };
    this.capacity = input.nodes.reduce((s, n) => s + n.gpus, 0);

    // Name order (the last tie-break everywhere), as positions in one sort of the ids.
    const wjobs = input.workload.jobs;
    const running = input.running ?? [];
    const queued = input.queued ?? [];
    // Ids 0..W-1 are the workload's jobs, W..W+R-1 the snapshot's running ones, then its queued ones.
    const total = wjobs.length + running.length + queued.length;
    this.firstQueued = wjobs.length + running.length;
    const nameOf = (id: number): string => (id < wjobs.length ? wjobs[id]!.spec.name : id < this.firstQueued ? running[id - wjobs.length]!.name : queued[id - this.firstQueued]!.spec.name);
    const byNameOrder = Array.from({ length: total }, (_, i) => i).sort((a, b) => {
      const x = nameOf(a);
      const y = nameOf(b);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    const orderOf = new Int32Array(total);
    byNameOrder.forEach((id, k) => (orderOf[id] = k));
    this.orderOf = orderOf;
    // A job's state exists from its arrival until it ends (done, ended Preempted, rejected):
    // a month of jobs never lives in memory at once.
    this.jobs = new Array<JobState | undefined>(total).fill(undefined);
    this.arrivals = Int32Array.from(wjobs.keys());
    if (wjobs.some((j, i) => i > 0 && j.submit < wjobs[i - 1]!.submit)) this.arrivals.sort((a, b) => wjobs[a]!.submit - wjobs[b]!.submit || a - b);
    this.scheduler = new QuotaScheduler(this, this.policy.quotas, ctx, this.live, this.snap, options.onStart);
    this.diagnostics = new QueueDiagnostics(
      this.policy.quotas.map((q) => q.name),
      this.policy.quotas.map((q) => q.queueStrategy),
    );

    const lastEnd = Math.max(
      input.workload.jobs.reduce((m, j) => Math.max(m, j.submit + j.duration), 0),
      running.reduce((m, j) => Math.max(m, j.expectedEnd ?? 0), 0),
      queued.reduce((m, j) => (Number.isFinite(j.duration) ? Math.max(m, j.duration) : m), 0),
    );
    const span = options.until ?? Math.max(HOUR, lastEnd * 1.25);
    const sampleEvery = options.sampleEvery ?? Math.max(60_000, Math.ceil(span / 240 / 60_000) * 60_000);
    this.metrics = new Metrics(
      this.policy.workspaces.map((w) => w.name),
      this.policy.quotas.map((q) => q.name),
      this.capacity,
      sampleEvery,
      {
        fragmented: () => this.scheduler.fragmented(),
        waiting: () => this.scheduler.waitingCount(),
        spotRunning: () => this.spot.runningCount(),
        prices: () => this.spot.prices(),
      },
      input.market.map((s) => s.type.name),
    );
    this.spot = new SpotExchange(this, input.market);
    this.startSnapshotJobs(running);
    this.enqueueSnapshotQueue(queued);
  }

  /**
   * The snapshot's queued jobs wait from the start: each enqueued at its own submission
   * (run time, at or before 0), so its place, balance's window and intelligent's aging
   * count from when it was really submitted; a pass runs at time 0 even when nothing
   * else happens then. Their ids follow the running jobs'.
   */
  private enqueueSnapshotQueue(queued: SimJob[]): void {
    if (queued.length === 0) return;
    queued.forEach((sim, k) => {
      const id = this.firstQueued + k;
      const js = this.pending(sim, id, { typeIdx: -1, bid: 0 });
      this.jobs[id] = js;
      for (const a of this.metrics.groups(js.team, js.quota)) a.jobs++;
      this.enqueue(js, sim.submit);
    });
    this.heap.push(0, 'cycle');
  }

  /**
   * The snapshot's running jobs start the run: placed as the snapshot says (a job without
   * a placement where the engine puts it, as a what-if on the snapshot would: one
   * Snapshot.build of them alone), counted in their quotas with their standing, ending at
   * their expected end. Their ids follow the workload's.
   */
  private startSnapshotJobs(running: RunningJob[]): void {
    if (running.length === 0) return;
    const cluster: Cluster = { name: 'simulate', at: 0, nodes: this.input.nodes, jobs: running, src: { file: this.input.label, line: 1, column: 1, path: '' } };
    // A kernel of its own for this one placement (the run's kernel then holds what start() adds).
    const placed = Snapshot.build(this.policy, cluster, createKernel('reference'), this.tree);
    if (!placed.snapshot || hasErrors(placed.findings))
      throw new QuotientError('simulate/bad-cluster', "the snapshot's running jobs could not be placed", placed.findings.map((f) => f.message).join('; '));
    const w = this.input.workload.jobs.length;
    placed.snapshot.jobs.forEach((job, k) => {
      const id = w + k;
      const end = job.expectedEnd;
      const { standing: _s, startedAt: _t, expectedEnd: _e, placement: _p, placedByEngine: _b, ...rest } = job;
      // On a restart the job runs from its own start again: checkpoints every `every`, no fixed `last`.
      const spec: JobSpec = Object.assign({}, rest, job.checkpoint ? { checkpoint: { every: job.checkpoint.every } } : {});
      const sim: SimJob = { spec, submit: job.startedAt, duration: end === undefined ? Infinity : end - job.startedAt };
      const js: JobState = {
        sim,
        id,
        order: this.orderOf[id]!,
        team: job.workspace,
        quota: this.tree.indexOf(job.quota),
        status: 'running',
        progress: 0,
        runId: 1,
        runStart: job.startedAt,
        standing: job.standing,
        restarts: 0,
        // Started before the run: no wait of theirs is measured.
        firstStart: 0,
        typeIdx: -1,
        bid: 0,
        costAt: 0,
      };
      this.jobs[id] = js;
      const pods: PodPlacement[] = job.placement.map((p) => ({ node: this.snap.nodeIndex.get(p.node)!, mask: p.gpus.reduce((m, g) => m | (1 << g), 0) >>> 0 }));
      // Its own copy: start() sets the placement, and advanceCheckpoints moves checkpoint.last.
      const live: RunningJob = Object.assign({}, job, { placement: [] });
      if (job.checkpoint) live.checkpoint = Object.assign({}, job.checkpoint);
      const free = onStart(this.snap.state.nodes, pods, shareMilli(job.resources.gpu));
      this.live.start(live, pods, js.order);
      if (live.checkpoint?.last !== undefined) this.anchored.set(js, live);
      for (const a of this.metrics.groups(js.team, js.quota)) a.jobs++;
      this.metrics.started(js.team, js.quota, js.standing, gpusOf(js), free);
      this.byName.set(job.name, js);
      if (end !== undefined) this.heap.push(end, 'end', id, js.runId);
    });
    const forever = running.filter((j) => j.expectedEnd === undefined).length;
    if (forever > 0) this.notes.push(`${forever} of the snapshot's ${running.length} running job(s) give no expectedEnd or duration: they run until the end of the run unless preempted`);
    this.version++;
  }

  /** Moves the `checkpoint.last` of snapshot jobs still in their first run to the latest checkpoint not after `t`. */
  private advanceCheckpoints(t: number): void {
    for (const [js, job] of this.anchored) {
      const cp = job.checkpoint!;
      if (js.runId !== 1 || js.status !== 'running') {
        this.anchored.delete(js);
        continue;
      }
      if (t >= cp.last! + cp.every) cp.last = cp.last! + Math.floor((t - cp.last!) / cp.every) * cp.every;
    }
  }

  async run(): Promise<Report> {
    const { workload } = this.input;
    this.spot.schedule();
    for (const s of this.input.scales ?? []) this.heap.push(s.at, 'scale', (this.input.scales ?? []).indexOf(s));
    const until = this.options.until;
    let stepsSinceProgress = 0;
    let end = 0;
    for (;;) {
      const t = this.nextTime();
      if (t === undefined) break;
      if (until !== undefined && t > until) break;
      if (!this.hasWork() && !this.arrivalNext()) break;
      this.metrics.advance(t);
      this.now = t;
      this.live.setTime(t);
      if (this.anchored.size > 0) this.advanceCheckpoints(t);
      while (this.nextTime() === t) {
        if (this.arrivalNext()) this.arrive(this.arrivals[this.arrived]!);
        else this.handle(this.heap.pop()!);
      }
      const cycle = this.options.cycle ?? 0;
      if (cycle <= 0 || t % cycle === 0) await this.schedule();
      else if (this.nextCycle <= t) {
        // The queues wait for the next tick of the scheduler's cycle.
        this.nextCycle = Math.ceil(t / cycle) * cycle;
        this.heap.push(this.nextCycle, 'cycle');
      }
      end = t;
      this.options.onStep?.(this.view());
      if (++stepsSinceProgress >= 2000) {
        stepsSinceProgress = 0;
        this.options.onProgress?.(this.arrived, workload.jobs.length);
      }
    }
    if (until !== undefined) end = until;
    this.metrics.advance(end);
    this.now = Math.max(this.now, end);
    this.spot.closeCosts();
    this.options.onProgress?.(this.arrived, workload.jobs.length);
    return buildReport(
      {
        input: this.input,
        options: this.options,
        policy: this.policy,
        tree: this.tree,
        jobs: this.jobs,
        arrivals: this.arrivals,
        arrived: this.arrived,
        metrics: this.metrics,
        spot: this.spot,
        diagnostics: this.diagnostics,
        capacity: this.capacity,
        notes: this.notes,
      },
      end,
    );
  }

  /**
   * Arrivals are not heap events: they are read in submission order from `arrivals`
   * (one Int32Array, not an event object per job), and run at their time after the
   * heap's ends, scalings, market moves and protection ends and before a cycle tick —
   * the phase order of event-heap.ts.
   */
  private arrivalNext(): boolean {
    const id = this.arrivals[this.arrived];
    if (id === undefined) return false;
    const e = this.heap.peek();
    if (!e) return true;
    const at = this.input.workload.jobs[id]!.submit;
    return at !== e.t ? at < e.t : PHASE.arrival < PHASE[e.kind];
  }

  /** The time of the next event or arrival, or undefined when none is left. */
  private nextTime(): number | undefined {
    if (this.arrivalNext()) return this.input.workload.jobs[this.arrivals[this.arrived]!]!.submit;
    return this.heap.peek()?.t;
  }

  /** Jobs remain that could still change state: arrivals to come, jobs running, or spot jobs that may yet win a bid. */
  private hasWork(): boolean {
    if (this.arrived < this.jobs.length) return true;
    if (this.snap.jobs.length > 0) return true;
    return this.spot.hasWork();
  }

  private handle(e: { kind: string; a: number; b: number }): void {
    switch (e.kind) {
      case 'arrival': // arrivals come from `arrivals`, never from the heap
        return;
      case 'end': {
        const js = this.jobs[e.a];
        return js ? this.end(js, e.b) : undefined; // ended meanwhile (preempted for good)
      }
      case 'market':
        return this.spot.move(e.a, e.b);
      case 'protection':
        return this.spot.releaseCheck(e.a);
      case 'scale':
        return this.scale(e.a);
      case 'cycle':
        return;
    }
  }

  /** A job's state when it arrives: not yet started; `typeIdx`/`bid` for a spot job (-1/0 otherwise). */
  private pending(sim: SimJob, id: number, spot: { typeIdx: number; bid: number }): JobState {
    return {
      sim,
      id,
      order: this.orderOf[id]!,
      team: sim.spec.workspace,
      quota: this.tree.indexOf(sim.spec.quota),
      status: 'pending',
      progress: 0,
      runId: 0,
      runStart: 0,
      standing: 'in-quota',
      restarts: 0,
      firstStart: -1,
      typeIdx: spot.typeIdx,
      bid: spot.bid,
      costAt: 0,
    };
  }

  private arrive(id: number): void {
    const sim = this.input.workload.jobs[id]!;
    const js = this.pending(sim, id, this.spot.bidOf(sim));
    this.jobs[id] = js;
    this.arrived++;
    for (const a of this.metrics.groups(js.team, js.quota)) a.jobs++;
    if (js.typeIdx >= 0) for (const a of this.spot.groups(js)) a.spot.jobs++;
    this.enqueue(js, this.now);
  }

  private enqueue(js: JobState, at: number): void {
    js.status = 'waiting';
    if (js.typeIdx >= 0) return this.spot.enqueue(js);
    // The last tie-break: name order, the snapshot's queued jobs before every other (they were submitted first).
    const order = js.id >= this.firstQueued ? js.order : this.jobs.length + js.order;
    this.scheduler.enqueue(js, order, at);
  }

  private end(js: JobState, runId: number): void {
    if (js.status !== 'running' || js.runId !== runId) return;
    if (js.typeIdx >= 0) this.spot.stop(js);
    else this.stopCluster(js);
    js.status = 'done';
    js.progress = js.sim.duration;
    this.jobs[js.id] = undefined;
    for (const g of this.metrics.groups(js.team, js.quota)) {
      g.completed++;
      g.extraMs += this.now - js.sim.submit - js.sim.duration;
    }
  }

  /** Takes a running job off the cluster. */
  stopCluster(js: JobState): void {
    const idx = this.snap.jobIndex.get(js.sim.spec.name)!;
    this.byName.delete(js.sim.spec.name);
    const pods = this.snap.state.jobs[idx]!.pods;
    this.live.remove(idx);
    this.metrics.stopped(js.team, js.quota, js.standing, gpusOf(js), onStop(this.snap.state.nodes, pods));
    this.version++;
  }

  /** The work a job loses if stopped now, and what it keeps (SEMANTICS 7, model/lost-work.ts). */
  interrupt(js: JobState): { lost: number; kept: number } {
    // A snapshot job's first run checkpoints from the snapshot's `checkpoint.last` on.
    const checkpoint = js.runId === 1 ? (this.anchored.get(js)?.checkpoint ?? js.sim.spec.checkpoint) : js.sim.spec.checkpoint;
    const run = { startedAt: js.runStart, checkpoint, pods: js.sim.spec.pods, resources: js.sim.spec.resources };
    return { lost: lostGpuHours(run, this.now), kept: lastCheckpoint(run, this.now) - js.runStart };
  }

  /** After a preemption or release: restart per faultTolerance, or end Preempted. */
  afterInterrupt(js: JobState, kept: number): boolean {
    js.progress = Math.min(js.sim.duration, js.progress + kept);
    const ft = js.sim.spec.faultTolerance;
    if (ft?.autoRestart && js.restarts < ft.maxRestarts) {
      js.restarts++;
      this.enqueue(js, this.now);
      return true;
    }
    js.status = 'preempted';
    this.jobs[js.id] = undefined;
    for (const g of this.metrics.groups(js.team, js.quota)) g.endedPreempted++;
    return false;
  }

  /** Bookkeeping of a start, on the cluster or the market. */
  begin(js: JobState, standing: Standing): void {
    js.status = 'running';
    this.byName.set(js.sim.spec.name, js);
    js.standing = standing;
    js.runId++;
    js.runStart = this.now;
    if (js.firstStart < 0) {
      js.firstStart = this.now;
      for (const g of this.metrics.groups(js.team, js.quota)) g.waits.push(this.now - js.sim.submit);
    }
    // A snapshot job with no expected end never ends by itself.
    if (Number.isFinite(js.sim.duration)) this.heap.push(this.now + (js.sim.duration - js.progress), 'end', js.id, js.runId);
  }

  /** The quota scheduler's passes, then each instance type's bidding queue. */
  private async schedule(): Promise<void> {
    await this.scheduler.pass();
    this.spot.passAll();
    this.diagnostics.observe(this.now, this.scheduler.lastBlocked, this.scheduler.queues, (q) => this.freeGpus(q));
  }

  /** Free GPUs now on the nodes of quota q's pool. */
  private freeGpus(q: number): number {
    const pool = this.snap.poolIndex.get(this.policy.quotas[q]!.pool);
    let free = 0;
    for (const n of this.snap.state.nodes) if (n.pool === pool) free += n.gpus - popcount(n.usedMask);
    return free;
  }

  // ---- quota scaling ---------------------------------------------------------------

  private scale(i: number): void {
    const ev = this.input.scales![i]!;
    const newMin = new Map(ev.set.map((s) => [s.quota, s.gpu]));
    const res = rescaleStandings(this.policy.quotas, this.snap.jobs, newMin);
    if (res.over.length > 0) {
      this.notes.push(`quota scaling at hour ${r4(ev.at / HOUR)} was refused: ${res.over.map((o) => `${o.quota} would use ${o.used} GPUs over its new min ${o.min}`).join('; ')}`);
      return;
    }
    for (const ch of res.changes) {
      const idx = this.snap.jobIndex.get(ch.job.name)!;
      const js = this.byName.get(ch.job.name)!;
      const gpus = gpusOf(js);
      // The job stays where it runs: only the standing its GPUs count under moves.
      this.metrics.stopped(js.team, js.quota, js.standing, gpus, NO_CHANGE);
      this.live.setStanding(idx, ch.to);
      js.standing = ch.to;
      this.metrics.started(js.team, js.quota, ch.to, gpus, NO_CHANGE);
    }
    for (const [quota, gpu] of newMin) this.policy.quotas[this.tree.indexOf(quota)]!.min.gpu = gpu;
    this.notes.push(`quota scaling at hour ${r4(ev.at / HOUR)}: ${ev.set.map((s) => `${s.quota} → ${s.gpu} GPUs`).join(', ')}; ${res.changes.length} job(s) changed standing`);
    this.version++;
  }

  private view(): SimView {
    return {
      t: this.now,
      snapshot: this.snap,
      spot: this.spot.view(),
      queuePosition: (job) => this.scheduler.queuePosition(job),
      protection: new Map(this.spot.types.map((t) => [t.series.type.name, t.series.market.protectionPeriod])),
    };
  }
}
