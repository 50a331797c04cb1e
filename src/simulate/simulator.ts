/**
 * The discrete-event simulator (docs/simulate.md). Time is simulated, never slept.
 *
 * Every decision about a quota job is the engine's: at a dequeue the job is put to
 * the answer pipeline (engine/pipeline.ts `answerJob`) against a live Snapshot of the
 * cluster — the call `quotient whatif` makes — and the answer is carried out as given: its victims are preempted (each with
 * the rule, policy line and reason the answer names), and the job starts with the
 * answer's standing on the answer's placement. Spot jobs bid on the market by the rules
 * of engine/spot-rules.ts. In one step of simulated time:
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
import { answerJob } from '../engine/pipeline.js';
import type { Answer } from '../engine/answer.js';
import { DenseKernel } from '../engine/dense-kernel.js';
import { LiveSnapshot } from '../engine/live-snapshot.js';
import { Snapshot } from '../engine/snapshot.js';
import { popcount } from '../kernel/gpu-mask.js';
import { bidPrice, canStart, selectReleases, SPOT_RULE, type RunningSpot } from '../engine/spot-rules.js';
import { hasErrors, QuotientError } from '../errors.js';
import { createKernel } from '../kernel/create-kernel.js';
import type { Kernel, PodPlacement } from '../kernel/types.js';
import { lastCheckpoint, lostGpuHours } from '../model/lost-work.js';
import type { Cluster, ClusterNode, JobSpec, Policy, RunningJob, Standing } from '../model/policy.js';
import { QuotaTree } from '../model/quota-tree.js';
import { rescaleStandings } from '../model/rescale.js';
import { compileRules } from '../rules/compile-rules.js';
import { EligibilityTables } from '../rules/eligibility-table.js';
import { EventHeap, PHASE } from './event-heap.js';
import { JobQueue, servePass, type PassOutcome, type QueueEntry } from '../engine/queue-order.js';
import type { TypeSeries } from './market.js';
import { type GroupAcc, Metrics, spotFigures } from './metrics.js';
import { r2, r4, waitStats, type Report } from './report.js';
import type { SimJob, Workload } from './workload.js';

const HOUR = 3_600_000;

/** A quota scaling at a time of the run (SEMANTICS 9). */
export interface ScaleEvent {
  at: number;
  set: Array<{ quota: string; gpu: number }>;
}

/** What a run needs. */
export interface SimInput {
  policy: Policy;
  /** A label for the report (the policy's path). */
  label: string;
  nodes: ClusterNode[];
  workload: Workload;
  market: TypeSeries[];
  scales?: ScaleEvent[];
  /**
   * Jobs already running when the run starts (a Cluster snapshot's, snapshot-start.ts), in
   * run time: `startedAt` <= 0, `expectedEnd` >= 0 or absent (then the job runs until the
   * run ends, unless preempted). They hold their placement (or the one the engine gives a
   * job without), count in their quotas with their standing, end at their expected end and
   * are victims by the policy's rules like any running job.
   */
  running?: RunningJob[];
  /**
   * Jobs waiting when the run starts (a Cluster snapshot's queue, snapshot-start.ts
   * `queuedAtStart`): `submit` is their submission in run time, at or before 0. They
   * arrive at time 0 before any job of the workload, keeping `submit` for their place
   * in their queue, for aging and balance's window and for their wait; at equal
   * priority and submission they come before the workload's jobs (SEMANTICS 8: they
   * were submitted first).
   */
  queued?: SimJob[];
  /** What the caller left out or assumed, for the report's notes (e.g. a snapshot not carried onto other nodes). */
  notes?: string[];
}

export interface SimOptions {
  seed: number;
  /** Stop at this simulated time (ms). */
  until?: number;
  backend?: 'wasm' | 'reference';
  kernel?: Kernel;
  /**
   * How the kernel follows the cluster: 'incremental' (default) adds and removes one job
   * per start and end (engine/dense-kernel.ts); 'reload' writes the whole cluster again
   * before a question after any change — the slow path, kept to check that both decide alike.
   */
  kernelUpdates?: 'incremental' | 'reload';
  /**
   * The scheduler's cycle (ms): queues are tried at multiples of it, as PAI's and
   * Kubernetes' schedulers run in cycles; 0 or absent = after every event.
   */
  cycle?: number;
  /** Chart sample spacing (ms); default: the run's span / 240, at least a minute. */
  sampleEvery?: number;
  /** Called now and then with the share of arrivals processed. */
  onProgress?: (done: number, total: number) => void;
  /** Called after every step with the live state (invariant tests). */
  onStep?: (view: SimView) => void;
  /** Called when a quota job starts on the cluster, with how it starts (start estimates). */
  onStart?: (start: SimStart) => void;
}

/** A quota job starting on the cluster: when, with which standing, preempting whom. */
export interface SimStart {
  job: string;
  /** Run time, ms. */
  t: number;
  standing: Standing;
  victims: string[];
}

/** What a step looks like from outside (tests of invariants over time). */
export interface SimView {
  t: number;
  snapshot: Snapshot;
  spot: Array<{ type: string; price: number; inventory: number; running: Array<{ job: string; bid: number; startedAt: number; pods: number }> }>;
  protection: Map<string, number>;
  /** A waiting quota job's place in the order its queue's strategy tries it now (0 = next), or -1. */
  queuePosition: (job: string) => number;
}

type Status = 'pending' | 'waiting' | 'running' | 'done' | 'preempted' | 'rejected';

interface JobState {
  sim: SimJob;
  id: number;
  order: number;
  team: string;
  quota: number;
  status: Status;
  /** Work saved at checkpoints, ms. */
  progress: number;
  runId: number;
  runStart: number;
  standing: Standing;
  restarts: number;
  firstStart: number;
  entry?: Entry;
  /** Spot: instance type index and bid. */
  typeIdx: number;
  bid: number;
  costAt: number;
}

interface Entry extends QueueEntry {
  js: JobState;
}

interface SpotType {
  series: TypeSeries;
  price: number;
  inventory: number;
  priceAt: number;
  invAt: number;
  inUse: number;
  waiting: JobState[];
  running: JobState[];
}

/** Runs the workload against the policy and returns the report. */
export async function simulate(input: SimInput, options: SimOptions): Promise<Report> {
  const sim = new Simulation(input, options);
  return sim.run();
}

class Simulation {
  private readonly policy: Policy;
  private readonly tree: QuotaTree;
  private readonly live: LiveSnapshot;
  private readonly snap: Snapshot;
  private readonly ctx: EngineContext & { viewer?: undefined };
  private readonly heap = new EventHeap();
  /** Per job id, its state from arrival until it ends; undefined before and after. */
  private readonly jobs: Array<JobState | undefined>;
  private readonly orderOf: Int32Array;
  private readonly typeIndex: Map<string, number>;
  /** Running jobs by name (victims and releases are named): only running ones, so it stays small. */
  private readonly byName = new Map<string, JobState>();
  private readonly queues: Array<JobQueue<Entry>>;
  private readonly spot: SpotType[];
  private readonly metrics: Metrics;
  private readonly typeAcc: GroupAcc[];
  private readonly capacity: number;
  private readonly notes: string[] = [];
  private version = 0;
  private readonly memo = new Map<string, number>();
  private now = 0;
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
    this.ctx = { snapshot: this.snap, tables: new EligibilityTables(compileRules(this.policy), this.tree) };
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
    this.typeIndex = new Map(input.market.map((s, i) => [s.type.name, i]));
    // A job's state exists from its arrival until it ends (done, ended Preempted, rejected):
    // a month of jobs never lives in memory at once.
    this.jobs = new Array<JobState | undefined>(total).fill(undefined);
    this.arrivals = Int32Array.from(wjobs.keys());
    if (wjobs.some((j, i) => i > 0 && j.submit < wjobs[i - 1]!.submit)) this.arrivals.sort((a, b) => wjobs[a]!.submit - wjobs[b]!.submit || a - b);
    this.queues = this.policy.quotas.map((q) => new JobQueue<Entry>(q.queueStrategy, q.queue));
    this.spot = input.market.map((series) => ({ series, price: Infinity, inventory: 0, priceAt: 0, invAt: 0, inUse: 0, waiting: [], running: [] }));

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
        fragmented: () => this.fragmented(),
        waiting: () => this.waitingCount(),
        spotRunning: () => this.spot.reduce((s, t) => s + t.running.length, 0),
        prices: () => Object.fromEntries(this.spot.map((t) => [t.series.type.name, Number.isFinite(t.price) ? t.price : 0])),
      },
      this.spot.map((t) => t.series.type.name),
    );
    this.typeAcc = this.spot.map((t) => this.metrics.extraGroup(t.series.type.name));
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
      const js: JobState = {
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
        typeIdx: -1,
        bid: 0,
        costAt: 0,
      };
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
      this.live.start(live, pods, js.order);
      if (live.checkpoint?.last !== undefined) this.anchored.set(js, live);
      for (const a of this.metrics.groups(js.team, js.quota)) a.jobs++;
      this.metrics.started(
        js.team,
        js.quota,
        js.standing,
        this.gpus(js),
        pods.reduce((s, p) => s + popcount(p.mask), 0),
      );
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
    this.spot.forEach((t, i) => {
      if (t.series.prices[0]) this.heap.push(t.series.prices[0].at, 'market', i, 0);
      if (t.series.inventory[0]) this.heap.push(t.series.inventory[0].at, 'market', i, 1);
    });
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
    this.closeSpotCosts(end);
    this.options.onProgress?.(this.arrived, workload.jobs.length);
    return this.report(end);
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
    return this.spot.some((t) => t.running.length > 0 || t.waiting.length > 0);
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
        return this.marketMove(e.a, e.b);
      case 'protection':
        return this.releaseCheck(e.a);
      case 'scale':
        return this.scale(e.a);
      case 'cycle':
        return;
    }
  }

  private arrive(id: number): void {
    const sim = this.input.workload.jobs[id]!;
    const typeIdx = sim.spot ? this.typeIndex.get(sim.spot.instanceType)! : -1;
    const js: JobState = {
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
      typeIdx,
      bid: sim.spot ? bidPrice(sim.spot, this.input.market[typeIdx]!.type) : 0,
      costAt: 0,
    };
    this.jobs[id] = js;
    this.arrived++;
    for (const a of this.metrics.groups(js.team, js.quota)) a.jobs++;
    if (js.typeIdx >= 0) for (const a of this.spotGroups(js)) a.spot.jobs++;
    this.enqueue(js, this.now);
  }

  private enqueue(js: JobState, at: number): void {
    js.status = 'waiting';
    if (js.typeIdx >= 0) {
      const t = this.spot[js.typeIdx]!;
      t.waiting.push(js);
      t.waiting.sort((a, b) => b.bid - a.bid || a.sim.submit - b.sim.submit || a.order - b.order);
      return;
    }
    // The last tie-break: name order, the snapshot's queued jobs before every other (they were submitted first).
    const order = js.id >= this.firstQueued ? js.order : this.jobs.length + js.order;
    js.entry = { js, priority: js.sim.spec.priority, submit: js.sim.submit, order, enqueuedAt: at };
    this.queues[js.quota]!.add(js.entry);
  }

  private end(js: JobState, runId: number): void {
    if (js.status !== 'running' || js.runId !== runId) return;
    if (js.typeIdx >= 0) this.stopSpot(js);
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
  private stopCluster(js: JobState): void {
    const idx = this.snap.jobIndex.get(js.sim.spec.name)!;
    this.byName.delete(js.sim.spec.name);
    const maskGpus = this.live.gpusOf(idx);
    this.live.remove(idx);
    this.metrics.stopped(js.team, js.quota, js.standing, this.gpus(js), maskGpus);
    this.version++;
  }

  private gpus(js: JobState): number {
    return js.sim.spec.pods * js.sim.spec.resources.gpu;
  }

  /** The work a job loses if stopped now, and what it keeps (SEMANTICS 7, model/lost-work.ts). */
  private interrupt(js: JobState): { lost: number; kept: number } {
    // A snapshot job's first run checkpoints from the snapshot's `checkpoint.last` on.
    const checkpoint = js.runId === 1 ? (this.anchored.get(js)?.checkpoint ?? js.sim.spec.checkpoint) : js.sim.spec.checkpoint;
    const run = { startedAt: js.runStart, checkpoint, pods: js.sim.spec.pods, resources: js.sim.spec.resources };
    return { lost: lostGpuHours(run, this.now), kept: lastCheckpoint(run, this.now) - js.runStart };
  }

  /** After a preemption or release: restart per faultTolerance, or end Preempted. */
  private afterInterrupt(js: JobState, kept: number): boolean {
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

  // ---- the scheduling pass ---------------------------------------------------------

  private async schedule(): Promise<void> {
    for (let sweep = 0; ; sweep++) {
      const before = this.version;
      await servePass(this.queues, this.now, (entry, q) => this.tryQueued(entry, q));
      if (this.version === before || sweep > 1000) break;
    }
    for (let i = 0; i < this.spot.length; i++) this.spotPass(i);
  }

  /** One attempt of a pass (engine/queue-order.ts servePass): asks the engine about a waiting job and carries out its answer. */
  private async tryQueued(entry: Entry, q: number): Promise<PassOutcome> {
    const js = entry.js;
    if (js.status !== 'waiting') return 'left';
    const queue = this.queues[q]!;
    const key = shapeKey(js.sim.spec);
    // The same question against an unchanged cluster gets the same answer.
    if (this.memo.get(key) === this.version) return 'waits';
    const answer = await this.ask(js.sim.spec);
    if (answer.decision === 'admit' || answer.decision === 'preempt') {
      queue.remove(entry);
      this.carryOut(js, answer);
      return 'started';
    }
    if (answer.decision === 'reject') {
      queue.remove(entry);
      js.status = 'rejected';
      this.jobs[js.id] = undefined;
      for (const g of this.metrics.groups(js.team, js.quota)) g.rejected++;
      this.metrics.rejections.push({ job: js.sim.spec.name, team: js.team, quota: js.sim.spec.quota, hour: r4(this.now / HOUR), reason: answer.reasons.map((r) => r.message).join('; ') });
      return 'left';
    }
    this.memo.set(key, this.version);
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
    for (const v of answer.victims) {
      const victim = this.byName.get(v.job)!;
      const { kept } = this.interrupt(victim);
      this.stopCluster(victim);
      const restarted = this.afterInterrupt(victim, kept);
      this.metrics.preemption(
        { hour: r4(this.now / HOUR), job: v.job, team: victim.team, quota: v.quota, rule: v.rule, source: v.source, reason: v.reason, lostGpuHours: v.lostGpuHours, by: js.sim.spec.name, restarted },
        victim.quota,
      );
    }
    this.live.sync();
    const pods: PodPlacement[] = answer.placement.map((p) => ({ node: this.snap.nodeIndex.get(p.node)!, mask: p.gpus.reduce((m, g) => m | (1 << g), 0) >>> 0 }));
    const standing = answer.standing as Standing;
    // Object.assign keeps one hidden class per spec shape (a spread literal makes one per job).
    const job: RunningJob = Object.assign({}, js.sim.spec, { standing, startedAt: this.now, placement: [], placedByEngine: false });
    this.live.start(job, pods, js.order);
    const maskGpus = pods.reduce((s, p) => s + popcount(p.mask), 0);
    this.metrics.started(js.team, js.quota, standing, this.gpus(js), maskGpus);
    this.begin(js, standing);
    this.options.onStart?.({ job: js.sim.spec.name, t: this.now, standing, victims: answer.victims.map((v) => v.job) });
    this.version++;
  }

  /** Bookkeeping of a start, on the cluster or the market. */
  private begin(js: JobState, standing: Standing): void {
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

  // ---- the spot market -------------------------------------------------------------

  private spotPass(i: number): void {
    const t = this.spot[i]!;
    if (t.waiting.length === 0) return;
    const left: JobState[] = [];
    for (const js of t.waiting) {
      if (canStart(js.bid, t.price, js.sim.spec.pods, t.inventory - t.inUse)) {
        t.inUse += js.sim.spec.pods;
        t.running.push(js);
        js.costAt = this.now;
        for (const g of this.spotGroups(js)) g.spot.gpusNow += this.gpus(js);
        this.begin(js, 'in-quota');
        this.heap.push(this.now + t.series.market.protectionPeriod, 'protection', i);
      } else left.push(js);
    }
    t.waiting = left;
  }

  private marketMove(i: number, which: number): void {
    const t = this.spot[i]!;
    const series = which === 0 ? t.series.prices : t.series.inventory;
    const k = which === 0 ? t.priceAt : t.invAt;
    const point = series[k]!;
    if (which === 0) {
      this.accrue(t);
      t.price = point.value;
      t.priceAt++;
    } else {
      t.inventory = point.value;
      t.invAt++;
    }
    const next = series[k + 1];
    if (next) this.heap.push(next.at, 'market', i, which);
    this.releaseCheck(i);
  }

  /** Adds the cost of the running spot jobs of a type up to now, at the price that held. */
  private accrue(t: SpotType): void {
    for (const js of t.running) this.accrueJob(t, js);
  }

  private accrueJob(t: SpotType, js: JobState): void {
    const h = (this.now - js.costAt) / HOUR;
    if (h > 0 && Number.isFinite(t.price)) for (const g of this.spotGroups(js)) g.spot.cost += js.sim.spec.pods * t.price * h;
    js.costAt = this.now;
  }

  /** Takes a spot job off the market, paying what it owes. */
  private stopSpot(js: JobState): void {
    const t = this.spot[js.typeIdx]!;
    this.byName.delete(js.sim.spec.name);
    this.accrueJob(t, js);
    t.running.splice(t.running.indexOf(js), 1);
    t.inUse -= js.sim.spec.pods;
    const h = (this.now - js.runStart) / HOUR;
    for (const g of this.spotGroups(js)) {
      g.spot.gpusNow -= this.gpus(js);
      g.spot.payg += js.sim.spec.pods * t.series.type.payAsYouGo * h;
    }
  }

  /** Applies SEMANTICS 6's release rule to a type after a price or inventory move, or a protection period's end. */
  private releaseCheck(i: number): void {
    const t = this.spot[i]!;
    if (t.running.length === 0) return;
    const running: RunningSpot[] = t.running.map((js) => ({
      name: js.sim.spec.name,
      pods: js.sim.spec.pods,
      gpusPerPod: js.sim.spec.resources.gpu,
      bid: js.sim.spot!,
      startedAt: js.runStart,
      lostGpuHours: this.interrupt(js).lost,
    }));
    const releases = selectReleases(t.series.type, running, t.price, t.inventory, this.now, t.series.market.protectionPeriod);
    for (const r of releases) {
      const js = this.byName.get(r.job)!;
      const { kept } = this.interrupt(js);
      this.stopSpot(js);
      const restarted = this.afterInterrupt(js, kept);
      for (const g of this.spotGroups(js)) g.spot[r.cause]++;
      this.metrics.preemption(
        {
          hour: r4(this.now / HOUR),
          job: r.job,
          team: js.team,
          quota: js.sim.spec.quota,
          rule: SPOT_RULE,
          source: `${t.series.market.src.file}:${t.series.type.src.line}:${t.series.type.src.column}`,
          reason: r.reason,
          lostGpuHours: r.lostGpuHours,
          by: '',
          restarted,
        },
        js.quota,
      );
    }
  }

  private closeSpotCosts(end: number): void {
    this.now = Math.max(this.now, end);
    for (const t of this.spot) {
      for (const js of [...t.running]) {
        this.accrueJob(t, js);
        const h = (this.now - js.runStart) / HOUR;
        for (const g of this.spotGroups(js)) g.spot.payg += js.sim.spec.pods * t.series.type.payAsYouGo * h;
        js.runStart = this.now;
      }
    }
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
      const gpus = this.gpus(js);
      const maskGpus = this.live.gpusOf(idx);
      this.metrics.stopped(js.team, js.quota, js.standing, gpus, maskGpus);
      this.live.setStanding(idx, ch.to);
      js.standing = ch.to;
      this.metrics.started(js.team, js.quota, ch.to, gpus, maskGpus);
    }
    for (const [quota, gpu] of newMin) this.policy.quotas[this.tree.indexOf(quota)]!.min.gpu = gpu;
    this.notes.push(`quota scaling at hour ${r4(ev.at / HOUR)}: ${ev.set.map((s) => `${s.quota} → ${s.gpu} GPUs`).join(', ')}; ${res.changes.length} job(s) changed standing`);
    this.version++;
  }

  // ---- probes and the report -------------------------------------------------------

  private waitingCount(): number {
    return this.queues.reduce((s, q) => s + q.size, 0);
  }

  /** Free GPUs that no waiting pod shape can use (SEMANTICS 5.4); none when nothing waits. */
  private fragmented(): number {
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

  private view(): SimView {
    return {
      t: this.now,
      snapshot: this.snap,
      spot: this.spot.map((t) => ({
        type: t.series.type.name,
        price: t.price,
        inventory: t.inventory,
        running: t.running.map((js) => ({ job: js.sim.spec.name, bid: js.bid, startedAt: js.runStart, pods: js.sim.spec.pods })),
      })),
      queuePosition: (job) => {
        for (const q of this.queues) {
          const e = q.all().find((x) => x.js.sim.spec.name === job);
          if (e) return q.position(e, this.now);
        }
        return -1;
      },
      protection: new Map(this.spot.map((t) => [t.series.type.name, t.series.market.protectionPeriod])),
    };
  }

  private report(end: number): Report {
    const m = this.metrics;
    const unfinished = new Map<string, number>();
    const unfinishedQ = new Map<number, number>();
    const count = (team: string, quota: number) => {
      unfinished.set(team, (unfinished.get(team) ?? 0) + 1);
      unfinishedQ.set(quota, (unfinishedQ.get(quota) ?? 0) + 1);
    };
    // Still waiting or running, or not yet arrived (a run stopped by --until).
    for (const js of this.jobs) if (js && (js.status === 'waiting' || js.status === 'running')) count(js.team, js.quota);
    for (let k = this.arrived; k < this.arrivals.length; k++) {
      const spec = this.input.workload.jobs[this.arrivals[k]!]!.spec;
      count(spec.workspace, this.tree.indexOf(spec.quota));
    }
    const hours = end / HOUR;
    const all = m.all.figures([...unfinished.values()].reduce((s, x) => s + x, 0));
    const teams = [...m.teams.values()].map((g) => g.figures(unfinished.get(g.name) ?? 0));
    const quotas = m.quotas.map((g, i) => {
      const minGpu = this.policy.quotas[i]!.min.gpu;
      const f = g.figures(unfinishedQ.get(i) ?? 0);
      return { ...f, minGpu, guaranteeUsed: minGpu > 0 && hours > 0 ? r4(f.gpuHours.inQuota / (minGpu * hours)) : 0 };
    });
    const byType = this.spot.map((t, i) => ({ name: t.series.type.name, payAsYouGoPrice: t.series.type.payAsYouGo, ...spotFigures(this.typeAcc[i]!.spot) }));
    const synthetic = this.spot.some((t) => t.series.syntheticPrices || t.series.syntheticInventory);
    const notes = [...(this.input.notes ?? []), ...this.notes];
    if (this.input.workload.synthetic) notes.push(`the workload is synthetic: ${this.input.workload.source}`);
    if (synthetic)
      notes.push(
        `the spot market's ${this.spot
          .filter((t) => t.series.syntheticPrices || t.series.syntheticInventory)
          .map((t) => t.series.type.name)
          .join(', ')} series are synthetic (seeded model, docs/simulate.md)`,
      );
    return {
      version: 1,
      policy: this.input.label,
      workload: {
        source: this.input.workload.source,
        synthetic: this.input.workload.synthetic,
        jobs: this.input.workload.jobs.length,
        rejectedRows: new Set(this.input.workload.rejected.map((f) => `${f.file}:${f.line}`)).size,
        notes: this.input.workload.notes,
      },
      seed: this.options.seed,
      hours: r4(hours),
      until: this.options.until === undefined ? null : r4(this.options.until / HOUR),
      cycleSeconds: (this.options.cycle ?? 0) / 1000,
      cluster: {
        nodes: this.input.nodes.length,
        gpus: this.capacity,
        runningAtStart: this.input.running?.length ?? 0,
        ...(this.input.queued?.length ? { queuedAtStart: this.input.queued.length } : {}),
      },
      totals: {
        jobs: this.jobs.length,
        completed: all.completed,
        endedPreempted: all.endedPreempted,
        rejected: all.rejected,
        unfinished: all.unfinished,
        capacityGpuHours: r2(this.capacity * hours),
        usedGpuHours: r2(m.usedMs / HOUR),
        idleGpuHours: r2(m.idleMs / HOUR),
        utilisation: hours > 0 && this.capacity > 0 ? r4(m.usedMs / HOUR / (this.capacity * hours)) : 0,
        preemptions: all.preempted,
        restarts: all.restarts,
        lostGpuHours: all.lostGpuHours,
        wait: waitStats(m.all.waits),
      },
      teams,
      quotas,
      preemptions: {
        byRule: [...m.byRule.values()].sort((a, b) => b.count - a.count || (a.rule < b.rule ? -1 : 1)),
        byVictimTeam: [...m.byVictimTeam.values()].sort((a, b) => b.count - a.count || (a.team < b.team ? -1 : 1)),
        first: m.first,
      },
      spot: { ...spotFigures(m.all.spot), synthetic, byInstanceType: byType },
      rejections: m.rejections.slice(0, 200),
      series: m.series,
      notes,
    };
  }

  /** The accumulators a spot job's figures go to: its team, quota, the total and its instance type. */
  private spotGroups(js: JobState): GroupAcc[] {
    return [...this.metrics.groups(js.team, js.quota), this.typeAcc[js.typeIdx]!];
  }
}

/** What decides an answer about a job, besides the cluster: jobs with equal keys get equal answers. */
function shapeKey(s: JobSpec): string {
  return `${s.quota}|${s.workspace}|${s.submittedBy ?? ''}|${s.module}|${s.priority}|${s.pods}|${s.resources.gpu}|${s.resources.cpu ?? ''}|${s.resources.memory ?? ''}|${s.idleResources}|${s.maxRuntime ?? ''}`;
}
