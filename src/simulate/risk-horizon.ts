/**
 * `quotient risk --horizon`: how often each running job of the snapshot is preempted
 * over the next hours (docs/risk.md "Over a horizon"). The simulator (simulator.ts, the
 * run `quotient simulate` makes, never a copy of its logic) starts from the Cluster
 * snapshot as a start estimate does (snapshot-start.ts) and runs `runs` times over the
 * horizon, each with its own arrivals: drawn from the same source as the instant's
 * (risk-arrivals.ts), at times of a Poisson process of the source's rate, each running
 * for a duration of the source's. A job's horizon exposure is the share of runs in which
 * some start preempted it at least once. Every decision is the engine call a what-if
 * makes, on the cluster as it is then.
 */
import { QuotientError } from '../errors.js';
import type { Policy } from '../model/policy.js';
import { r4 } from './report.js';
import { Random } from './random.js';
import { sampleArrivals, type ArrivalSource } from './risk-arrivals.js';
import { simulate } from './simulator.js';
import { queuedAtStart, runningAtStart } from './snapshot-start.js';
import type { SimJob } from './workload.js';

const HOUR = 3_600_000;

/** Mean running time of an arrival drawn from the policy (a trace gives its own durations): docs/risk.md. */
export const POLICY_MEAN_DURATION_HOURS = 4;

/**
 * Most arrivals, expected over all runs together (runs x rate x hours), one `risk --horizon`
 * simulates: about 1-4 ms each on this project's machines (2,000 per second early in a run,
 * slower as a saturated cluster's queue grows), so a few minutes at most. 1,000 runs of the
 * default day at the default rate (48,000) fit. More is refused before anything runs:
 * `--horizon 3650d --rate 1000000` would draw 87.6 billion arrival times and abort Node.
 */
export const MAX_HORIZON_ARRIVALS = 50_000;

/** Where a horizon run is: `run` runs finished of `runs`, and `arrived` of this run's `arrivals` submitted. */
export interface HorizonProgress {
  run: number;
  runs: number;
  arrived: number;
  arrivals: number;
}

/** What a horizon run needs. */
export interface HorizonOptions {
  /** ms of simulated time from the snapshot. */
  horizon: number;
  runs: number;
  seed: number;
  source: ArrivalSource;
  /** Arrivals per hour when the source is the policy (a trace's rate is its own). */
  ratePerHour: number;
  backend?: 'wasm' | 'reference';
  /** Called as arrivals are submitted (the CLI's progress on stderr). */
  onProgress?: (p: HorizonProgress) => void;
}

/** The arrivals the runs are expected to draw in all: runs x rate x hours (the rate is the trace's own with a trace). */
export function horizonArrivals(options: Pick<HorizonOptions, 'horizon' | 'runs' | 'source' | 'ratePerHour'>): number {
  return options.runs * rateOf(options).rate * (options.horizon / HOUR);
}

/**
 * Refuses a horizon whose runs would draw more than MAX_HORIZON_ARRIVALS arrivals
 * (`risk/too-much-work`, exit 2), before anything runs; the hint gives the longest horizon
 * that fits at this rate and count of runs.
 */
export function checkHorizonWork(options: Pick<HorizonOptions, 'horizon' | 'runs' | 'source' | 'ratePerHour'>): void {
  const expected = horizonArrivals(options);
  if (expected <= MAX_HORIZON_ARRIVALS) return;
  const { rate } = rateOf(options);
  const fits = Math.floor(MAX_HORIZON_ARRIVALS / (options.runs * rate));
  const count = (n: number): string => Math.round(n).toLocaleString('en-US');
  throw new QuotientError(
    'risk/too-much-work',
    `--horizon ${count(options.horizon / HOUR)}h x ${count(options.runs)} run(s) x ${r4(rate)} arrivals per hour is ${expected < 1e15 ? count(expected) : expected.toExponential(1)} arrivals to simulate, more than the ${count(MAX_HORIZON_ARRIVALS)} one risk report simulates`,
    fits >= 1
      ? `shorten --horizon to at most ${count(fits)}h at this rate and --runs, or lower --runs or --rate (docs/risk.md "Over a horizon")`
      : `lower --rate or --runs: at this rate even one hour is too much (docs/risk.md "Over a horizon")`,
  );
}

/** One running job over the horizon. */
export interface HorizonJob {
  runs: number;
  share: number;
  /** The rule (and its policy line) of its first preemption in most of those runs, as the run's report states it; null when never preempted. */
  rule: { rule: string; source: string } | null;
}

/** How often each running job was preempted over the horizon. */
export interface HorizonRisk {
  hours: number;
  runs: number;
  /** Arrivals per hour the runs drew. */
  ratePerHour: number;
  /** Mean hours an arrival runs. */
  meanDurationHours: number;
  /** Per running job: runs in which it was preempted at least once, their share of the runs, and the rule of most of them. */
  jobs: Map<string, HorizonJob>;
}

/** Runs the simulator `runs` times over the horizon from the snapshot. */
export async function horizonRisk(policy: Policy, options: HorizonOptions): Promise<HorizonRisk> {
  const cluster = policy.cluster;
  if (!cluster) throw new Error('horizonRisk: the policy has no Cluster snapshot');
  checkHorizonWork(options);
  const { rate, meanDuration, durations } = rateOf(options);
  const taken = new Set([...cluster.jobs.map((j) => j.name), ...(cluster.queue ?? []).map((j) => j.name)]);
  const preempted = new Map<string, number>(cluster.jobs.map((j) => [j.name, 0]));
  // Per job, the rule of its first preemption in each run, counted over the runs.
  const ruleRuns = new Map<string, Map<string, { rule: string; source: string; runs: number }>>();
  for (let run = 0; run < options.runs; run++) {
    // Each run its own stream of seeds, fixed by --seed: the same seed runs the same runs.
    const seed = (options.seed + Math.imul(run + 1, 0x9e3779b1)) >>> 0;
    const rng = new Random(seed);
    const times: number[] = [];
    for (let t = rng.exponential(HOUR / rate); t < options.horizon; t += rng.exponential(HOUR / rate)) times.push(t);
    const specs = sampleArrivals(policy, options.source, times.length, seed, taken);
    const jobs: SimJob[] = specs.map((spec, i) => ({
      spec,
      submit: Math.round(times[i]!),
      duration: Math.max(60_000, Math.round(durations ? durations[rng.int(0, durations.length - 1)]! : rng.exponential(meanDuration))),
    }));
    const hit = new Set<string>();
    const queued = queuedAtStart(cluster);
    const report = await simulate(
      {
        policy,
        label: 'risk',
        nodes: cluster.nodes,
        workload: { source: 'risk', synthetic: true, jobs, rejected: [], notes: [] },
        market: [],
        running: runningAtStart(cluster),
        ...(queued.length ? { queued } : {}),
      },
      {
        seed,
        backend: options.backend ?? 'wasm',
        until: options.horizon,
        sampleEvery: options.horizon,
        ...(options.onProgress ? { onProgress: (arrived: number, arrivals: number) => options.onProgress!({ run, runs: options.runs, arrived, arrivals }) } : {}),
        onStart: (s) => {
          for (const v of s.victims) if (preempted.has(v)) hit.add(v);
        },
      },
    );
    for (const v of hit) preempted.set(v, preempted.get(v)! + 1);
    // The report keeps its first preemptions verbatim (metrics.ts FIRST_EVENTS), each with its rule and line.
    const named = new Set<string>();
    for (const e of report.preemptions.first) {
      if (!hit.has(e.job) || named.has(e.job)) continue;
      named.add(e.job);
      const byRule = ruleRuns.get(e.job) ?? new Map<string, { rule: string; source: string; runs: number }>();
      ruleRuns.set(e.job, byRule);
      const key = `${e.rule}\u0000${e.source}`;
      const r = byRule.get(key) ?? { rule: e.rule, source: e.source, runs: 0 };
      r.runs++;
      byRule.set(key, r);
    }
  }
  const ruleOf = (name: string): HorizonJob['rule'] => {
    const top = [...(ruleRuns.get(name)?.values() ?? [])].sort((a, b) => b.runs - a.runs || (a.rule < b.rule ? -1 : a.rule > b.rule ? 1 : 0))[0];
    return top ? { rule: top.rule, source: top.source } : null;
  };
  const jobs = new Map([...preempted].map(([name, n]): [string, HorizonJob] => [name, { runs: n, share: options.runs ? r4(n / options.runs) : 0, rule: ruleOf(name) }]));
  return { hours: r4(options.horizon / HOUR), runs: options.runs, ratePerHour: r4(rate), meanDurationHours: r4(meanDuration / HOUR), jobs };
}

/** The arrival rate (per hour) and the durations (ms) of the source. */
function rateOf(options: Pick<HorizonOptions, 'source' | 'ratePerHour'>): { rate: number; meanDuration: number; durations?: number[] } {
  if (options.source.kind === 'policy') return { rate: options.ratePerHour, meanDuration: POLICY_MEAN_DURATION_HOURS * HOUR };
  const jobs = options.source.jobs.filter((j) => !j.spot);
  const durations = jobs.map((j) => j.duration).filter((d) => Number.isFinite(d) && d > 0);
  const submits = jobs.map((j) => j.submit);
  const span = submits.length > 1 ? Math.max(...submits) - Math.min(...submits) : 0;
  // A trace whose jobs all arrive at one instant has no rate of its own: the policy's default stands in.
  const rate = span > 0 ? ((jobs.length - 1) / span) * HOUR : options.ratePerHour;
  const meanDuration = durations.length ? durations.reduce((s, d) => s + d, 0) / durations.length : POLICY_MEAN_DURATION_HOURS * HOUR;
  return durations.length ? { rate, meanDuration, durations } : { rate, meanDuration };
}
