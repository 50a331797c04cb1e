/**
 * What a simulation measures while it runs. GPU-time is integrated exactly between
 * events (the state is constant in between), from two independent counts: GPUs held by
 * running jobs (pods × GPUs per pod, a share as its fraction) and free GPUs on the nodes
 * (their bitmaps, plus the room sharing pods leave on a GPU: gpu-occupancy.ts), so
 * `used + idle = capacity × time` is a check, not a definition. Samples for the charts
 * are taken on a fixed grid of simulated time.
 */
import type { Standing } from '../model/policy.js';
import { addGpu, MILLI_PER_GPU } from '../model/resources.js';
import type { FreeChange } from './gpu-occupancy.js';
import { r2, r4, waitStats, type GroupFigures, type PreemptionEvent, type RuleCount, type Series, type SpotFigures } from './report.js';

const HOUR = 3_600_000;
const STANDING_INDEX: Record<Standing, number> = { 'in-quota': 0, borrowing: 1, idle: 2 };
/** Preemption events kept verbatim in the report; the rest are counted only. */
export const FIRST_EVENTS = 200;

/** Raw per-group accumulators. */
export class GroupAcc {
  jobs = 0;
  completed = 0;
  endedPreempted = 0;
  rejected = 0;
  waits: number[] = [];
  /** GPU-ms by standing. */
  gpuMs = [0, 0, 0];
  /** GPUs in use now, by standing. */
  now = [0, 0, 0];
  preempted = 0;
  lost = 0;
  restarts = 0;
  extraMs = 0;
  spot = { jobs: 0, gpuMs: 0, gpusNow: 0, cost: 0, payg: 0, price: 0, inventory: 0 };

  constructor(readonly name: string) {}

  /** Figures at the end; `censored`: the waits so far (ms) of its jobs still waiting that never started. */
  figures(unfinished: number, censored: readonly number[] = []): GroupFigures {
    const h = this.gpuMs.map((x) => x / HOUR);
    return {
      name: this.name,
      jobs: this.jobs,
      completed: this.completed,
      endedPreempted: this.endedPreempted,
      rejected: this.rejected,
      unfinished,
      wait: waitStats(this.waits, censored),
      gpuHours: { inQuota: r2(h[0]!), borrowing: r2(h[1]!), idle: r2(h[2]!), total: r2(h[0]! + h[1]! + h[2]!) },
      preempted: this.preempted,
      lostGpuHours: r2(this.lost),
      restarts: this.restarts,
      extraHours: r2(this.extraMs / HOUR),
      spot: spotFigures(this.spot),
    };
  }
}

/** Spot accumulators → figures. */
export function spotFigures(s: GroupAcc['spot']): SpotFigures {
  return { jobs: s.jobs, gpuHours: r2(s.gpuMs / HOUR), cost: r2(s.cost), payAsYouGo: r2(s.payg), saved: r2(s.payg - s.cost), interruptions: { price: s.price, inventory: s.inventory } };
}

/** Everything measured during one run. */
export class Metrics {
  readonly teams = new Map<string, GroupAcc>();
  readonly quotas: GroupAcc[];
  readonly all = new GroupAcc('all');
  readonly byRule = new Map<string, RuleCount>();
  readonly byVictimTeam = new Map<string, { team: string; count: number; lostGpuHours: number }>();
  readonly first: PreemptionEvent[] = [];
  readonly rejections: Array<{ job: string; team: string; quota: string; hour: number; reason: string }> = [];
  /** Cluster GPUs held by running jobs, by their requests. */
  private usedNow = 0;
  /** Free GPUs by the node bitmaps, in milli-GPUs (whole GPUs × 1000). */
  private wholeMilli: number;
  /** Room on GPUs that sharing pods partly hold, in milli-GPUs: free, for shares only. */
  private roomMilli = 0;
  usedMs = 0;
  /** Idle GPU-ms: free GPUs and room. */
  idleMs = 0;
  /** Of idleMs, the room on shared GPUs. */
  roomMs = 0;
  /** A sharing pod ran at some time (the report then gives the room). */
  sharing = false;
  private lastT = 0;
  private nextSample = 0;
  readonly series: Series;

  constructor(
    teamNames: string[],
    readonly quotaNames: string[],
    readonly capacity: number,
    private readonly sampleEvery: number,
    private readonly probe: { fragmented(): number; waiting(): number; spotRunning(): number; prices(): Record<string, number> },
    priceTypes: string[],
  ) {
    for (const t of teamNames) this.teams.set(t, new GroupAcc(t));
    this.quotas = quotaNames.map((q) => new GroupAcc(q));
    this.wholeMilli = capacity * MILLI_PER_GPU;
    this.series = {
      hour: [],
      used: [],
      byTeam: Object.fromEntries(teamNames.map((t) => [t, []])),
      byQuota: Object.fromEntries(quotaNames.map((q) => [q, []])),
      idle: [],
      fragmented: [],
      waiting: [],
      spotRunning: [],
      price: Object.fromEntries(priceTypes.map((p) => [p, []])),
    };
  }

  /** The accumulator of a team (workspace), made on first use. */
  team(name: string): GroupAcc {
    let t = this.teams.get(name);
    if (!t) {
      t = new GroupAcc(name);
      this.teams.set(name, t);
      this.series.byTeam[name] = this.series.hour.map(() => 0);
    }
    return t;
  }

  private readonly extra: GroupAcc[] = [];

  /** A further group integrated over time like the others (a spot instance type). */
  extraGroup(name: string): GroupAcc {
    const g = new GroupAcc(name);
    this.extra.push(g);
    return g;
  }

  /** Integrates the constant state up to `t` and takes the samples due on the way. */
  advance(t: number): void {
    while (this.nextSample <= t) {
      this.integrate(this.nextSample);
      this.sample(this.nextSample);
      this.nextSample += this.sampleEvery;
    }
    this.integrate(t);
  }

  private integrate(t: number): void {
    const dt = t - this.lastT;
    if (dt <= 0) return;
    this.usedMs += this.usedNow * dt;
    this.idleMs += ((this.wholeMilli + this.roomMilli) / MILLI_PER_GPU) * dt;
    this.roomMs += (this.roomMilli / MILLI_PER_GPU) * dt;
    for (const g of [...this.teams.values(), ...this.quotas, this.all, ...this.extra]) {
      for (let s = 0; s < 3; s++) g.gpuMs[s]! += g.now[s]! * dt;
      g.spot.gpuMs += g.spot.gpusNow * dt;
    }
    this.lastT = t;
  }

  private sample(t: number): void {
    const s = this.series;
    s.hour.push(r4(t / HOUR));
    s.used.push(this.usedNow);
    for (const [name, g] of this.teams) s.byTeam[name]!.push(g.now[0]! + g.now[1]! + g.now[2]!);
    this.quotas.forEach((g, i) => s.byQuota[this.quotaNames[i]!]!.push(g.now[0]! + g.now[1]!));
    s.idle.push(this.idleNow());
    s.fragmented.push(this.probe.fragmented());
    s.waiting.push(this.probe.waiting());
    s.spotRunning.push(this.probe.spotRunning());
    const prices = this.probe.prices();
    for (const k of Object.keys(s.price)) s.price[k]!.push(prices[k] ?? 0);
  }

  /** Free GPUs now: whole ones and the room on shared ones. */
  idleNow(): number {
    return (this.wholeMilli + this.roomMilli) / MILLI_PER_GPU;
  }

  /** A job starts on the cluster holding `gpus` by request; `free` is what its pods took from the free GPUs (gpu-occupancy.ts). */
  started(team: string, quota: number, standing: Standing, gpus: number, free: FreeChange): void {
    this.usedNow = addGpu(this.usedNow, gpus);
    this.free(free);
    for (const g of this.groups(team, quota)) g.now[STANDING_INDEX[standing]] = addGpu(g.now[STANDING_INDEX[standing]]!, gpus);
  }

  /** A job leaves the cluster; `free` is what its pods gave back. */
  stopped(team: string, quota: number, standing: Standing, gpus: number, free: FreeChange): void {
    this.usedNow = addGpu(this.usedNow, -gpus);
    this.free(free);
    for (const g of this.groups(team, quota)) g.now[STANDING_INDEX[standing]] = addGpu(g.now[STANDING_INDEX[standing]]!, -gpus);
  }

  private free(c: FreeChange): void {
    this.wholeMilli += c.wholeMilli;
    this.roomMilli += c.roomMilli;
    if (c.roomMilli !== 0) this.sharing = true;
  }

  /** The team, quota and total accumulators of a job. */
  groups(team: string, quota: number): GroupAcc[] {
    return [this.team(team), this.quotas[quota]!, this.all];
  }

  /** Counts a preemption or release under its rule and victim team; keeps the first ones verbatim. */
  preemption(e: PreemptionEvent, quota: number): void {
    const r = this.byRule.get(e.rule) ?? { rule: e.rule, source: e.source, count: 0, lostGpuHours: 0 };
    r.count++;
    r.lostGpuHours = r2(r.lostGpuHours + e.lostGpuHours);
    this.byRule.set(e.rule, r);
    const v = this.byVictimTeam.get(e.team) ?? { team: e.team, count: 0, lostGpuHours: 0 };
    v.count++;
    v.lostGpuHours = r2(v.lostGpuHours + e.lostGpuHours);
    this.byVictimTeam.set(e.team, v);
    for (const g of this.groups(e.team, quota)) {
      g.preempted++;
      g.lost += e.lostGpuHours;
      if (e.restarted) g.restarts++;
    }
    if (this.first.length < FIRST_EVENTS) this.first.push(e);
  }
}
