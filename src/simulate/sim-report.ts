/**
 * The simulator's report room: what a finished run measured (metrics.ts), put together as
 * the Report (report.ts holds its types and docs/simulate.md "Report fields" its contract).
 */
import type { Policy } from '../model/policy.js';
import type { QuotaTree } from '../model/quota-tree.js';
import { addGpu } from '../model/resources.js';
import type { Metrics } from './metrics.js';
import { r2, r4, waitStats, type GroupFigures, type QuotaFigures, type Report } from './report.js';
import { HOUR, type JobState } from './sim-job.js';
import type { SimInput, SimOptions } from './sim-input.js';
import { spotFigures } from './metrics.js';
import type { SpotExchange } from './spot-exchange.js';
import type { QueueDiagnostics } from './queue-diagnostics.js';

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
  diagnostics: QueueDiagnostics;
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
  // Censored waits: jobs waiting at the end that never started, per team, quota and all.
  const censoredT = new Map<string, number[]>();
  const censoredQ = new Map<number, number[]>();
  const censoredAll: number[] = [];
  const censor = (js: JobState) => {
    const w = end - js.sim.submit;
    censoredAll.push(w);
    if (!censoredT.has(js.team)) censoredT.set(js.team, []);
    if (!censoredQ.has(js.quota)) censoredQ.set(js.quota, []);
    censoredT.get(js.team)!.push(w);
    censoredQ.get(js.quota)!.push(w);
  };
  // Still waiting or running, or not yet arrived (a run stopped by --until).
  for (const js of run.jobs)
    if (js && (js.status === 'waiting' || js.status === 'running')) {
      count(js.team, js.quota);
      if (js.status === 'waiting' && js.firstStart < 0) censor(js);
    }
  for (let k = run.arrived; k < run.arrivals.length; k++) {
    const spec = input.workload.jobs[run.arrivals[k]!]!.spec;
    count(spec.workspace, run.tree.indexOf(spec.quota));
  }
  const hours = end / HOUR;
  const all = m.all.figures(
    [...unfinished.values()].reduce((s, x) => s + x, 0),
    censoredAll,
  );
  const teams = [...m.teams.values()].map((g) => g.figures(unfinished.get(g.name) ?? 0, censoredT.get(g.name)));
  const own = m.quotas.map((g, i) => g.figures(unfinishedQ.get(i) ?? 0, censoredQ.get(i)));
  const quotas = own.map((f, i) => {
    const minGpu = run.policy.quotas[i]!.min.gpu;
    const guarantee = (inQuota: number) => (minGpu > 0 && hours > 0 ? r4(inQuota / (minGpu * hours)) : 0);
    return { ...f, minGpu, guaranteeUsed: guarantee(f.gpuHours.inQuota), subtree: subtreeOf(run.tree, own, i, guarantee) };
  });
  const diagnosed = run.diagnostics.finish(end);
  const blockedHeads = diagnosed.queues
    .flatMap((q) => q.topHeads)
    .sort((a, b) => b.heldBackGpuHours - a.heldBackGpuHours || b.blockedHours - a.blockedHours || (a.job < b.job ? -1 : 1))
    .slice(0, 10);
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
      ...(m.sharing ? { sharedRoomGpuHours: r2(m.roomMs / HOUR) } : {}),
      utilisation: hours > 0 && run.capacity > 0 ? r4(m.usedMs / HOUR / (run.capacity * hours)) : 0,
      preemptions: all.preempted,
      restarts: all.restarts,
      lostGpuHours: all.lostGpuHours,
      wait: waitStats(m.all.waits, censoredAll),
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
    queues: diagnosed.queues,
    blockedHeads,
    findings: diagnosed.findings,
    series: { ...m.series, byQuotaSubtree: subtreeSeries(run.tree, m.series.byQuota) },
    notes,
  };
}

/** Quota i with its descendants: their own figures summed. */
function subtreeOf(tree: QuotaTree, own: GroupFigures[], i: number, guarantee: (inQuota: number) => number): QuotaFigures['subtree'] {
  const members = own.map((_, v) => v).filter((v) => tree.inSubtree(v, i));
  const sum = (f: (g: GroupFigures) => number) => members.reduce((s, v) => s + f(own[v]!), 0);
  const gpuHours = {
    inQuota: r2(sum((g) => g.gpuHours.inQuota)),
    borrowing: r2(sum((g) => g.gpuHours.borrowing)),
    idle: r2(sum((g) => g.gpuHours.idle)),
    total: r2(sum((g) => g.gpuHours.total)),
  };
  return { quotas: members.length, jobs: sum((g) => g.jobs), unfinished: sum((g) => g.unfinished), gpuHours, guaranteeUsed: guarantee(gpuHours.inQuota) };
}

/** Per parent quota, its subtree's `byQuota` series summed sample by sample (in whole milli-GPUs). */
function subtreeSeries(tree: QuotaTree, byQuota: Record<string, number[]>): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  tree.quotas.forEach((q, i) => {
    const members = tree.quotas.map((_, v) => v).filter((v) => tree.inSubtree(v, i));
    if (members.length < 2) return;
    out[q.name] = byQuota[q.name]!.map((_, k) => members.reduce((s, v) => addGpu(s, byQuota[tree.quotas[v]!.name]![k]!), 0));
  });
  return out;
}
