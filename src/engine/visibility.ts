/**
 * What a user may see (SEMANTICS 10, docs/teams.md "What each team may see"). A user
 * sees in full the jobs of every workspace they are a member or guest of, and, when
 * they are an `admin` of a workspace, every job on that workspace's quotas and the
 * quotas below them (an admin of a parent quota's workspace sees its subtree). Every
 * other job is anonymous usage: its workspace, quota, GPUs and a priority band — never
 * its name, module, checkpoints or a sentence that names it.
 */
import type { QuotaTree } from '../model/quota-tree.js';
import type { Policy, RunningJob } from '../model/policy.js';
import { totalLostGpuHours, type Answer, type VictimAnswer } from './answer.js';

/** A user's view of the jobs. */
export interface Viewer {
  user: string;
  /** True when the user may see this job in full. */
  canSee(job: Pick<RunningJob, 'workspace' | 'quota'>): boolean;
}

/** A victim the asker may not see: anonymous usage only. */
export interface HiddenVictim {
  job: string;
  hidden: true;
  workspace: string;
  quota: string;
  priorityBand: string;
  standing: VictimAnswer['standing'];
  gpus: number;
  rule: string;
  source: string;
  code: VictimAnswer['code'];
  reason: string;
}

/** An answer as one user may see it. */
export interface ViewedAnswer extends Omit<Answer, 'victims'> {
  /** The user the answer was redacted for. */
  as: string;
  victims: Array<VictimAnswer | HiddenVictim>;
}

/** The view of `user`, or undefined when no workspace lists them (an unknown user). */
export function viewerFor(policy: Policy, tree: QuotaTree, user: string): Viewer | undefined {
  const own = policy.workspaces.filter((w) => w.members.some((m) => m.user === user));
  if (own.length === 0) return undefined;
  const names = new Set(own.map((w) => w.name));
  const adminRoots = own
    .filter((w) => w.members.some((m) => m.user === user && m.role === 'admin'))
    .flatMap((w) => w.quotas)
    .map((q) => tree.indexOf(q))
    .filter((i) => i >= 0);
  return {
    user,
    canSee: (job) => names.has(job.workspace) || adminRoots.some((r) => tree.inSubtree(tree.indexOf(job.quota), r)),
  };
}

/** `low (1-3)`, `medium (4-6)`, `high (7-9)`. */
export function priorityBand(priority: number): string {
  return priority <= 3 ? 'low (1-3)' : priority <= 6 ? 'medium (4-6)' : 'high (7-9)';
}

/** How a hidden job is named: `(hidden: workspace-c)`. */
export function hiddenLabel(job: Pick<RunningJob, 'workspace'>): string {
  return `(hidden: ${job.workspace})`;
}

/** The name of a job as `viewer` may read it. */
export function jobLabel(job: RunningJob, viewer: Viewer | undefined): string {
  return !viewer || viewer.canSee(job) ? job.name : hiddenLabel(job);
}

/**
 * Redacts an answer for `viewer`: hidden victims become anonymous usage, and as a last
 * guard every remaining string is scrubbed of hidden jobs' names (longest first), so a
 * sentence written without the viewer in mind still cannot leak one.
 */
export function redactAnswer(answer: Answer, jobs: RunningJob[], viewer: Viewer): ViewedAnswer {
  const byName = new Map(jobs.map((j) => [j.name, j]));
  const scrub = scrubber(jobs.filter((j) => !viewer.canSee(j)));
  const victims = answer.victims.map((v): VictimAnswer | HiddenVictim => {
    const job = byName.get(v.job);
    if (!job || viewer.canSee(job)) return { ...v, reason: scrub(v.reason) };
    return {
      job: hiddenLabel(job),
      hidden: true,
      workspace: job.workspace,
      quota: v.quota,
      priorityBand: priorityBand(v.priority),
      standing: v.standing,
      gpus: v.gpus,
      rule: v.rule,
      source: v.source,
      code: v.code,
      reason: `a job of ${job.workspace} on ${v.quota} at ${priorityBand(v.priority)} priority is eligible under ${v.rule} (${v.source})`,
    };
  });
  // The total counts only victims the viewer may see: it never reveals a hidden job's lost work.
  const scrubbed = (r: Answer['reasons'][number]) => ({ ...r, message: scrub(r.message) });
  // A queue's holder's reasons were written for the viewer (queue-answer.ts); scrubbed all the same, as every sentence here.
  const queue = answer.queue?.heldBy ? { queue: { ...answer.queue, heldBy: { ...answer.queue.heldBy, reasons: answer.queue.heldBy.reasons.map(scrubbed) } } } : {};
  return { ...answer, as: viewer.user, victims, lostGpuHours: totalLostGpuHours(victims), reasons: answer.reasons.map(scrubbed), notes: answer.notes.map(scrubbed), ...queue };
}

/**
 * A function that replaces every hidden job's name in a text by its hidden label. Names
 * made of word characters, dots and hyphens (the usual case) are found by one token scan
 * and a map lookup, whatever the number of hidden jobs; other names fall back to one
 * pattern each.
 */
export function scrubber(hidden: ReadonlyArray<Pick<RunningJob, 'name' | 'workspace'>>): (text: string) => string {
  const simple = new Map<string, string>();
  const patterns: Array<{ re: RegExp; label: string }> = [];
  for (const j of hidden) {
    if (/^[\w.-]+$/.test(j.name)) simple.set(j.name, hiddenLabel(j));
    else patterns.push({ re: new RegExp(`(?<![\\w.-])${escape(j.name)}(?![\\w-])`, 'g'), label: hiddenLabel(j) });
  }
  return (text) => {
    const t = simple.size
      ? text.replace(/[\w.-]+/g, (tok) => {
          const exact = simple.get(tok);
          if (exact) return exact;
          // A name at the end of a sentence: "… preempts job-x." keeps its full stop.
          const bare = tok.replace(/\.+$/, '');
          const label = bare !== tok ? simple.get(bare) : undefined;
          return label ? label + tok.slice(bare.length) : tok;
        })
      : text;
    return patterns.reduce((acc, p) => acc.replace(p.re, p.label), t);
  };
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
