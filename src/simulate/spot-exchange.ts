/**
 * The simulator's spot market room (SEMANTICS 6): spot jobs bid on their instance type's
 * market by the rules of engine/spot-rules.ts, start when their bid and the free inventory
 * allow, pay the price that holds while they run, and are released when a price or
 * inventory move (or a protection period's end) makes selectReleases name them. The
 * series come from market.ts; the event loop (simulator.ts) calls in at each move.
 */
import { bidPrice, canStart, selectReleases, SPOT_RULE, type RunningSpot } from '../engine/spot-rules.js';
import type { TypeSeries } from './market.js';
import type { GroupAcc } from './metrics.js';
import { r4 } from './report.js';
import { gpusOf, HOUR, type JobState, type SimCore } from './sim-job.js';
import type { SimJob } from './workload.js';

/** One instance type's market as the run goes. */
export interface SpotType {
  series: TypeSeries;
  price: number;
  inventory: number;
  priceAt: number;
  invAt: number;
  inUse: number;
  waiting: JobState[];
  running: JobState[];
}

export class SpotExchange {
  readonly types: SpotType[];
  /** Per instance type, its figures (integrated over time like a team's). */
  readonly typeAcc: GroupAcc[];
  private readonly typeIndex: Map<string, number>;

  constructor(
    private readonly core: SimCore,
    private readonly market: TypeSeries[],
  ) {
    this.typeIndex = new Map(market.map((s, i) => [s.type.name, i]));
    this.types = market.map((series) => ({ series, price: Infinity, inventory: 0, priceAt: 0, invAt: 0, inUse: 0, waiting: [], running: [] }));
    this.typeAcc = this.types.map((t) => core.metrics.extraGroup(t.series.type.name));
  }

  /** The first move of every series, on the heap. */
  schedule(): void {
    this.types.forEach((t, i) => {
      if (t.series.prices[0]) this.core.heap.push(t.series.prices[0].at, 'market', i, 0);
      if (t.series.inventory[0]) this.core.heap.push(t.series.inventory[0].at, 'market', i, 1);
    });
  }

  /** A spot job's instance type (its index) and its bid per hour; -1 and 0 for a quota job. */
  bidOf(sim: SimJob): { typeIdx: number; bid: number } {
    const typeIdx = sim.spot ? this.typeIndex.get(sim.spot.instanceType)! : -1;
    return { typeIdx, bid: sim.spot ? bidPrice(sim.spot, this.market[typeIdx]!.type) : 0 };
  }

  /** A spot job enters its type's bidding queue: highest bid first, then submission, then name. */
  enqueue(js: JobState): void {
    const t = this.types[js.typeIdx]!;
    t.waiting.push(js);
    t.waiting.sort((a, b) => b.bid - a.bid || a.sim.submit - b.sim.submit || a.order - b.order);
  }

  /** Spot jobs still running or bidding. */
  hasWork(): boolean {
    return this.types.some((t) => t.running.length > 0 || t.waiting.length > 0);
  }

  runningCount(): number {
    return this.types.reduce((s, t) => s + t.running.length, 0);
  }

  /** Price now per instance type (0 before its first price). */
  prices(): Record<string, number> {
    return Object.fromEntries(this.types.map((t) => [t.series.type.name, Number.isFinite(t.price) ? t.price : 0]));
  }

  /** Each type's bidding queue, highest bid first. */
  passAll(): void {
    for (let i = 0; i < this.types.length; i++) this.pass(i);
  }

  private pass(i: number): void {
    const t = this.types[i]!;
    if (t.waiting.length === 0) return;
    const left: JobState[] = [];
    for (const js of t.waiting) {
      if (canStart(js.bid, t.price, js.sim.spec.pods, t.inventory - t.inUse)) {
        t.inUse += js.sim.spec.pods;
        t.running.push(js);
        js.costAt = this.core.now;
        for (const g of this.groups(js)) g.spot.gpusNow += gpusOf(js);
        this.core.begin(js, 'in-quota');
        this.core.heap.push(this.core.now + t.series.market.protectionPeriod, 'protection', i);
      } else left.push(js);
    }
    t.waiting = left;
  }

  /** A price (`which` 0) or inventory (1) move of type `i`, then its release check. */
  move(i: number, which: number): void {
    const t = this.types[i]!;
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
    if (next) this.core.heap.push(next.at, 'market', i, which);
    this.releaseCheck(i);
  }

  /** Adds the cost of the running spot jobs of a type up to now, at the price that held. */
  private accrue(t: SpotType): void {
    for (const js of t.running) this.accrueJob(t, js);
  }

  private accrueJob(t: SpotType, js: JobState): void {
    const h = (this.core.now - js.costAt) / HOUR;
    if (h > 0 && Number.isFinite(t.price)) for (const g of this.groups(js)) g.spot.cost += js.sim.spec.pods * t.price * h;
    js.costAt = this.core.now;
  }

  /** Takes a spot job off the market, paying what it owes. */
  stop(js: JobState): void {
    const t = this.types[js.typeIdx]!;
    this.core.byName.delete(js.sim.spec.name);
    this.accrueJob(t, js);
    t.running.splice(t.running.indexOf(js), 1);
    t.inUse -= js.sim.spec.pods;
    const h = (this.core.now - js.runStart) / HOUR;
    for (const g of this.groups(js)) {
      g.spot.gpusNow -= gpusOf(js);
      g.spot.payg += js.sim.spec.pods * t.series.type.payAsYouGo * h;
    }
  }

  /** Applies SEMANTICS 6's release rule to a type after a price or inventory move, or a protection period's end. */
  releaseCheck(i: number): void {
    const t = this.types[i]!;
    if (t.running.length === 0) return;
    const now = this.core.now;
    const running: RunningSpot[] = t.running.map((js) => ({
      name: js.sim.spec.name,
      pods: js.sim.spec.pods,
      gpusPerPod: js.sim.spec.resources.gpu,
      bid: js.sim.spot!,
      startedAt: js.runStart,
      lostGpuHours: this.core.interrupt(js).lost,
    }));
    const releases = selectReleases(t.series.type, running, t.price, t.inventory, now, t.series.market.protectionPeriod);
    for (const r of releases) {
      const js = this.core.byName.get(r.job)!;
      const { kept } = this.core.interrupt(js);
      this.stop(js);
      const restarted = this.core.afterInterrupt(js, kept);
      for (const g of this.groups(js)) g.spot[r.cause]++;
      this.core.metrics.preemption(
        {
          hour: r4(now / HOUR),
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

  /** At the run's end (`now`): what the running spot jobs owe up to then. */
  closeCosts(): void {
    const now = this.core.now;
    for (const t of this.types) {
      for (const js of [...t.running]) {
        this.accrueJob(t, js);
        const h = (now - js.runStart) / HOUR;
        for (const g of this.groups(js)) g.spot.payg += js.sim.spec.pods * t.series.type.payAsYouGo * h;
        js.runStart = now;
      }
    }
  }

  /** The accumulators a spot job's figures go to: its team, quota, the total and its instance type. */
  groups(js: JobState): GroupAcc[] {
    return [...this.core.metrics.groups(js.team, js.quota), this.typeAcc[js.typeIdx]!];
  }

  /** What the market looks like now, for SimView. */
  view(): Array<{ type: string; price: number; inventory: number; running: Array<{ job: string; bid: number; startedAt: number; pods: number }> }> {
    return this.types.map((t) => ({
      type: t.series.type.name,
      price: t.price,
      inventory: t.inventory,
      running: t.running.map((js) => ({ job: js.sim.spec.name, bid: js.bid, startedAt: js.runStart, pods: js.sim.spec.pods })),
    }));
  }
}
