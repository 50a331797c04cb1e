/**
 * Answering "what if these quotas were scaled?" (SEMANTICS 9, docs/teams.md "Quota
 * scaling"). The scaling has been validated when the policy loaded
 * (policy/check/check-scales.ts); this works out its effect:
 *
 *   - the jobs whose standing changes (model/rescale.ts): a shrunk quota turns only as
 *     many of its newest lowest-priority jobs `borrowing` (reclaimable by its siblings)
 *     as the shrink needs; a scaled quota's borrowers come back `in-quota` where its new
 *     min has room; the reasons say both, per quota;
 *   - for each scaled quota and every quota below it (their room depends on their
 *     ancestors' min): min, usage and in-quota room before and after, and the largest
 *     gang a queued job of each team could be admitted with in quota now, without
 *     preempting anyone (placed by the kernel on the snapshot's free GPUs).
 *
 * Jobs are shown as `viewer` may see them. Never mutates the snapshot.
 */
import type { Quota, ScaleQuota, Standing } from '../model/policy.js';
import { rescaleStandings } from '../model/rescale.js';
import { sourceText } from '../model/source.js';
import { gangRequest } from './gang.js';
import { because, type Reason, type ReasonCode } from './reason-codes.js';
import type { Snapshot } from './snapshot.js';
import { ceilingUsage, hasCeilings } from './usage.js';
import { hiddenLabel, priorityBand, type Viewer } from './visibility.js';

/** A job whose standing the scaling changes. */
export interface ScaleChange {
  job: string;
  hidden?: true;
  workspace: string;
  quota: string;
  /** Null when hidden (see priorityBand). */
  priority: number | null;
  priorityBand: string;
  gpus: number;
  from: Standing;
  to: Standing;
  /** `scale/job-turns-borrowing` or `scale/job-returns-in-quota`: a stable code beside the sentence. */
  code: ReasonCode;
  reason: string;
}

/** One quota's numbers before and after. */
export interface ScaleQuotaEffect {
  quota: string;
  workspaces: string[];
  min: { before: number; after: number };
  /** The quota's ceiling in GPUs (SEMANTICS 3), when it has one: a scaling never changes it. */
  max?: number;
  used: { before: number; after: number };
  /** GPUs a new job could still get in quota: the least room on the path to the root. */
  room: { before: number; after: number };
  /**
   * GPUs a new job could get in quota by also reclaiming what this quota's path lent:
   * borrowers on same-level quotas whose lender's `reclaim` is not `never` (an upper
   * bound for `lower-priority`, which depends on the job's priority).
   */
  roomWithReclaim: number;
  /** The largest gang admissible in quota now, without preemption: total GPUs and its shape. */
  largestGang: { gpus: number; pods: number; gpuPerPod: number };
}

/** The answer to a ScaleQuota. */
export interface ScaleAnswer {
  query: string;
  as?: string;
  set: Array<{ quota: string; before: number; after: number; source: string }>;
  changes: ScaleChange[];
  quotas: ScaleQuotaEffect[];
  /** The scaling's effect, per quota: each a stable `scale/...` code beside a sentence. */
  reasons: Reason[];
}

/** Works out the effect of `scale` on the snapshot. */
export function answerScale(snap: Snapshot, scale: ScaleQuota, viewer?: Viewer): ScaleAnswer {
  const quotas = snap.policy.quotas;
  const tree = snap.tree;
  const newMin = new Map(scale.set.map((e) => [e.quota, e.gpu]));
  const none = rescaleStandings(quotas, snap.jobs, new Map());
  const after = rescaleStandings(quotas, snap.jobs, newMin);
  const min = (q: Quota, scaled: boolean) => (scaled ? (newMin.get(q.name) ?? q.min.gpu) : q.min.gpu);
  // A ceiling (SEMANTICS 3) bounds in-quota room too; it counts borrowers, so a scaling that only moves standings leaves it as it is.
  const ceilingUse = hasCeilings(tree) ? ceilingUsage(snap) : undefined;
  const ceilingRoom = (i: number) => Math.min(...tree.pathToRoot(i).map((a) => (tree.at(a).max?.gpu ?? Infinity) - (ceilingUse?.[a]![0] ?? 0)));
  const room = (i: number, usage: number[], scaled: boolean) => Math.min(ceilingRoom(i), ...tree.pathToRoot(i).map((a) => min(tree.at(a), scaled) - usage[a]!));

  const changes: ScaleChange[] = after.changes.map((c) => {
    const visible = !viewer || viewer.canSee(c.job);
    const gpus = c.job.pods * c.job.resources.gpu;
    const q = quotas.find((x) => x.name === c.quota)!;
    const why =
      c.to === 'borrowing'
        ? `${c.quota}'s min drops to ${min(q, true)}, below what its jobs use; the ${visible ? `job (priority ${c.job.priority}, started ${new Date(c.job.startedAt).toISOString().replace('.000Z', 'Z')})` : 'job'} is among the fewest of its newest lowest-priority jobs that cover the shrink, so it now runs borrowing and its siblings may reclaim it`
        : `${c.quota}'s min ${min(q, true) > q.min.gpu ? 'grows' : 'changes'} to ${min(q, true)}, with room to hold the job in quota again; it is no longer reclaimable`;
    return {
      job: visible ? c.job.name : hiddenLabel(c.job),
      ...(visible ? {} : { hidden: true as const }),
      workspace: c.job.workspace,
      quota: c.job.quota,
      priority: visible ? c.job.priority : null,
      priorityBand: priorityBand(c.job.priority),
      gpus,
      from: c.from,
      to: c.to,
      code: c.to === 'borrowing' ? 'scale/job-turns-borrowing' : 'scale/job-returns-in-quota',
      reason: why,
    };
  });

  // GPUs of borrowers that quota i's path lent and may take back (after the scaling).
  const reclaimable = (i: number): number =>
    snap.jobs.reduce((sum, j) => {
      if (after.standings.get(j.name) !== 'borrowing') return sum;
      const mode = tree.lenderReclaim(i, tree.indexOf(j.quota));
      return mode === undefined || mode === 'never' ? sum : sum + j.pods * j.resources.gpu;
    }, 0);

  const affected = quotas.map((_, i) => i).filter((i) => scale.set.some((e) => tree.inSubtree(i, tree.indexOf(e.quota))));
  const effects: ScaleQuotaEffect[] = affected.map((i) => {
    const q = tree.at(i);
    const usedAfter = after.usage[i]!; // usage has one entry per quota
    const roomAfter = Math.max(0, room(i, after.usage, true));
    return {
      quota: q.name,
      workspaces: snap.policy.workspaces.filter((w) => w.quotas.includes(q.name)).map((w) => w.name),
      min: { before: q.min.gpu, after: min(q, true) },
      ...(q.max?.gpu === undefined ? {} : { max: q.max.gpu }),
      used: { before: none.usage[i]!, after: usedAfter },
      room: { before: Math.max(0, room(i, none.usage, false)), after: roomAfter },
      roomWithReclaim: Math.max(0, Math.min(min(q, true) - usedAfter, roomAfter + reclaimable(i))),
      largestGang: largestGang(snap, q.name, roomAfter),
    };
  });

  const reasons: Reason[] = scale.set.map((e) => {
    const q = quotas.find((x) => x.name === e.quota)!;
    const kids = quotas.filter((x) => x.parent === (q.parent ?? '\0'));
    const parent = q.parent === null ? undefined : quotas.find((x) => x.name === q.parent)!;
    const fit = parent ? `; the children of ${parent.name} now guarantee ${kids.reduce((s, k) => s + min(k, true), 0)} of its ${min(parent, true)} GPUs` : '';
    return because('scale/min-set', `${e.quota}: min ${q.min.gpu} → ${e.gpu} GPUs (${sourceText(e.src)})${fit}`);
  });
  reasons.push(...scale.set.flatMap((e) => standingSummary(snap, e.quota, min(quotas[tree.indexOf(e.quota)]!, true), none.usage, after.standings, changes)));
  if (changes.length === 0) reasons.push(because('scale/no-change', 'no running job changes standing: every quota still covers the jobs it holds in quota'));
  return {
    query: scale.name,
    ...(viewer ? { as: viewer.user } : {}),
    set: scale.set.map((e) => ({ quota: e.quota, before: quotas.find((q) => q.name === e.quota)!.min.gpu, after: e.gpu, source: sourceText(e.src) })),
    changes,
    quotas: effects,
    reasons,
  };
}

/**
 * What the scaling does to one quota's own jobs, in one sentence each (SEMANTICS 9): how
 * many jobs a shrink turns borrowing out of how many it could have, and which borrowers
 * come back in quota where the new min has room (and which stay borrowing, for want of
 * room). `changes` are already shown as the viewer may see them.
 */
function standingSummary(snap: Snapshot, quota: string, newMin: number, usageBefore: number[], after: Map<string, Standing>, changes: ScaleChange[]): Reason[] {
  const q = snap.tree.indexOf(quota);
  const own = snap.jobs.filter((j) => j.quota === quota);
  const before = usageBefore[q]!;
  const list = (cs: ScaleChange[]) => cs.map((c) => `${c.job} (${c.gpus} GPUs)`).join(', ');
  const out: Reason[] = [];
  const turned = changes.filter((c) => c.quota === quota && c.to === 'borrowing');
  if (turned.length > 0) {
    const inQuota = own.filter((j) => j.standing === 'in-quota').length;
    out.push(
      because(
        'scale/jobs-turn-borrowing',
        `${quota}: its jobs use ${before} GPUs, ${before - newMin} over the new min of ${newMin}: ${turned.length} of its ${inQuota} in-quota job(s) turn borrowing, the fewest of its newest lowest-priority jobs that cover the ${before - newMin}: ${list(turned)}; the others stay in quota`,
      ),
    );
  }
  const back = changes.filter((c) => c.quota === quota && c.to === 'in-quota');
  const still = own.filter((j) => j.standing === 'borrowing' && after.get(j.name) === 'borrowing').length;
  if (back.length > 0)
    out.push(
      because(
        'scale/jobs-return-in-quota',
        `${quota}: the new min of ${newMin} has room, so ${back.length} of its borrowing job(s) return in quota (${list(back)})${still > 0 ? `; ${still} other(s) stay borrowing, for want of room` : ''}`,
      ),
    );
  else if (still > 0 && turned.length === 0)
    out.push(because('scale/jobs-stay-borrowing', `${quota}: its ${still} borrowing job(s) stay borrowing: the new min of ${newMin} has no room for them (its jobs use ${before})`));
  return out;
}

/**
 * The largest gang within `room` GPUs that the kernel can place on free GPUs now: pods
 * of the pool's node size first (a whole-node gang), else single-GPU pods.
 */
function largestGang(snap: Snapshot, quota: string, room: number): ScaleQuotaEffect['largestGang'] {
  const pool = snap.poolOf(quota);
  const poolIdx = snap.poolIndexOf(quota);
  const nodeSize = Math.max(1, ...snap.cluster.nodes.filter((n) => n.pool === pool.name).map((n) => n.gpus));
  let best = { gpus: 0, pods: 0, gpuPerPod: nodeSize };
  const fits = (pods: number, per: number) => snap.kernel.place(gangRequest({ pods, resources: { gpu: per } }, poolIdx, pool)).ok;
  for (const per of nodeSize === 1 ? [1] : [nodeSize, 1]) {
    // If k pods fit, k - 1 fit: binary search the largest k.
    let lo = 0;
    let hi = Math.floor(room / per);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (fits(mid, per)) lo = mid;
      else hi = mid - 1;
    }
    if (lo * per > best.gpus) best = { gpus: lo * per, pods: lo, gpuPerPod: per };
  }
  return best;
}
