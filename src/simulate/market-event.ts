/**
 * "The price of X rises to P at T (or its inventory falls to N): which spot jobs are
 * released, and what do they lose?" The workload is simulated up to T, then SEMANTICS
 * 6's release rule (engine/spot-rules.ts, the rule the simulator applies) is asked
 * about the spot jobs running on X at that moment under the new price or inventory.
 */
import { selectReleases, type RunningSpot, type SpotRelease } from '../engine/spot-rules.js';
import { QuotientError } from '../errors.js';
import { lostGpuHours } from '../model/lost-work.js';
import { MAX_INVENTORY } from '../policy/parse/number-limits.js';
import { isRefusal, readPrice, readSimTime, readWhole, shownValue } from '../policy/parse/number-text.js';
import { simulate, type SimInput, type SimOptions, type SimView } from './simulator.js';

/** The event asked about. */
export interface MarketEvent {
  instanceType: string;
  at: number;
  price?: number;
  inventory?: number;
}

/** The answer: who is released (and loses what), who is protected, who keeps running. */
export interface MarketAnswer {
  instanceType: string;
  hour: number;
  price: { before: number; after: number };
  inventory: { before: number; after: number };
  released: Array<SpotRelease & { team: string; restarts: boolean }>;
  protectedUntilHour: Array<{ job: string; bid: number; hour: number }>;
  keepsRunning: Array<{ job: string; bid: number }>;
  lostGpuHours: number;
  assumptions: string[];
}

/**
 * `TYPE=PRICE@TIME` or `TYPE=inventory:N@TIME` → the event, or a message that says what
 * is wrong (and the limit, for a value past one: number-limits.ts).
 */
export function parseMarketEvent(value: string): MarketEvent | { refused: string; pastLimit: boolean } {
  const m = /^([^=]+)=(?:(inventory):)?([^@]+)@(.+)$/.exec(value.trim());
  if (!m) return { refused: `"${value}" is not TYPE=PRICE@TIME or TYPE=inventory:COUNT@TIME`, pastLimit: false };
  const at = readSimTime(m[4]!, 'time');
  if (isRefusal(at)) return { refused: `the time "${shownValue(m[4]!)}" ${at.refused}`, pastLimit: at.pastLimit };
  if (m[2]) {
    const n = readWhole(m[3]!, 0, MAX_INVENTORY);
    if (isRefusal(n)) return { refused: `the inventory count "${shownValue(m[3]!)}" ${n.refused}`, pastLimit: n.pastLimit };
    return { instanceType: m[1]!, at, inventory: n };
  }
  const price = readPrice(m[3]!, false);
  if (isRefusal(price)) return { refused: `the price "${shownValue(m[3]!)}" ${price.refused}`, pastLimit: price.pastLimit };
  return { instanceType: m[1]!, at, price };
}

/** Simulates up to the event and applies the release rule to it. */
export async function answerMarketEvent(input: SimInput, options: Omit<SimOptions, 'until' | 'onStep'>, event: MarketEvent): Promise<MarketAnswer> {
  const series = input.market.find((s) => s.type.name === event.instanceType);
  if (!series)
    throw new QuotientError(
      'whatif/unknown-instance-type',
      `no SpotMarket has instance type "${event.instanceType}"`,
      `instance types: ${input.market.map((s) => s.type.name).join(', ') || '(none)'}`,
    );
  let last: SimView | undefined;
  await simulate(input, { ...options, until: event.at, onStep: (v) => (last = v) });
  const spot = last?.spot.find((s) => s.type === event.instanceType);
  const teamOf = new Map(input.workload.jobs.map((j) => [j.spec.name, j]));
  const before = { price: spot && Number.isFinite(spot.price) ? spot.price : (series.prices[0]?.value ?? 0), inventory: spot?.inventory ?? 0 };
  const after = { price: event.price ?? before.price, inventory: event.inventory ?? before.inventory };
  const protection = series.market.protectionPeriod;
  const running: RunningSpot[] = (spot?.running ?? []).map((r) => {
    const j = teamOf.get(r.job)!;
    return {
      name: r.job,
      pods: r.pods,
      gpusPerPod: j.spec.resources.gpu,
      bid: j.spot!,
      startedAt: r.startedAt,
      lostGpuHours: lostGpuHours({ startedAt: r.startedAt, checkpoint: j.spec.checkpoint, pods: j.spec.pods, resources: j.spec.resources }, event.at),
    };
  });
  const releases = selectReleases(series.type, running, after.price, after.inventory, event.at, protection);
  const gone = new Set(releases.map((r) => r.job));
  const hour = (ms: number) => Math.round((ms / 3_600_000) * 10_000) / 10_000;
  return {
    instanceType: event.instanceType,
    hour: hour(event.at),
    price: { before: before.price, after: after.price },
    inventory: { before: before.inventory, after: after.inventory },
    released: releases.map((r) => ({ ...r, team: teamOf.get(r.job)!.spec.workspace, restarts: !!teamOf.get(r.job)!.spec.faultTolerance?.autoRestart })),
    protectedUntilHour: running
      .filter((r) => !gone.has(r.name) && event.at - r.startedAt < protection)
      .map((r) => ({ job: r.name, bid: spot!.running.find((x) => x.job === r.name)!.bid, hour: hour(r.startedAt + protection) })),
    keepsRunning: running.filter((r) => !gone.has(r.name) && event.at - r.startedAt >= protection).map((r) => ({ job: r.name, bid: spot!.running.find((x) => x.job === r.name)!.bid })),
    lostGpuHours: Math.round(releases.reduce((s, r) => s + r.lostGpuHours, 0) * 100) / 100,
    assumptions: [
      `the workload is simulated from the start up to hour ${hour(event.at)} on this policy; the spot jobs running then are the ones asked about`,
      'a protected job is checked again when its protection period ends, against the price and inventory of that moment',
      "lost work counts from each job's last checkpoint (SEMANTICS 7); a released job with autoRestart re-enters the bidding queue",
    ],
  };
}
