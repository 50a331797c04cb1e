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
  /**
   * What the view depends on, as a string: the workspaces the user is in and the quotas
   * they administer. Two users with the same key see the same jobs, so a view computed
   * for one (the findings a version shows, engine-handler.ts) serves the other; absent
   * for a view made on the spot (an outsider's).
   */
  key?: string;
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

/** A user no workspace lists: every job anonymous. */
export function outsiderView(user: string): Viewer {
  return { user, canSee: () => false, key: 'outsider' };
}

/**
 * The view of `user`, or undefined when no workspace lists them (an unknown user). Made
 * once per policy and user (`viewerCache`): which quotas the user administers is a table
 * over the quota tree, so `canSee` is two lookups, never a scan of the jobs or the tree.
 */
export function viewerFor(policy: Policy, tree: QuotaTree, user: string): Viewer | undefined {
  const own = policy.workspaces.filter((w) => w.members.some((m) => m.user === user));
  if (own.length === 0) return undefined;
  const names = new Set(own.map((w) => w.name));
  const adminRoots = own
    .filter((w) => w.members.some((m) => m.user === user && m.role === 'admin'))
    .flatMap((w) => w.quotas)
    .map((q) => tree.indexOf(q))
    .filter((i) => i >= 0);
  // An admin of a quota's workspace sees its whole subtree: marked once here, per quota.
  const administered = new Uint8Array(tree.quotas.length);
  for (let q = 0; q < administered.length; q++) if (adminRoots.some((r) => tree.inSubtree(q, r))) administered[q] = 1;
  const key = `${[...names].sort().join(',')}|${[...new Set(adminRoots)].sort((a, b) => a - b).join(',')}`;
  return {
    user,
    key,
    canSee: (job) => {
      if (names.has(job.workspace)) return true;
      const q = tree.indexOf(job.quota);
      return q >= 0 && administered[q] === 1;
    },
  };
}

/** Views of the users of one policy, each made once (a server answers the same users again and again). */
export function viewerCache(policy: Policy, tree: QuotaTree): (user: string) => Viewer | undefined {
  const made = new Map<string, Viewer | undefined>();
  const members = new Set(policy.workspaces.flatMap((w) => w.members.map((m) => m.user)));
  return (user) => {
    // Only listed users are kept: an unknown name is not remembered, so callers cannot grow the map.
    if (!members.has(user)) return undefined;
    if (!made.has(user)) made.set(user, viewerFor(policy, tree, user));
    return made.get(user);
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

/** What redacting an answer reads of the state it was answered on: the running jobs by name. */
export interface JobsByName {
  jobIndex: ReadonlyMap<string, number>;
  job(i: number): RunningJob;
}

/**
 * Redacts an answer for `viewer`: hidden victims become anonymous usage. The answer's
 * sentences are not searched for names: every sentence that names a running or queued
 * job was written for the viewer from the job itself (reasons.ts `jobLabel`,
 * queue-answer.ts), and text the caller supplied (the job's name, its GPU models, its
 * submitter) is theirs and reads the same whatever jobs exist — substituting by string
 * search would turn a guessed hidden name into `(hidden: WORKSPACE)` and confirm it.
 * Reads only the victims: no scan of the jobs.
 */
export function redactAnswer(answer: Answer, on: JobsByName, viewer: Viewer): ViewedAnswer {
  const victims = answer.victims.map((v): VictimAnswer | HiddenVictim => {
    const i = on.jobIndex.get(v.job);
    const job = i === undefined ? undefined : on.job(i);
    if (!job || viewer.canSee(job)) return v;
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
  return { ...answer, as: viewer.user, victims, lostGpuHours: totalLostGpuHours(victims) };
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
