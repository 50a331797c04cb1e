/**
 * "Which of my running jobs goes next?" (issue 23 item 4, docs/risk.md): each running
 * job's preemption exposure — the share of plausible arrivals (risk-arrivals.ts) whose
 * answer would preempt it — with the rule that exposes it most and what would protect it.
 *
 * Every arrival is asked through the one answer pipeline (engine/pipeline.ts
 * `answerJob`, as `quotient whatif` asks), as the caller may see it (SEMANTICS 10): only
 * the jobs the caller may see are ranked, and a victim they may not see stays anonymous.
 * What would protect a job is computed, never guessed: the same arrivals are asked
 * again against the snapshot with only that job changed (its priority raised one step
 * at a time; its standing made `in-quota`, as a larger `min` of its quota would make
 * it), and the first change under which none of them preempts it is the answer.
 * Exposure need not fall as priority rises (a `lowPriority: 4` clause reaches 4 and not
 * 3), so every priority above the job's is asked, lowest first.
 */
import { createKernel } from '../kernel/create-kernel.js';
import type { Kernel } from '../kernel/types.js';
import type { JobSpec, Policy, RunningJob } from '../model/policy.js';
import { QuotaTree } from '../model/quota-tree.js';
import { EligibilityTables } from '../rules/eligibility-table.js';
import { answerJob } from '../engine/pipeline.js';
import type { Session } from '../engine/session.js';
import { Snapshot } from '../engine/snapshot.js';
import type { Viewer } from '../engine/visibility.js';
import { r4 } from './report.js';
import { sampleArrivals, type ArrivalSource } from './risk-arrivals.js';

/** What `assessRisk` needs besides the session. */
export interface RiskOptions {
  /** Arrivals asked about (each one answer). */
  samples: number;
  /** Seed of the arrivals: the same seed asks the same arrivals. */
  seed: number;
  source: ArrivalSource;
  /** Ask as this user (SEMANTICS 10): only their visible jobs are ranked. */
  viewer?: Viewer | undefined;
  /** The kernel of the changed snapshots (the session's own answers the base ones). */
  backend?: 'wasm' | 'reference';
  /** Skip computing protections (the properties need exposures only). */
  protections?: boolean;
}

/** The rule behind a job's preemptions, as the answers' victims carry it. */
export interface ExposingRule {
  /** e.g. `Quota1/childPreemption`, `reclaim/idle`. */
  rule: string;
  /** file:line:col of the clause, or `built-in`. */
  source: string;
  /** The victim reason's code (`victim/child-level` ...). */
  code: string;
  /** Arrivals that preempt the job under this rule. */
  arrivals: number;
}

/** What would keep a job from being preempted by any of the arrivals asked, each computed by asking again. */
export interface Protection {
  /** The lowest priority above the job's at which no arrival preempts it; null when none up to 9 does. */
  priority: number | null;
  /**
   * Running `in-quota` (what a `min` of its quota covering it gives a borrowing or idle
   * job): `minGpu` the quota's `min` that covers it (its in-quota usage plus the job's
   * GPUs), `protects` whether no arrival preempts it then. Null for a job already in quota.
   */
  min: { quota: string; minGpu: number; protects: boolean } | null;
  /**
   * A checkpoint protects the work, not the job: the GPU-hours a preemption now costs it,
   * and what a checkpoint every `every` would bound that to (GPUs × interval).
   */
  checkpoint: { lostGpuHoursNow: number; every: string; lostGpuHoursAtMost: number } | null;
}

/** One running job's risk. */
export interface JobRisk {
  job: string;
  workspace: string;
  quota: string;
  module: string;
  priority: number;
  standing: string;
  gpus: number;
  /** Share of the arrivals that would preempt it, 0..1 (4 decimals). */
  exposure: number;
  /** How many of the arrivals would preempt it. */
  preemptingArrivals: number;
  /** The rule under which most of those arrivals preempt it (then by name); null when none does. */
  rule: ExposingRule | null;
  /** Every rule that exposes it, most arrivals first. */
  rules: ExposingRule[];
  /** Computed only for an exposed job (null otherwise, or when protections were skipped). */
  protection: Protection | null;
}

/** The assessment: every visible running job, ranked (most exposed first). */
export interface RiskAssessment {
  samples: number;
  seed: number;
  /** Arrivals actually asked (fewer than `samples` only when the source has none to give). */
  asked: number;
  /** Arrivals whose answer preempts some job. */
  preempting: number;
  /** Arrivals by decision. */
  decisions: Record<'admit' | 'preempt' | 'wait' | 'reject', number>;
  jobs: JobRisk[];
  /** Running jobs the asker may not see: not ranked. */
  hiddenJobs: number;
}

/** Lost work bounded by a checkpoint of this interval (hours): docs/risk.md. */
const CHECKPOINT_HOURS = 0.5;

/** Assesses every running job of the session's snapshot the viewer may see. Never changes the snapshot. */
export async function assessRisk(session: Session, options: RiskOptions): Promise<RiskAssessment> {
  const snapshot = session.snapshot;
  if (!snapshot) throw new Error('assessRisk: the policy has no Cluster snapshot');
  const viewer = options.viewer;
  const running = snapshot.jobs;
  const taken = new Set([...running.map((j) => j.name), ...(snapshot.cluster.queue ?? []).map((j) => j.name)]);
  const arrivals = sampleArrivals(session.policy, options.source, options.samples, options.seed, taken);
  const decisions = { admit: 0, preempt: 0, wait: 0, reject: 0 };
  const hits = new Map<string, Map<string, ExposingRule>>();
  // The GPU-hours each victim loses when preempted now: the snapshot's clock is fixed, so every answer says the same.
  const lost = new Map<string, number>();
  let preempting = 0;
  for (const job of arrivals) {
    const a = await answerJob({ snapshot, tables: session.tables, viewer }, 'risk', job);
    decisions[a.decision]++;
    if (a.victims.length) preempting++;
    for (const v of a.victims) {
      if ('hidden' in v) continue;
      const byRule = hits.get(v.job) ?? new Map<string, ExposingRule>();
      hits.set(v.job, byRule);
      const key = `${v.rule}\u0000${v.source}`;
      if (!lost.has(v.job)) lost.set(v.job, v.lostGpuHours);
      const r = byRule.get(key) ?? { rule: v.rule, source: v.source, code: v.code, arrivals: 0 };
      r.arrivals++;
      byRule.set(key, r);
    }
  }
  const visible = viewer ? running.filter((j) => viewer.canSee(j)) : running;
  const rows: JobRisk[] = [];
  let kernel: Kernel | undefined;
  for (const j of visible) {
    const rules = [...(hits.get(j.name)?.values() ?? [])].sort((a, b) => b.arrivals - a.arrivals || cmp(a.rule, b.rule) || cmp(a.source, b.source));
    const count = countPreempting(rules);
    let protection: Protection | null = null;
    if (count > 0 && options.protections !== false) {
      kernel ??= createKernel(options.backend ?? 'wasm');
      protection = await protect(session, kernel, j, arrivals, viewer, lost.get(j.name) ?? 0);
    }
    rows.push({
      job: j.name,
      workspace: j.workspace,
      quota: j.quota,
      module: j.module,
      priority: j.priority,
      standing: j.standing,
      gpus: j.pods * j.resources.gpu,
      exposure: arrivals.length ? r4(count / arrivals.length) : 0,
      preemptingArrivals: count,
      rule: rules[0] ?? null,
      rules,
      protection,
    });
  }
  rows.sort((a, b) => b.exposure - a.exposure || b.gpus - a.gpus || cmp(a.job, b.job));
  return { samples: options.samples, seed: options.seed, asked: arrivals.length, preempting, decisions, jobs: rows, hiddenJobs: running.length - visible.length };
}

/**
 * Arrivals that preempt the job: each arrival names a victim once, under one rule, so
 * the rules' counts add up.
 */
function countPreempting(rules: readonly ExposingRule[]): number {
  return rules.reduce((s, r) => s + r.arrivals, 0);
}

/** What would protect `job`: each candidate change asked again over the same arrivals. */
async function protect(session: Session, kernel: Kernel, job: RunningJob, arrivals: readonly JobSpec[], viewer: Viewer | undefined, lostNow: number): Promise<Protection> {
  let priority: number | null = null;
  for (let p = job.priority + 1; p <= 9 && priority === null; p++) {
    if (!(await preemptedByAny(session, kernel, { ...job, priority: p }, arrivals, viewer))) priority = p;
  }
  let min: Protection['min'] = null;
  if (job.standing !== 'in-quota') {
    const covered = coveringPolicy(session, job);
    min = { quota: job.quota, minGpu: covered.minGpu, protects: !(await preemptedByAny(session, kernel, { ...job, standing: 'in-quota' }, arrivals, viewer, covered.policy)) };
  }
  const gpus = job.pods * job.resources.gpu;
  const bound = r4(gpus * CHECKPOINT_HOURS);
  const checkpoint =
    lostNow > bound && (job.checkpoint === undefined || job.checkpoint.every > CHECKPOINT_HOURS * 3_600_000) ? { lostGpuHoursNow: lostNow, every: '30m', lostGpuHoursAtMost: bound } : null;
  return { priority, min, checkpoint };
}

/**
 * The policy with `job`'s quota's `min` (and each ancestor's, where needed) raised to
 * cover the job in quota: its subtree's in-quota GPUs plus the job's. `minGpu` is the
 * job's quota's new `min`.
 */
function coveringPolicy(session: Session, job: RunningJob): { policy: Policy; minGpu: number } {
  const tree = session.tree;
  const jobs = session.snapshot!.jobs;
  const inQuota = (q: number): number =>
    jobs.filter((x) => (x.standing === 'in-quota' || x.name === job.name) && tree.inSubtree(tree.indexOf(x.quota), q)).reduce((s, x) => s + x.pods * x.resources.gpu, 0);
  const raised = new Map<string, number>();
  for (let q = session.policy.quotas.find((x) => x.name === job.quota); q; q = q.parent === null ? undefined : session.policy.quotas.find((x) => x.name === q.parent)) {
    const need = inQuota(tree.indexOf(q.name));
    if (need > q.min.gpu) raised.set(q.name, need);
  }
  const policy: Policy = { ...session.policy, quotas: session.policy.quotas.map((q) => (raised.has(q.name) ? { ...q, min: { ...q.min, gpu: raised.get(q.name)! } } : q)) };
  const own = session.policy.quotas.find((x) => x.name === job.quota)!;
  return { policy, minGpu: raised.get(job.quota) ?? own.min.gpu };
}

/** True when some arrival's answer preempts `changed` on the snapshot with only that job changed (and, given, the policy). */
async function preemptedByAny(session: Session, kernel: Kernel, changed: RunningJob, arrivals: readonly JobSpec[], viewer: Viewer | undefined, policy: Policy = session.policy): Promise<boolean> {
  const snapshot = changedSnapshot(session, kernel, changed, policy);
  // A policy with other mins is another quota tree: its own tables (made lazily, per preemptor class).
  const tables = policy === session.policy ? session.tables : new EligibilityTables(session.rules, snapshot.tree);
  for (const a of arrivals) {
    const answer = await answerJob({ snapshot, tables, viewer }, 'risk', a);
    if (answer.victims.some((v) => !('hidden' in v) && v.job === changed.name)) return true;
  }
  return false;
}

/** The session's snapshot with one running job replaced (placement kept), loaded into `kernel`. */
export function changedSnapshot(session: Session, kernel: Kernel, changed: RunningJob, policy: Policy = session.policy): Snapshot {
  const base = session.snapshot!;
  const cluster = { ...base.cluster, jobs: base.jobs.map((j) => (j.name === changed.name ? changed : j)) };
  const tree = policy === session.policy ? session.tree : new QuotaTree(policy.quotas);
  const built = Snapshot.build({ ...policy, cluster }, cluster, kernel, tree);
  if (!built.snapshot) throw new Error(`risk: the snapshot with ${changed.name} changed did not load: ${built.findings.map((f) => f.message).join('; ')}`);
  return built.snapshot;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
