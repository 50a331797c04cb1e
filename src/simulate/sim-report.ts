/**
 * The simulator's report room: what a finished run measured (metrics.ts), put together as
 * the Report (report.ts holds its types and docs/simulate.md "Report fields" its contract).
 */
import type { Policy } from '../model/policy.js';
import type { QuotaTree } from '../model/quota-tree.js';
import type { Metrics } from './metrics.js';
import { r2, r4, waitStats, type Report } from './report.js';
import { HOUR, type JobState } from './sim-job.js';
import type { SimInput, SimOptions } from './sim-input.js';
import { spotFigures } from './metrics.js';
import type { SpotExchange } from './spot-exchange.js';

/** What the report reads of a finished run. */
export interface RunState {
  input: SimInput;
  options: SimOptions;
  /** The run's copy of the policy (quota scaling changes its `min`). */
  policy: Policy;
  tree: QuotaTree;
  /** Per job id, the jobs not ended (waiting or running at the end). */
  jobs: ReadonlyArray<JobState | undefined>;
  /** Workload job ids in arrival order, and how many of them arrived. */
  arrivals: Int32Array;
  arrived: number;
  metrics: Metrics;
  spot: SpotExchange;
  capacity: number;
  /** What the run itself noted (refused scalings, snapshot jobs without an end). */
  notes: string[];
}

/** The report of a run that ended at `end` (ms). */
export function buildReport(run: RunState, end: number): Report {
  const { input, options, metrics: m, spot } = run;
  const unfinished = new Map<string, number>();
  const unfinishedQ = new Map<number, number>();
  const count = (team: string, quota: number) => {
    unfinished.set(team, (unfinished.get(team) ?? 0) + 1);
    unfinishedQ.set(quota, (unfinishedQ.get(quota) ?? 0) + 1);
  };
  // Still waiting or running, or not yet arrived (a run stopped by --until).
  for (const js of run.jobs) if (js && (js.status === 'waiting' || js.status === 'running')) count(js.team, js.quota);
  for (let k = run.arrived; k < run.arrivals.length; k++) {
    const spec = input.workload.jobs[run.arrivals[k]!]!.spec;
    count(spec.workspace, run.tree.indexOf(spec.quota));
  }
  const hours = end / HOUR;
  const all = m.all.figures([...unfinished.values()].reduce((s, x) => s + x, 0));
  const teams = [...m.teams.values()].map((g) => g.figures(unfinished.get(g.name) ?? 0));
  const quotas = m.quotas.map((g, i) => {
    const minGpu = run.policy.quotas[i]!.min.gpu;
    const f = g.figures(unfinishedQ.get(i) ?? 0);
    return { ...f, minGpu, guaranteeUsed: minGpu > 0 && hours > 0 ? r4(f.gpuHours.inQuota / (minGpu * hours)) : 0 };
  });
  const byType = spot.types.map((t, i) => ({ name: t.series.type.name, payAsYouGoPrice: t.series.type.payAsYouGo, ...spotFigures(spot.typeAcc[i]!.spot) }));
  const synthetic = spot.types.some((t) => t.series.syntheticPrices || t.series.syntheticInventory);
  const notes = [...(input.notes ?? []), ...run.notes];
  if (input.workload.synthetic) notes.push(`the workload is synthetic: ${input.workload.source}`);
  if (synthetic)
    notes.push(
      `the spot market's ${spot.types
        .filter((t) => t.series.syntheticPrices || t.series.syntheticInventory)
        .map((t) => t.series.type.name)
        .join(', ')} series are synthetic (seeded model, docs/simulate.md)`,
    );
  return {
    version: 1,
    policy: input.label,
    workload: {
      source: input.workload.source,
      synthetic: input.workload.synthetic,
      jobs: input.workload.jobs.length,
      rejectedRows: new Set(input.workload.rejected.map((f) => `${f.file}:${f.line}`)).size,
      notes: input.workload.notes,
    },
    seed: options.seed,
    hours: r4(hours),
    until: options.until === undefined ? null : r4(options.until / HOUR),
    cycleSeconds: (options.cycle ?? 0) / 1000,
    cluster: {
      nodes: input.nodes.length,
      gpus: run.capacity,
      runningAtStart: input.running?.length ?? 0,
      ...(input.queued?.length ? { queuedAtStart: input.queued.length } : {}),
    },
    totals: {
      jobs: run.jobs.length,
      completed: all.completed,
      endedPreempted: all.endedPreempted,
      rejected: all.rejected,
      unfinished: all.unfinished,
      capacityGpuHours: r2(run.capacity * hours),
      usedGpuHours: r2(m.usedMs / HOUR),
      idleGpuHours: r2(m.idleMs / HOUR),
      utilisation: hours > 0 && run.capacity > 0 ? r4(m.usedMs / HOUR / (run.capacity * hours)) : 0,
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
