/**
 * Answering "what if this job were submitted now?" (SEMANTICS 3-5). The steps, each
 * tried only when the ones before it fail:
 *
 *   0. admission (admission.ts) and never-runs (never-runs.ts)  → reject
 *   1. in quota, on free capacity                          → admit  (in-quota)
 *   2. borrowing a same-level quota's unused share (5.2)    → admit  (borrowing)
 *   3. preempting: the victim sets of every way the job could run (in quota, and
 *      borrowing when it may) compete in one kernel call    → preempt (the winner's way)
 *   4. idleResources acceptable: idle capacity, no victims  → admit  (idle)
 *   otherwise wait.
 *
 * No victims at all beats any victim set (SEMANTICS 5.3), so 1 and 2 come first; between
 * them, as between two victim sets that tie on every criterion, the job's own standing
 * decides, in quota first. An `only` job skips 1-3 and never preempts (invariant 5).
 */
import { LAYOUT } from '../kernel/layout.js';
import type { AloneResult, PodPlacement } from '../kernel/types.js';
import { RESOURCE_NAMES } from '../model/resources.js';
import { countsAtCeiling, totalRequest, type Overrun } from './usage.js';
import { sourceText } from '../model/source.js';
import type { JobSpec } from '../model/policy.js';
import type { Snapshot } from './snapshot.js';
import { checkAdmission } from './admission.js';
import { answerContext, waysOf, type AnswerContext, type EngineContext, type Way } from './answer-context.js';
import { placementOf, totalLostGpuHours, victimAnswers, type Answer } from './answer.js';
import { because, type Reason } from './reason-codes.js';
import { formatGpu } from '../model/resources.js';
import { neverRuns } from './never-runs.js';
import { decideKueue } from './kueue-whatif.js';
import { kernelOrder, problemFor, type PreemptionProblem } from './preemption-problem.js';
import { modelRefusal } from './model-reasons.js';
import { VICTIM_CRITERION_TEXT, isDefaultVictimOrder } from '../model/victim-order.js';
import type { Pool } from '../model/policy.js';
import { jobLabel } from './visibility.js';
import {
  describeHeadroom,
  describeNeverFits,
  describeOverrun,
  explainBlockingBorrowers,
  explainBorrowing,
  explainNoBorrowing,
  explainNoRoom,
  explainNoVictims,
  explainShortfall,
  lostText,
} from './reasons.js';

export type { EngineContext } from './answer-context.js';

/** Answers one submission. Never mutates the snapshot. */
export async function answerWhatIf(engine: EngineContext, query: string, job: JobSpec): Promise<Answer> {
  const a = await decide(engine, query, job);
  return { ...a, lostGpuHours: totalLostGpuHours(a.victims), notes: submitterNotes(engine.snapshot, job) };
}

/**
 * No silent gaps: a job that names no submitter skips the checks that need one
 * (membership, allowedRoles, per-user and per-role caps); say so when any applies.
 */
function submitterNotes(snap: Snapshot, job: JobSpec): Reason[] {
  if (job.submittedBy !== undefined) return [];
  const ws = snap.policy.workspaces.find((w) => w.name === job.workspace);
  const quota = snap.tree.indexOf(job.quota) >= 0 ? snap.tree.get(job.quota) : undefined;
  const skipped = [
    ...(ws && ws.members.length > 0 ? [`membership of ${ws.name}`] : []),
    ...(quota?.allowedRoles ? [`${quota.name}/allowedRoles`] : []),
    ...(ws && ws.resourcePolicies.some((c) => 'user' in c.subject || 'role' in c.subject) ? [`${ws.name}'s per-user and per-role resource caps`] : []),
  ];
  if (skipped.length === 0) return [];
  return [
    because(
      'admission/submitter-unknown',
      `the job names no submittedBy, so ${skipped.join(', ')} ${skipped.length > 1 ? 'were' : 'was'} not checked; give submittedBy=USER (or --as USER / QUOTIENT_USER) to check them`,
    ),
  ];
}

/** An answer before its totals and notes (answerWhatIf adds them). */
type Decided = Omit<Answer, 'lostGpuHours' | 'notes'>;

/** The decision and why: everything of the answer but its totals and notes. */
async function decide(engine: EngineContext, query: string, job: JobSpec): Promise<Decided> {
  const snap = engine.snapshot;
  const base = { query, job: job.name, quota: job.quota };
  const wait = (reasons: Reason[]): Decided => ({ ...base, decision: 'wait', standing: null, placement: [], victims: [], reasons });
  const reject = (reasons: Reason[]): Decided => ({ ...base, decision: 'reject', standing: null, placement: [], victims: [], reasons });

  // 0. SEMANTICS 10: access, per-module settings and resource caps come before any quota arithmetic.
  const admission = await checkAdmission(snap, job);
  if (admission.reject) return reject(admission.reject);
  // A quota of a Kueue-rules tree is decided by Kueue's algorithm (SEMANTICS 12): the same answer, its own steps.
  if (snap.tree.get(job.quota).kueue) return decideKueue(snap, query, job, admission.notes);
  const ctx = answerContext(engine, query, job);
  // A job asking only for models no node of the pool has can never run: the model is what blocks it.
  const noModel = modelRefusal(snap, job, ctx.pool.name);
  if (noModel) return reject([because('placement/gpu-model', noModel)]);
  const never = neverRuns(ctx);
  if (never) return reject(never);

  const { req, pool, quota, need } = ctx;
  const kernel = snap.kernel;
  // Idle capacity: free GPUs only, never a victim (invariant 5); the answer when they suffice.
  const idleRun = (why: Reason[]): Decided | undefined => {
    const res = kernel.place(req);
    return res.ok ? { ...base, decision: 'admit', standing: 'idle', placement: placementOf(snap, res.pods, req), victims: [], reasons: why } : undefined;
  };

  if (job.idleResources === 'only') {
    const idle = idleRun([because('idle/runs-idle', 'idleResources: only: the job runs on idle capacity, outside every quota, and can be preempted whenever an owner needs it back')]);
    if (idle) return idle;
    return wait([
      because('idle/no-room', explainNoRoom(snap, req, pool.name, 'idle capacity')),
      because('idle/never-preempts', 'a job on idle resources never preempts anything; it waits for free GPUs'),
    ]);
  }

  // A full cap blocks every quota step; an `acceptable` job may still run idle.
  if (admission.blocked) {
    if (job.idleResources === 'acceptable') {
      const idle = idleRun([
        ...admission.blocked,
        because('idle/runs-idle', 'idleResources: acceptable: the cap keeps the job out of its quota, so it runs on idle capacity and can be preempted when an owner needs it back'),
      ]);
      if (idle) return idle;
      return wait([...admission.blocked, because('idle/no-room', `idle: ${explainNoRoom(snap, req, pool.name, 'idle capacity')}`)]);
    }
    return wait([...admission.blocked, because('idle/not-accepted', 'the job waits until jobs under this cap finish; idleResources is none, so it does not run on idle capacity')]);
  }

  const reasons: Reason[] = [];
  const inQuota = ctx.inQuota;
  const borrowing = ctx.borrowing;

  // 1. In quota on free capacity. A ceiling (SEMANTICS 3) on the path binds both ways
  // alike (each checks every max from the job's quota up), so it is told once, here.
  if (inQuota.over.length === 0 && inQuota.ceilings.length === 0) {
    const res = kernel.place(req);
    if (res.ok)
      return {
        ...base,
        decision: 'admit',
        standing: 'in-quota',
        placement: placementOf(snap, res.pods, req),
        victims: [],
        reasons: [
          because(
            'quota/fits',
            `in quota: ${snap.tree
              .pathNames(ctx.q)
              .map((n) => describeHeadroom(snap, n, need.gpu))
              .join('; ')}`,
          ),
          ...admission.notes,
        ],
      };
    reasons.push(because('placement/no-room', `in quota: ${explainNoRoom(snap, req, pool.name, 'free GPUs')}`));
  } else {
    reasons.push(...inQuota.over.map((o) => because('quota/over-min', `in quota: ${describeOverrun(snap, o)}`)));
    reasons.push(...inQuota.ceilings.map((o) => because('quota/over-max', `${borrowing ? 'in quota and borrowing' : 'in quota'}: ${describeOverrun(snap, o)}`)));
  }

  // 2. Borrowing a same-level quota's unused share, no victims.
  if (!borrowing) {
    if (inQuota.over.length > 0) reasons.push(because('borrow/not-allowed', `borrowing: ${explainNoBorrowing(snap, ctx.q, job.priority)}`));
  } else if (borrowing.over.length > 0) {
    reasons.push(...borrowing.over.map((o) => because('borrow/over-min', `borrowing: ${describeOverrun(snap, o)}`)));
  } else if (borrowing.ceilings.length > 0) {
    // The ceiling that stops it was told with step 1.
  } else if (inQuota.over.length > 0) {
    const res = kernel.place(req);
    if (res.ok) {
      return {
        ...base,
        decision: 'admit',
        standing: 'borrowing',
        placement: placementOf(snap, res.pods, req),
        victims: [],
        reasons: [...inQuota.over.map((o) => because('quota/over-min', describeOverrun(snap, o))), because('borrow/allowed', explainBorrowing(ctx))],
      };
    }
    // The quota tree would let it borrow; only the pool stands in the way.
    reasons.push(because('borrow/no-room', `borrowing: every quota above ${quota.name} has room for it to borrow through ${quota.parent}, but ${explainNoRoom(snap, req, pool.name, 'free GPUs')}`));
  }

  // 3. Preemption, across every way the job could run. A way that fits every guarantee
  // and the pool now, and only a ceiling stops, needs no victim but for the ceiling:
  // closed (a ceiling never makes a running job a victim, SEMANTICS 3).
  let fits: boolean | undefined;
  const onlyCeiling = waysOf(ctx).filter((w) => w.over.length === 0 && w.ceilings.length > 0 && w.never.length === 0 && (fits ??= kernel.place(req).ok));
  const preempted = await preempt(ctx, reasons, onlyCeiling);
  if (preempted) return preempted;

  // 4. Idle capacity for `acceptable` jobs.
  if (job.idleResources === 'acceptable') {
    const idle = idleRun([
      ...reasons,
      because('idle/runs-idle', 'idleResources: acceptable: the quota cannot run the job now, so it runs on idle capacity and can be preempted when an owner needs it back'),
    ]);
    if (idle) return idle;
    reasons.push(because('idle/no-room', `idle: ${explainNoRoom(snap, req, pool.name, 'idle capacity')}`));
  } else {
    reasons.push(because('idle/not-accepted', 'idle: idleResources is none, so the job does not run on idle capacity'));
  }
  return wait(reasons);
}

/**
 * Step 3: the victim problems of every way the job could run, solved together; the
 * preempt answer, or undefined with the reason of every way that failed in `reasons`.
 */
async function preempt(ctx: AnswerContext, reasons: Reason[], onlyCeiling: readonly Way[]): Promise<Decided | undefined> {
  const { snapshot: snap, job, quota } = ctx;
  const possible = waysOf(ctx).filter((w) => w.never.length === 0);
  if (possible.length === 0) {
    // Every way asks for more than some quota guarantees at all: no victim could help.
    reasons.push(
      because(
        'preempt/cannot-help',
        `preemption: no preemption can help: ${waysOf(ctx)
          .map((w) => describeNeverFits(snap, w.never[0]!))
          .join('; ')}`,
      ),
    );
    return undefined;
  }
  // Why a way was left out of the search: told with the answer whether or not another way wins.
  const step: Reason[] = onlyCeiling.map((w) => because('preempt/over-max', ceilingClosesWay(ctx, w.standing, [], w.ceilings[0]!)));
  const open = possible.filter((w) => !onlyCeiling.includes(w));
  if (open.length === 0) {
    reasons.push(...step);
    return undefined;
  }
  const problems: PreemptionProblem[] = [];
  for (const w of open) {
    const problem = await problemFor(ctx, w);
    if (problem.constraints.length > LAYOUT.MAX_CONSTRAINTS) {
      step.push(
        because(
          'preempt/too-many-constraints',
          `preemption (${w.standing}): ${problem.constraints.length} quotas and resources on the way to the root are over at once, more than the ${LAYOUT.MAX_CONSTRAINTS} the victim search takes; the job cannot be given victims`,
        ),
      );
      continue;
    }
    if (problem.candidates.length === 0 && w.standing === 'borrowing')
      step.push(
        because(
          'preempt/no-candidates',
          quota.selfPreemption
            ? `preemption (borrowing): no running job is eligible under ${quota.name}'s selfPreemption (${sourceText(quota.selfPreemption.src)}) or reclaim/idle`
            : `preemption (borrowing): no idle job is there to reclaim, and ${quota.name} has no selfPreemption to make other victims`,
        ),
      );
    problems.push(problem);
  }
  const withCandidates = problems.filter((p) => p.candidates.length > 0);
  if (withCandidates.length === 0) {
    reasons.push(...step);
    if (problems.length > 0) reasons.push(because('preempt/no-candidates', `preemption: ${explainNoVictims(snap, ctx.q, job)}`));
    reasons.push(...problems.flatMap((p) => explainBlockingBorrowers(ctx, p).map((m) => because('preempt/blocking-borrower', m))));
    return undefined;
  }

  // SEMANTICS 5.3: one call; the kernel compares the best set of every way by the
  // criteria, and the job's standing breaks only an exact tie (in quota first). With two
  // ways it also answers each alone, for the losing way's sentence (otherWay).
  const res = snap.kernel.selectVictims(
    ctx.req,
    withCandidates.map((p) => ({ standing: p.standing, candidates: p.candidates, constraints: p.constraints })),
    kernelOrder(ctx.pool),
    { alone: withCandidates.length > 1 },
  );
  const winner = res.ok ? withCandidates[res.alternative] : undefined;
  if (!winner) {
    reasons.push(...step);
    for (const p of withCandidates) reasons.push(because('preempt/shortfall', `preemption (${p.standing}): ${explainShortfall(snap, p.candidates, p.ruleOf, p.over, ctx.viewer)}`));
    reasons.push(...problems.flatMap((p) => explainBlockingBorrowers(ctx, p).map((m) => because('preempt/blocking-borrower', m))));
    return undefined;
  }
  // SEMANTICS 3: a ceiling never makes a running job a victim. Each way's victims are
  // chosen as if there were none; a way whose set leaves a `max` exceeded once its victims
  // are gone and the job placed is closed, and the other way, on its own, may still win.
  const closed: Reason[] = [];
  let won: { problem: PreemptionProblem; victims: number[]; pods: PodPlacement[] } | undefined = { problem: winner, victims: res.victims, pods: res.pods };
  const overCeiling = unreliefedCeiling(ctx, winner, res.victims);
  if (overCeiling) {
    closed.push(because('preempt/over-max', ceilingClosesWay(ctx, winner.standing, res.victims, overCeiling)));
    won = undefined;
    const i = withCandidates.findIndex((p) => p !== winner);
    const other = i >= 0 ? res.alone?.[i] : undefined;
    if (other?.ok) {
      const p = withCandidates[i]!;
      const still = unreliefedCeiling(ctx, p, other.victims);
      if (still) closed.push(because('preempt/over-max', ceilingClosesWay(ctx, p.standing, other.victims, still)));
      else {
        // The set alone is known; its placement comes from asking that way alone (the same set).
        const alone = snap.kernel.selectVictims(ctx.req, [{ standing: p.standing, candidates: p.candidates, constraints: p.constraints }], p.order);
        if (alone.ok) won = { problem: p, victims: alone.victims, pods: alone.pods };
      }
    }
    if (!won) {
      reasons.push(...step, ...closed);
      return undefined;
    }
  }
  const { problem } = won;
  const victims = victimAnswers(snap, won.victims, problem.ruleOf, job.priority);
  const why = [
    ...(problem.over.length > 0
      ? problem.over.map((o) => because('quota/over-min', describeOverrun(snap, o)))
      : [because('placement/no-room', explainNoRoom(snap, ctx.req, ctx.pool.name, 'free GPUs'))]),
    // Ceilings the victims relieve too (they were not chosen for them).
    ...wayOf(ctx, problem).ceilings.map((o) => because('quota/over-max', `${describeOverrun(snap, o)}; with the victims gone it holds`)),
  ];
  return {
    query: ctx.query,
    job: job.name,
    quota: job.quota,
    decision: 'preempt',
    standing: problem.standing,
    placement: placementOf(snap, won.pods, ctx.req),
    victims,
    reasons: [
      ...step,
      ...closed,
      ...why,
      because(
        'preempt/victims',
        `preempting ${victims.length} job(s) (${formatGpu(victims.reduce((s, v) => s + v.gpus, 0))} GPUs, ${lostText(snap, victims, ctx.viewer)}) makes room${problem.standing === 'borrowing' ? `; the job runs borrowing through ${quota.parent}` : ''}`,
      ),
      ...withCandidates.flatMap((p, i) =>
        p === problem || closed.length > 0 ? [] : [because('preempt/other-way', `victim sets compete across the ways the job could run (SEMANTICS 5.3): ${otherWay(ctx, p, res.alone?.[i])}`)],
      ),
      ...victimOrderReason(ctx.pool),
    ],
    ...(isDefaultVictimOrder(ctx.pool.victimOrder) ? {} : { victimOrder: ctx.pool.victimOrder }),
  };
}

/**
 * What running the losing way would have taken: its own best set, or why none works.
 * `alone` is the kernel's answer for that way on its own, from the call that chose the
 * winner; without it (a kernel that did not give it), one more call asks.
 */
function otherWay(ctx: AnswerContext, p: PreemptionProblem, alone: AloneResult | undefined): string {
  const snap = ctx.snapshot;
  const res = alone ?? snap.kernel.selectVictims(ctx.req, [{ standing: p.standing, candidates: p.candidates, constraints: p.constraints }], p.order);
  if (!res.ok) return `running ${p.standing} instead, no set of its eligible jobs makes room (${explainShortfall(snap, p.candidates, p.ruleOf, p.over, ctx.viewer)}), so the set above is the only one`;
  const victims = victimAnswers(snap, res.victims, p.ruleOf, ctx.job.priority);
  const names = victims.map((v) => jobLabel(snap.job(snap.jobIndex.get(v.job)!), ctx.viewer)).join(', ');
  const over = unreliefedCeiling(ctx, p, res.victims);
  const ceiling = over ? `, but with them gone ${describeOverrun(snap, over)}, and a ceiling never makes a running job a victim` : '';
  return `running ${p.standing} instead would preempt ${names} (${formatGpu(victims.reduce((s, v) => s + v.gpus, 0))} GPUs, ${lostText(snap, victims, ctx.viewer)})${ceiling}; the set above wins, and the job's own standing would decide only an exact tie`;
}

/** The way a problem was built for. */
function wayOf(ctx: AnswerContext, p: PreemptionProblem): Way {
  return p.standing === 'in-quota' || !ctx.borrowing ? ctx.inQuota : ctx.borrowing;
}

/**
 * The first ceiling of the problem's way that `victims` (job indices) do not bring back
 * within its `max` once the job is placed (SEMANTICS 3, invariant 10), or undefined when
 * every ceiling holds. A victim relieves a ceiling when it counts in its usage.
 */
function unreliefedCeiling(ctx: AnswerContext, p: PreemptionProblem, victims: readonly number[]): Overrun | undefined {
  const snap = ctx.snapshot;
  const ceilings = wayOf(ctx, p).ceilings;
  if (ceilings.length === 0) return undefined;
  return ceilings.find((o) => {
    let relief = 0;
    for (const v of victims) {
      const j = snap.jobs[v]!;
      if (countsAtCeiling(snap.tree, j.standing, snap.index.jobQuota[v]!, o.quota)) relief += totalRequest(j)[RESOURCE_NAMES[o.resource]!];
    }
    return relief < o.deficit;
  });
}

/** Why a way's best victim set does not open it: a ceiling still over with the set gone, or nothing but a ceiling in its way. */
function ceilingClosesWay(ctx: AnswerContext, standing: Way['standing'], victims: readonly number[], o: Overrun): string {
  const snap = ctx.snapshot;
  const never = 'a ceiling never makes a running job a victim (SEMANTICS 3), so this way stays closed';
  if (victims.length === 0) return `preemption (${standing}): the job fits every guarantee and the pool, and only a ceiling stops it: ${describeOverrun(snap, o)}; ${never}`;
  const names = victims.map((v) => jobLabel(snap.job(v), ctx.viewer)).join(', ');
  return `preemption (${standing}): with its best victims (${names}) gone and the job placed, ${describeOverrun(snap, o)}; ${never}`;
}

/** When the pool sets its own victimOrder, the answer says that order chose the victims (SEMANTICS 5.3). */
function victimOrderReason(pool: Pool): Reason[] {
  if (isDefaultVictimOrder(pool.victimOrder)) return [];
  const src = pool.victimOrderSrc ? ` (${sourceText(pool.victimOrderSrc)})` : '';
  return [because('preempt/victim-order', `victims chosen by pool "${pool.name}"'s victimOrder${src}: ${pool.victimOrder.join(', ')}, first ${VICTIM_CRITERION_TEXT[pool.victimOrder[0]!]}`)];
}
