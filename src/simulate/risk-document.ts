/**
 * The RiskReport's body (schemas/risk-report.json, docs/risk.md "Fields"): the instant's
 * assessment (risk.ts) and, when asked, the horizon's (risk-horizon.ts), one ranked list.
 * The CLI prints it, the simulate HTML report's section renders it (risk-html.ts).
 */
import type { ArrivalSource } from './risk-arrivals.js';
import type { HorizonJob, HorizonRisk } from './risk-horizon.js';
import type { JobRisk, Protection, RiskAssessment } from './risk.js';

/** One ranked job of the report. */
export interface RiskRow extends Omit<JobRisk, 'protection'> {
  /** 1 = most exposed. */
  rank: number;
  /** Over the horizon: runs in which it was preempted at least once, their share, and the rule of most of them; null without --horizon. */
  horizon: HorizonJob | null;
  protection: Protection | null;
}

/** The report's body. */
export interface RiskBody {
  policy: string;
  /** The user the jobs are seen as (SEMANTICS 10); null: every job. */
  as: string | null;
  arrivals: {
    source: 'policy' | 'trace';
    trace: string | null;
    samples: number;
    seed: number;
    asked: number;
    preempting: number;
    decisions: RiskAssessment['decisions'];
  };
  horizon: { hours: number; runs: number; ratePerHour: number; meanDurationHours: number } | null;
  jobs: RiskRow[];
  /** Running jobs the asker may not see: not ranked. */
  hiddenJobs: number;
}

/** The body of a RiskReport. Ranked by exposure, then horizon share, then GPUs, then name. */
export function riskBody(policy: string, as: string | undefined, source: ArrivalSource, a: RiskAssessment, h: HorizonRisk | undefined): RiskBody {
  const rows = a.jobs.map((j) => ({ ...j, horizon: h ? (h.jobs.get(j.job) ?? { runs: 0, share: 0, rule: null }) : null }));
  rows.sort((x, y) => y.exposure - x.exposure || (y.horizon?.share ?? 0) - (x.horizon?.share ?? 0) || y.gpus - x.gpus || (x.job < y.job ? -1 : x.job > y.job ? 1 : 0));
  return {
    policy,
    as: as ?? null,
    arrivals: {
      source: source.kind,
      trace: source.kind === 'trace' ? source.path : null,
      samples: a.samples,
      seed: a.seed,
      asked: a.asked,
      preempting: a.preempting,
      decisions: a.decisions,
    },
    horizon: h ? { hours: h.hours, runs: h.runs, ratePerHour: h.ratePerHour, meanDurationHours: h.meanDurationHours } : null,
    jobs: rows.map((r, i) => ({
      rank: i + 1,
      job: r.job,
      workspace: r.workspace,
      quota: r.quota,
      module: r.module,
      priority: r.priority,
      standing: r.standing,
      gpus: r.gpus,
      exposure: r.exposure,
      preemptingArrivals: r.preemptingArrivals,
      horizon: r.horizon,
      rule: r.rule,
      rules: r.rules,
      protection: r.protection,
    })),
    hiddenJobs: a.hiddenJobs,
  };
}

/** What protects a job, in words: the computed changes, each as docs/risk.md says it. */
export function protectionWords(p: Protection | null): string[] {
  if (!p) return [];
  const out: string[] = [];
  out.push(p.priority === null ? 'no priority up to 9 protects it' : `priority ${p.priority}`);
  if (p.min) out.push(p.min.protects ? `${p.min.quota} min ${p.min.minGpu} GPUs (runs in quota)` : `not a min of ${p.min.quota}`);
  if (p.checkpoint) out.push(`checkpoint every ${p.checkpoint.every}: loses at most ${p.checkpoint.lostGpuHoursAtMost} GPU-h, not ${p.checkpoint.lostGpuHoursNow}`);
  return out;
}
