/**
 * Why a running job has its standing, and what could preempt it (`GET
 * /v1/jobs/NAME/explain`, the web app's "my jobs"). "What could preempt it" is read from
 * the eligibility tables every answer uses (rules/eligibility-table.ts): for each
 * submission class that could name this job a victim — a quota of its pool, a priority,
 * the standing the submission would run in — the table says under which rule, so the
 * listing and the answers cannot disagree.
 */
import type { Policy, RunningJob, Standing } from '../../model/policy.js';
import type { QuotaTree } from '../../model/quota-tree.js';
import { addGpu } from '../../model/resources.js';
import type { CompiledRule } from '../../rules/compile-rules.js';
import type { EligibilityTables, PreemptorTarget } from '../../rules/eligibility-table.js';
import { PRIORITIES } from '../../rules/facts.js';
import { explainVictim } from '../../rules/explain-victim.js';
import type { UsageTable } from '../usage.js';
import type { Viewer } from '../visibility.js';
import { jobEntry, seesJob, type JobEntry } from './job-entry.js';

/** Submissions of one class that could preempt the job under a rule. */
export interface PreemptorClass {
  /** Their quotas; empty when `anyQuotaOf` says every quota of the pool. */
  quotas: string[];
  /** Set when every quota of this pool is one (idle capacity returns to whoever claims it). */
  anyQuotaOf?: string;
  /** Their priorities, as a policy writes ranges: `7-9`, `1-3, 5`. */
  priorities: string;
  /** The standing they would run in. */
  standing: PreemptorTarget;
}

/** One rule under which the job could be a victim. */
export interface PreemptingRule {
  rule: string;
  kind: CompiledRule['kind'];
  source: string;
  summary: string;
  /** Why the job is eligible, for the lowest priority that reaches it (rules/explain-victim.ts). */
  reason: string;
  preemptors: PreemptorClass[];
}

/** The body of a JobExplanation. */
export interface JobExplanation {
  job: JobEntry;
  standing: { standing: Standing; code: `standing/${Standing}`; reason: string };
  /** The job's quota and its ancestors, with their guarantee, their GPU ceiling (null: none) and usage in GPUs. */
  path: Array<{ quota: string; min: number; max: number | null; used: number }>;
  preemptibleBy: PreemptingRule[];
}

/** What the explanation reads. */
export interface ExplainInput {
  policy: Policy;
  tree: QuotaTree;
  tables: EligibilityTables;
  jobs: readonly RunningJob[];
  usage: UsageTable;
}

const TARGETS: readonly PreemptorTarget[] = ['in-quota', 'borrowing'];

/** The explanation of the job named `name`, or undefined when there is none `viewer` may see (a hidden job is not confirmed). */
export async function explainJob(input: ExplainInput, name: string, viewer: Viewer | undefined): Promise<JobExplanation | undefined> {
  const job = input.jobs.find((j) => j.name === name);
  if (!job || !seesJob(viewer, job)) return undefined;
  const { tree, usage } = input;
  const v = tree.indexOf(job.quota);
  const path = tree.pathToRoot(v).map((a) => ({ quota: tree.at(a).name, min: tree.at(a).min.gpu, max: tree.at(a).max?.gpu ?? null, used: usage[a]![0]! })); // a: a quota index, GPU is resource 0
  return { job: jobEntry(job, viewer), standing: standingOf(job, tree, v), path, preemptibleBy: await preemptingRules(input, job, v) };
}

/** Why the job has its standing, in one sentence with a code. */
function standingOf(job: RunningJob, tree: QuotaTree, v: number): JobExplanation['standing'] {
  const names = tree.pathNames(v);
  switch (job.standing) {
    case 'in-quota':
      return {
        standing: job.standing,
        code: 'standing/in-quota',
        reason: `${job.name} runs in quota: its ${addGpu(0, job.pods * job.resources.gpu)} GPUs count against the guarantee of ${names.join(' and of ')}; only a rule that reaches in-quota jobs (child-level or self-level preemption) can preempt it`,
      };
    case 'borrowing':
      return {
        standing: job.standing,
        code: 'standing/borrowing',
        reason: `${job.name} is borrowing: it runs over ${job.quota}'s own guarantee on a share its same-level quotas are not using, counted at ${names.slice(1).join(' and ') || 'no quota above'}; the quotas that lent it may take it back (their reclaim setting)`,
      };
    case 'idle':
      return {
        standing: job.standing,
        code: 'standing/idle',
        reason: `${job.name} runs on idle capacity (idleResources: ${job.idleResources}): it counts against no quota, and any job that runs on quota in pool ${tree.at(v).pool} may reclaim its GPUs`,
      };
  }
}

/** Every rule that makes the job a victim for some submission class, with those classes. */
async function preemptingRules(input: ExplainInput, job: RunningJob, v: number): Promise<PreemptingRule[]> {
  const { tree, tables, policy } = input;
  const pool = tree.at(v).pool;
  const inPool = tree.quotas.map((q, i) => i).filter((i) => tree.at(i).pool === pool);
  // Only a quota related to the job's can name it a victim, but idle capacity returns to any quota of the pool.
  const candidates = job.standing === 'idle' ? inPool : inPool.filter((i) => tree.relation(i, v) !== 'other');
  const found = new Map<string, { rule: CompiledRule; classes: Map<PreemptorTarget, Map<number, Set<number>>> }>();
  for (const q of candidates) {
    for (const p of PRIORITIES) {
      for (const target of TARGETS) {
        const rule = (await tables.tableFor(q, p, target)).lookup(v, job.priority, job.module, job.standing);
        if (!rule) continue;
        let f = found.get(rule.name);
        if (!f) found.set(rule.name, (f = { rule, classes: new Map<PreemptorTarget, Map<number, Set<number>>>() }));
        let byQuota = f.classes.get(target);
        if (!byQuota) f.classes.set(target, (byQuota = new Map<number, Set<number>>()));
        let ps = byQuota.get(q);
        if (!ps) byQuota.set(q, (ps = new Set<number>()));
        ps.add(p);
      }
    }
  }
  const out: PreemptingRule[] = [];
  for (const { rule, classes } of [...found.values()].sort((a, b) => a.rule.order - b.rule.order || (a.rule.name < b.rule.name ? -1 : 1))) {
    const preemptors: PreemptorClass[] = [];
    let lowest = 9;
    for (const target of TARGETS) {
      const byQuota = classes.get(target);
      if (!byQuota) continue;
      // Quotas with the same priorities make one class.
      const groups = new Map<string, number[]>();
      for (const [q, ps] of byQuota) {
        const key = rangesText([...ps]);
        lowest = Math.min(lowest, ...ps);
        groups.set(key, [...(groups.get(key) ?? []), q]);
      }
      for (const [priorities, qs] of groups) {
        const all = qs.length === inPool.length;
        preemptors.push({ quotas: all ? [] : qs.sort((a, b) => a - b).map((q) => tree.at(q).name), ...(all ? { anyQuotaOf: pool } : {}), priorities, standing: target });
      }
    }
    out.push({ rule: rule.name, kind: rule.kind, source: rule.source, summary: rule.summary, reason: explainVictim(policy, rule, job, lowest), preemptors });
  }
  return out;
}

/** `1-3, 5, 7-9` for a set of priorities. */
function rangesText(ps: number[]): string {
  const sorted = [...new Set(ps)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}
