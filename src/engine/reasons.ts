/**
 * Sentences for answers: why a job cannot be admitted, placed, or given victims, in the
 * policy's terms and citing the policy line (file:line:col).
 */
import type { Candidate, GangRequest, PoolRoom } from '../kernel/types.js';
import type { CompiledRule } from '../rules/compile-rules.js';
import type { JobSpec } from '../model/policy.js';
import { borrowingOf } from '../model/borrowing.js';
import { formatRange, inRange } from '../model/priority.js';
import { formatAmount, RESOURCE_NAMES } from '../model/resources.js';
import { sourceText } from '../model/source.js';
import { podsGpus, type Snapshot } from './snapshot.js';
import { countsAt, type Overrun } from './usage.js';
import { jobLabel, priorityBand, type Viewer } from './visibility.js';
import type { AnswerContext } from './answer-context.js';
import type { PreemptionProblem } from './preemption-problem.js';
import type { VictimAnswer } from './answer.js';
import type { RunningJob } from '../model/policy.js';

function amount(resource: number, v: number): string {
  return formatAmount(RESOURCE_NAMES[resource]!, v);
}

/**
 * "Quota1.1 guarantees 48 GPUs and uses 48; the job needs 16 more (teams.yaml:12:9)", or
 * for a ceiling "Quota1.1's max is 64 GPUs and its in-quota and borrowing jobs use 60; ...".
 */
export function describeOverrun(snap: Snapshot, o: Overrun): string {
  const q = snap.tree.at(o.quota);
  if (o.kind === 'max')
    return `${q.name}'s max is ${amount(o.resource, o.limit)} and its in-quota and borrowing jobs use ${amount(o.resource, o.used)}; the job needs ${amount(o.resource, o.need)}, ${amount(o.resource, o.deficit)} over the ceiling (${sourceText(q.maxSrc ?? q.src)})`;
  return `${q.name} guarantees ${amount(o.resource, o.limit)} and its jobs use ${amount(o.resource, o.used)}; the job needs ${amount(o.resource, o.need)}, ${amount(o.resource, o.deficit)} over (${sourceText(q.src)})`;
}

/** "Quota1.1 guarantees 48 GPUs; the job alone asks for 56": a request no preemption can ever make room for (a guarantee or a ceiling). */
export function describeNeverFits(snap: Snapshot, o: Overrun): string {
  const q = snap.tree.at(o.quota);
  if (o.kind === 'max')
    return `${q.name}'s max is ${amount(o.resource, o.limit)} and the job alone asks for ${amount(o.resource, o.need)}, so it could run neither in quota nor borrowing even with nothing else running (${sourceText(q.maxSrc ?? q.src)})`;
  return `${q.name} guarantees ${amount(o.resource, o.limit)} in all and the job alone asks for ${amount(o.resource, o.need)}, so it could not run in quota even with nothing else running (${sourceText(q.src)})`;
}

/**
 * Why the pool has no room for the gang right now, with its fragmentation (SEMANTICS
 * 5.4): the free GPUs that no pod of this shape can use, because they sit on nodes in
 * pieces smaller than a pod (or outside aligned blocks, under strict topology), or next
 * to exhausted cpu or memory.
 */
export function explainNoRoom(snap: Snapshot, req: GangRequest, poolName: string, what: string): string {
  const { freeGpus: free, largestFree: largest, podsFit: pods, fragmentedGpus: fragments } = roomOf(snap, req);
  if (req.milli) {
    // A share fits on a free GPU or beside other shares, so whole-GPU fragments say nothing here.
    return `pool "${poolName}" has ${free} ${what === 'free GPUs' ? 'free GPUs' : `free GPUs of ${what}`} and shared GPUs with room; ${req.pods} pod(s) × ${req.milli}m of a GPU do not fit: room for ${pods} such pod(s)`;
  }
  const shape = `${req.gpu}-GPU pod`;
  return `pool "${poolName}" has ${free} ${what === 'free GPUs' ? 'free GPUs' : `free GPUs of ${what}`} (largest on one node: ${largest}); ${req.pods} pod(s) × ${req.gpu} GPU${req.strict ? ' in aligned blocks (topology: strict)' : ''} do not fit: room for ${pods} such pod(s)${fragments > 0 ? `, and ${fragments} free GPU(s) are fragments no ${shape} can use` : ''}`;
}

/**
 * The kernel's account of the pool's free room for pods of the request's shape (a pass
 * over the pool's nodes inside the kernel): once per shape and snapshot state. The
 * kernel holds the snapshot's state between queries (each query undoes its own work).
 */
export function roomOf(snap: Snapshot, req: GangRequest): PoolRoom {
  return snap.memo(`room:${req.pool}:${req.gpu}:${req.milli ?? 0}:${req.cpu}:${req.mem}:${req.strict ? 1 : 0}:${req.models ?? 0}:${req.strategy}`, () => snap.kernel.room(req));
}

/**
 * Why a job may not borrow a sibling's share (SEMANTICS 5.2): no `<Q>/borrowing` rule
 * exists (a root, or neither borrowing.priority nor selfPreemption), or its range leaves
 * the priority out (model/borrowing.ts says which field the range comes from).
 */
export function explainNoBorrowing(snap: Snapshot, q: number, priority: number): string {
  const quota = snap.tree.at(q);
  if (quota.parent === null) return `${quota.name} is a root quota: it has no same-level quotas to borrow from`;
  const b = borrowingOf(quota);
  if (!b) return `${quota.name} has neither borrowing.priority nor selfPreemption, so its jobs do not borrow from same-level quotas (${sourceText(quota.src)})`;
  if (b.from === 'borrowing.priority') return `priority ${priority} is not in ${b.rule} ${formatRange(b.priority)} (borrowing.priority, ${sourceText(b.src)})`;
  return `priority ${priority} is not in highPriority ${formatRange(b.priority)} of ${quota.name}'s selfPreemption (${sourceText(b.src)})`;
}

/** Why the job may borrow (SEMANTICS 5.2), naming the rule that lets it: for the answer that borrows. */
export function explainBorrowing(ctx: AnswerContext): string {
  const { job, quota } = ctx;
  const rule = ctx.borrowRule!;
  const lent = `so it borrows unused capacity under ${quota.parent} beyond its own guarantee; the quota it borrowed from can take it back when it needs it`;
  const b = borrowingOf(quota)!;
  // The default's sentence, as before borrowing.priority existed.
  if (b.from === 'selfPreemption.highPriority') return `priority ${job.priority} is in highPriority of ${quota.name}'s selfPreemption (${sourceText(quota.selfPreemption!.src)}), ${lent}`;
  return `priority ${job.priority} is in ${rule.name} ${formatRange(b.priority)} (borrowing.priority, ${rule.source}), ${lent}`;
}

/** Why no running job is eligible: what each rule that could apply requires. */
export function explainNoVictims(snap: Snapshot, q: number, job: JobSpec): string {
  const quota = snap.tree.at(q);
  const parts: string[] = [];
  const sp = quota.selfPreemption;
  if (!sp) parts.push(`${quota.name} has no selfPreemption`);
  else if (!inRange(sp.highPriority, job.priority))
    parts.push(`priority ${job.priority} is not in highPriority ${formatRange(sp.highPriority)} of ${quota.name}/selfPreemption (${sourceText(sp.src)})`);
  else
    parts.push(
      `no job on ${quota.name} or its same-level quotas has a priority in lowPriority ${formatRange(sp.lowPriority)} below ${job.priority} and a module in [${sp.modules.join(', ')}] (${sourceText(sp.src)})`,
    );
  const cp = quota.childPreemption;
  if (cp) parts.push(`no job below ${quota.name} has a priority in preemptiblePriority ${formatRange(cp.preemptiblePriority)} and a module in [${cp.modules.join(', ')}] (${sourceText(cp.src)})`);
  else if (quota.children.length > 0) parts.push(`${quota.name} has no childPreemption`);
  const pool = snap.poolIndexOf(job.quota);
  // Counts over every running job, once per snapshot state (pool, quota), not per answer.
  const idleInPool = snap.memo(`idle-in-pool:${pool}`, () => snap.jobs.filter((j, i) => j.standing === 'idle' && snap.state.jobs[i]!.pods.some((p) => snap.state.nodes[p.node]!.pool === pool)).length);
  parts.push(idleInPool === 0 ? 'no idle job holds GPUs in the pool' : `${idleInPool} idle job(s) hold GPUs in the pool but do not help`);
  const borrowers = snap.memo(`lent-borrowers:${q}`, () => snap.jobs.filter((j) => j.standing === 'borrowing' && snap.tree.lenderReclaim(q, snap.tree.indexOf(j.quota)) !== undefined).length);
  parts.push(borrowers === 0 ? `nothing ${quota.name} or its ancestors lent is borrowed` : `${borrowers} borrower(s) of what ${quota.name}'s path lent may not be reclaimed (reclaim setting)`);
  return `no running job may be preempted: ${parts.join('; ')}`;
}

/** Why all eligible candidates together still do not let the job in: a quota they cannot relieve, or no room. */
export function explainShortfall(snap: Snapshot, candidates: Candidate[], ruleOf: Map<number, CompiledRule>, over: Overrun[], viewer?: Viewer): string {
  const names = candidates.slice(0, 6).map((c) => `${jobLabel(snap.job(c.job), viewer)} (${ruleOf.get(c.job)!.name})`);
  const list = `${names.join(', ')}${candidates.length > 6 ? `, and ${candidates.length - 6} more` : ''}`;
  for (let k = 0; k < over.length; k++) {
    const o = over[k]!;
    let relief = 0;
    for (const c of candidates) {
      if (!((c.constraintMask >>> k) & 1)) continue;
      const pods = snap.state.jobs[c.job]!.pods;
      relief += o.resource === 0 ? podsGpus(pods) : o.resource === 1 ? pods.reduce((s, p) => s + p.cpu, 0) : pods.reduce((s, p) => s + p.mem, 0);
    }
    if (relief < o.deficit) {
      return `the eligible jobs [${list}] would bring ${snap.tree.at(o.quota).name} down by only ${amount(o.resource, relief)}, and it is ${amount(o.resource, o.deficit)} over (${describeOverrun(snap, o)})`;
    }
  }
  return `even with every eligible job [${list}] preempted, the pool has no room for the gang`;
}

/** "Quota1 uses 40 of 128 GPUs, so the job's 16 fit": one quota's headroom for an admitted job. */
export function describeHeadroom(snap: Snapshot, name: string, needGpu: number): string {
  const i = snap.tree.indexOf(name);
  const q = snap.tree.quotas[i]!;
  return `${name} uses ${snap.usage[i]![0]} of ${q.min.gpu} GPUs, so the job's ${needGpu} fit`;
}

/**
 * The work the victims lose, as the asker may know it: with a viewer, only the victims
 * they can see are summed, so a total never reveals a hidden job's lost work.
 */
export function lostText(snap: Snapshot, victims: VictimAnswer[], viewer: Viewer | undefined): string {
  const visible = viewer ? victims.filter((v) => viewer.canSee(snap.job(snap.jobIndex.get(v.job)!))) : victims;
  const lost = `${Math.round(visible.reduce((s, v) => s + v.lostGpuHours, 0) * 100) / 100} GPU-hours of work lost`;
  return visible.length === victims.length ? lost : `${lost} by the jobs you can see`;
}

/**
 * The borrowers that fill a quota the job needs room in, and that no rule lets the job
 * preempt for this way (SEMANTICS 5.1, 5.2): one sentence each, naming the borrower and
 * the rule that would have to allow preempting it — typically a parent's job held up by
 * a child's borrower, which only the parent's childPreemption could reach.
 */
export function explainBlockingBorrowers(ctx: AnswerContext, problem: PreemptionProblem): string[] {
  const { snapshot: snap, viewer } = ctx;
  const tree = snap.tree;
  // Made only when some quota has a borrower to check: most answers have none, and the candidates run to thousands.
  let eligible: Set<number> | undefined;
  const out: string[] = [];
  const named = new Set<number>();
  for (const o of problem.over) {
    if (o.resource !== 0) continue;
    const a = tree.quotas[o.quota]!;
    for (const i of borrowersAt(snap, o.quota)) {
      eligible ??= new Set(problem.candidates.map((c) => c.job));
      if (eligible.has(i) || named.has(i)) continue;
      const j = snap.jobs[i]!;
      const vq = snap.index.jobQuota[i]!;
      named.add(i);
      const gpus = j.pods * j.resources.gpu;
      const through = tree.quotas[vq]!.parent;
      // A job the asker may not see is named by its workspace and priority band only: never its name, priority or module (SEMANTICS 10).
      const seen = !viewer || viewer.canSee(j);
      const who = seen ? `${j.name} on ${j.quota} (priority ${j.priority}, ${j.module}, ${gpus} GPUs)` : `a job of ${j.workspace} on ${j.quota} (${priorityBand(j.priority)} priority, ${gpus} GPUs)`;
      out.push(`preemption (${problem.standing}): ${a.name} is full partly because ${who} borrows through ${through} beyond ${j.quota}'s guarantee; ${wouldNeed(ctx, problem.standing, j, seen)}`);
    }
  }
  return out;
}

/**
 * The running borrowers that count in quota `a`'s usage from below it (SEMANTICS 3: a
 * borrower counts at every ancestor of its own quota, not at its own), in job order. One
 * pass over the running jobs per snapshot state files every borrower under each quota it
 * counts at; an answer then reads its quotas' lists.
 */
function borrowersAt(snap: Snapshot, a: number): readonly number[] {
  const byQuota = snap.memo('borrowers-by-quota', () => {
    const out = new Map<number, number[]>();
    const { jobQuota } = snap.index;
    for (let i = 0; i < jobQuota.length; i++) {
      if (snap.jobs[i]!.standing !== 'borrowing') continue;
      const vq = jobQuota[i]!;
      for (const up of snap.tree.pathToRoot(vq)) {
        if (!countsAt(snap.tree, 'borrowing', vq, up)) continue;
        let list = out.get(up);
        if (!list) out.set(up, (list = []));
        list.push(i);
      }
    }
    return out;
  });
  return byQuota.get(a) ?? [];
}

/** The rule that would have to allow the job to preempt `victim`, and why it does not; of a victim the asker may not see (`seen` false), without its priority or module. */
function wouldNeed(ctx: AnswerContext, standing: 'in-quota' | 'borrowing', victim: RunningJob, seen: boolean): string {
  const tree = ctx.snapshot.tree;
  const quota = ctx.quota;
  const vq = tree.indexOf(victim.quota);
  const relation = tree.relation(ctx.q, vq);
  if (relation === 'descendant') {
    const cp = quota.childPreemption;
    const rule = `${quota.name}/childPreemption`;
    if (!cp) return `preempting it would need ${rule}, and ${quota.name} has no childPreemption (${sourceText(quota.src)})`;
    if (!inRange(cp.preemptiblePriority, victim.priority))
      return `preempting it would need ${rule} to cover ${seen ? `priority ${victim.priority}` : 'its priority'}, outside its preemptiblePriority ${formatRange(cp.preemptiblePriority)} (${sourceText(cp.src)})`;
    return `preempting it would need ${rule} to cover ${seen ? `module ${victim.module}` : 'its module'}, not in its modules [${cp.modules.join(', ')}] (${sourceText(cp.src)})`;
  }
  if (relation === 'sibling' || relation === 'lent') {
    const l = tree.quotas[tree.lender(ctx.q, vq)]!;
    const rule = `${l.name}/reclaim`;
    if (standing === 'borrowing') return `preempting it would need ${rule}, which serves only jobs that run in quota, and this way the job would borrow`;
    if (l.reclaim === 'never') return `preempting it would need ${rule}, and ${l.name} has reclaim: never (${sourceText(l.reclaimSrc)})`;
    return `preempting it would need ${rule}, and ${l.name} has reclaim: lower-priority while its priority${seen ? ` ${victim.priority}` : ''} is not below the job's ${ctx.job.priority} (${sourceText(l.reclaimSrc)})`;
  }
  if (relation === 'self') {
    const sp = quota.selfPreemption;
    return sp
      ? `preempting it would need ${quota.name}/selfPreemption to cover it (lowPriority ${formatRange(sp.lowPriority)} below ${ctx.job.priority}, modules [${sp.modules.join(', ')}], ${sourceText(sp.src)})`
      : `preempting it would need a selfPreemption on ${quota.name}, which has none (${sourceText(quota.src)})`;
  }
  return `no rule lets a job on ${quota.name} preempt a job on ${victim.quota}`;
}
