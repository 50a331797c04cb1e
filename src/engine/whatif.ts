/**
 * Answering "what if this job were submitted now?" (SEMANTICS 3-5). The attempts, in
 * order, each tried only when the ones before it fail:
 *
 *   1. in quota, on free capacity                          → admit  (in-quota)
 *   2. borrowing a same-level quota's unused share (5.2)    → admit  (borrowing)
 *   3. in quota, preempting eligible jobs                   → preempt (in-quota)
 *   4. borrowing, preempting eligible jobs                  → preempt (borrowing)
 *   5. idleResources acceptable: idle capacity, no victims  → admit  (idle)
 *   otherwise wait; a job that no state of the cluster could ever run is rejected.
 *
 * Borrowing without victims (2) comes before preempting in quota (3) (ours): nobody
 * loses work, and the lender can always take its share back. An `only` job skips 1-4
 * and never preempts (invariant 5).
 */
import { LAYOUT } from '../kernel/layout.js';
import type { GangRequest } from '../kernel/types.js';
import type { JobSpec, Pool } from '../model/policy.js';
import { VICTIM_CRITERION_TEXT, isDefaultVictimOrder } from '../model/victim-order.js';
import { inRange } from '../model/priority.js';
import { sourceText } from '../model/source.js';
import type { EligibilityTables } from '../rules/eligibility-table.js';
import { explainVictim } from '../rules/explain-victim.js';
import { checkAdmission } from './admission.js';
import type { Answer, VictimAnswer } from './answer.js';
import type { Viewer } from './visibility.js';
import { preemptionProblem } from './preemption-problem.js';
import { gangRequest } from './gang.js';
import { modelRefusal } from './model-reasons.js';
import { describeNeverFits, describeOverrun, explainNoBorrowing, explainNoRoom, explainNoVictims, explainShortfall } from './reasons.js';
import { maskToIndices, popcount, type Snapshot } from './snapshot.js';
import { neverFits, overruns, totalRequest, type Overrun } from './usage.js';
import { lostGpuHours } from '../model/lost-work.js';
import { formatCpu, formatMemory } from '../model/resources.js';

/** What the engine needs to answer: the snapshot (with its loaded kernel) and the rules' tables. */
export interface EngineContext {
  snapshot: Snapshot;
  tables: EligibilityTables;
  /** Who is asking: sentences name only the jobs they may see (visibility.ts). */
  viewer?: Viewer;
}

/** Answers one submission. Never mutates the snapshot. */
export async function answerWhatIf(ctx: EngineContext, query: string, job: JobSpec): Promise<Answer> {
  const snap = ctx.snapshot;
  const base = { query, job: job.name, quota: job.quota };
  const wait = (reasons: string[]): Answer => ({ ...base, decision: 'wait', standing: null, placement: [], victims: [], reasons });
  const reject = (reasons: string[]): Answer => ({ ...base, decision: 'reject', standing: null, placement: [], victims: [], reasons });

  // SEMANTICS 10: access, per-module settings and resource caps come before any quota arithmetic.
  const admission = await checkAdmission(snap, job);
  if (admission.reject) return reject(admission.reject);

  const tree = snap.tree;
  const q = tree.indexOf(job.quota);
  const quota = tree.at(q);
  const pool = snap.poolOf(job.quota);
  const poolIdx = snap.poolIndexOf(job.quota);
  const req = gangRequest(job, poolIdx, pool, snap.modelsOf(job));
  const need = totalRequest(job);
  const kernel = snap.kernel;
  // A job asking only for models no node of the pool has can never run: the model is what blocks it.
  const noModel = modelRefusal(snap, job, pool.name);
  if (noModel) return reject([noModel]);

  const poolTooSmall = neverFitsPool(snap, req);
  if (poolTooSmall) return reject([`no placement of ${job.pods} pod(s) × ${job.resources.gpu} GPU could ever fit pool "${pool.name}", even with every node empty: ${poolTooSmall}`]);

  const placementOf = (pods: { node: number; mask: number }[]) => pods.map((p, i) => ({ pod: i, node: snap.cluster.nodes[p.node]!.name, gpus: maskToIndices(p.mask) }));
  // Idle capacity: free GPUs only, never a victim (invariant 5); the answer when they suffice.
  const idleRun = (why: string[]): Answer | undefined => {
    const res = kernel.place(req);
    return res.ok ? { ...base, decision: 'admit', standing: 'idle', placement: placementOf(res.pods), victims: [], reasons: why } : undefined;
  };

  if (job.idleResources === 'only') {
    const idle = idleRun(['idleResources: only: the job runs on idle capacity, outside every quota, and can be preempted whenever an owner needs it back']);
    if (idle) return idle;
    return wait([explainNoRoom(snap, req, pool.name, 'idle capacity'), 'a job on idle resources never preempts anything; it waits for free GPUs']);
  }

  // A full cap blocks every quota attempt; an `acceptable` job may still run idle.
  if (admission.blocked) {
    if (job.idleResources === 'acceptable') {
      const idle = idleRun([...admission.blocked, 'idleResources: acceptable: the cap keeps the job out of its quota, so it runs on idle capacity and can be preempted when an owner needs it back']);
      if (idle) return idle;
      return wait([...admission.blocked, `idle: ${explainNoRoom(snap, req, pool.name, 'idle capacity')}`]);
    }
    return wait([...admission.blocked, 'the job waits until jobs under this cap finish; idleResources is none, so it does not run on idle capacity']);
  }

  const reasons: string[] = [];
  const sp = quota.selfPreemption;
  const mayBorrow = quota.parent !== null && sp !== undefined && inRange(sp.highPriority, job.priority);
  const inQuotaOverruns = overruns(tree, snap.usage, q, need, 'in-quota');
  const borrowOverruns = mayBorrow ? overruns(tree, snap.usage, q, need, 'borrowing') : [];
  const inQuotaNever = neverFits(tree, q, need, 'in-quota');
  const borrowNever = mayBorrow ? neverFits(tree, q, need, 'borrowing') : [];

  // 1. In quota on free capacity.
  if (inQuotaOverruns.length === 0) {
    const res = kernel.place(req);
    if (res.ok) return { ...base, decision: 'admit', standing: 'in-quota', placement: placementOf(res.pods), victims: [], reasons: [`in quota: ${tree.pathNames(q).map((n) => describeHeadroom(snap, n, need.gpu)).join('; ')}`, ...admission.notes] };
    reasons.push(`in quota: ${explainNoRoom(snap, req, pool.name, 'free GPUs')}`);
  } else {
    reasons.push(...inQuotaOverruns.map((o) => `in quota: ${describeOverrun(snap, o)}`));
  }

  // 2. Borrowing a same-level quota's unused share, no victims.
  if (mayBorrow && borrowOverruns.length === 0 && inQuotaOverruns.length > 0) {
    const res = kernel.place(req);
    if (res.ok) {
      return {
        ...base,
        decision: 'admit',
        standing: 'borrowing',
        placement: placementOf(res.pods),
        victims: [],
        reasons: [
          ...inQuotaOverruns.map((o) => describeOverrun(snap, o)),
          `priority ${job.priority} is in highPriority of ${quota.name}'s selfPreemption (${sourceText(sp.src)}), so it borrows unused capacity under ${quota.parent} beyond its own guarantee; the quota it borrowed from can take it back when it needs it`,
        ],
      };
    }
  } else if (!mayBorrow && inQuotaOverruns.length > 0) {
    reasons.push(`borrowing: ${explainNoBorrowing(snap, q, job.priority)}`);
  } else if (mayBorrow && borrowOverruns.length > 0) {
    reasons.push(...borrowOverruns.map((o) => `borrowing: ${describeOverrun(snap, o)}`));
  }

  // 3 and 4. Preemption.
  const targets: Array<{ standing: 'in-quota' | 'borrowing'; never: Overrun[] }> = [{ standing: 'in-quota', never: inQuotaNever }];
  if (mayBorrow) targets.push({ standing: 'borrowing', never: borrowNever });
  let anyCandidates = false;
  let searched = false;
  for (const t of targets) {
    if (t.never.length > 0) continue;
    const problem = await preemptionProblem(snap, ctx.tables, job, t.standing);
    if (problem.constraints.length > LAYOUT.MAX_CONSTRAINTS) {
      reasons.push(`preemption (${t.standing}): ${problem.constraints.length} quotas and resources on the way to the root are over at once, more than the ${LAYOUT.MAX_CONSTRAINTS} the victim search takes; the job cannot be given victims`);
      searched = true;
      continue;
    }
    searched = true;
    const { candidates, ruleOf } = problem;
    if (candidates.length === 0) {
      if (t.standing === 'borrowing') reasons.push(`preemption (borrowing): no running job is eligible under ${quota.name}'s selfPreemption (${sourceText(sp!.src)})`);
      continue;
    }
    anyCandidates = true;
    const res = kernel.selectVictims(req, [{ standing: t.standing, candidates, constraints: problem.constraints }], problem.order);
    if (!res.ok) {
      reasons.push(`preemption (${t.standing}): ${explainShortfall(snap, candidates, ruleOf, problem.over, ctx.viewer)}`);
      continue;
    }
    const victims: VictimAnswer[] = res.victims.map((vi) => {
      const v = snap.job(vi);
      const rule = ruleOf.get(vi)!;
      return {
        job: v.name,
        quota: v.quota,
        priority: v.priority,
        module: v.module,
        standing: v.standing,
        gpus: snap.state.jobs[vi]!.pods.reduce((s, p) => s + popcount(p.mask), 0),
        lostGpuHours: lostGpuHours(v, snap.cluster.at),
        rule: rule.name,
        source: rule.source,
        reason: explainVictim(snap.policy, rule, v, job.priority),
      };
    });
    const why = problem.over.length > 0 ? problem.over.map((o) => describeOverrun(snap, o)) : [explainNoRoom(snap, req, pool.name, 'free GPUs')];
    return {
      ...base,
      decision: 'preempt',
      standing: t.standing,
      placement: placementOf(res.pods),
      victims,
      reasons: [...reasons.filter((r) => r.startsWith('preemption (')), ...why, `preempting ${victims.length} job(s) (${victims.reduce((s, v) => s + v.gpus, 0)} GPUs, ${lostText(snap, victims, ctx.viewer)}) makes room${t.standing === 'borrowing' ? `; the job runs borrowing through ${quota.parent}` : ''}`, ...victimOrderReason(pool)],
      ...(isDefaultVictimOrder(pool.victimOrder) ? {} : { victimOrder: pool.victimOrder }),
    };
  }
  if (!searched) {
    // Every target asks for more than some quota guarantees at all: no victim could help.
    const never = targets.flatMap((t) => t.never.slice(0, 1));
    reasons.push(`preemption: no preemption can help: ${never.map((o) => describeNeverFits(snap, o)).join('; ')}`);
  } else if (!anyCandidates) reasons.push(`preemption: ${explainNoVictims(snap, q, job)}`);

  // 5. Idle capacity for `acceptable` jobs.
  if (job.idleResources === 'acceptable') {
    const idle = idleRun([...reasons, 'idleResources: acceptable: the quota cannot run the job now, so it runs on idle capacity and can be preempted when an owner needs it back']);
    if (idle) return idle;
    reasons.push(`idle: ${explainNoRoom(snap, req, pool.name, 'idle capacity')}`);
  } else {
    reasons.push('idle: idleResources is none, so the job does not run on idle capacity');
  }

  const never = inQuotaNever.length > 0 && (!mayBorrow || borrowNever.length > 0) && job.idleResources === 'none';
  if (never) {
    return reject([...inQuotaNever.map((o) => `${describeNeverFits(snap, o)}; and the job may neither borrow nor run idle`)]);
  }
  return wait(reasons);
}

/**
 * The work the victims lose, as the asker may know it: with a viewer, only the victims
 * they can see are summed, so a total never reveals a hidden job's lost work.
 */
function lostText(snap: Snapshot, victims: VictimAnswer[], viewer: Viewer | undefined): string {
  const visible = viewer ? victims.filter((v) => viewer.canSee(snap.job(snap.jobIndex.get(v.job)!))) : victims;
  const lost = `${round2(visible.reduce((s, v) => s + v.lostGpuHours, 0))} GPU-hours of work lost`;
  return visible.length === victims.length ? lost : `${lost} by the jobs you can see`;
}

/** When the pool sets its own victimOrder, the answer says that order chose the victims (SEMANTICS 5.3). */
function victimOrderReason(pool: Pool): string[] {
  if (isDefaultVictimOrder(pool.victimOrder)) return [];
  const src = pool.victimOrderSrc ? ` (${sourceText(pool.victimOrderSrc)})` : '';
  return [`victims chosen by pool "${pool.name}"'s victimOrder${src}: ${pool.victimOrder.join(', ')}, first ${VICTIM_CRITERION_TEXT[pool.victimOrder[0]!]}`];
}

function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

function describeHeadroom(snap: Snapshot, name: string, needGpu: number): string {
  const i = snap.tree.indexOf(name);
  const q = snap.tree.at(i);
  return `${name} uses ${snap.usage[i]![0]} of ${q.min.gpu} GPUs, so the job's ${needGpu} fit`;
}

/**
 * Why the gang could not fit the pool even with every node empty — counted per
 * resource, so the sentence names the one that binds (GPUs, cpu or memory) — or
 * undefined when it could.
 */
function neverFitsPool(snap: Snapshot, req: GangRequest): string | undefined {
  let total = 0;
  const byGpu = { pods: 0, nodes: 0, gpus: 0 };
  let maxCpu = 0;
  let maxMem = 0;
  snap.cluster.nodes.forEach((node, i) => {
    if (snap.state.nodes[i]!.pool !== req.pool) return; // state.nodes parallels cluster.nodes
    // On an empty node every aligned block is free, so strict topology changes nothing here.
    const gpuFits = Math.floor(node.gpus / req.gpu);
    const cpuFits = req.cpu > 0 && node.cpu !== undefined ? Math.floor(node.cpu / req.cpu) : Infinity;
    const memFits = req.mem > 0 && node.memory !== undefined ? Math.floor(node.memory / req.mem) : Infinity;
    total += Math.min(gpuFits, cpuFits, memFits);
    byGpu.pods += gpuFits;
    byGpu.nodes++;
    byGpu.gpus += node.gpus;
    maxCpu = Math.max(maxCpu, node.cpu ?? Infinity);
    maxMem = Math.max(maxMem, node.memory ?? Infinity);
  });
  if (total >= req.pods) return undefined;
  if (byGpu.pods < req.pods) return `its ${byGpu.nodes} node(s) have ${byGpu.gpus} GPUs and room for only ${byGpu.pods} pod(s) of ${req.gpu} GPU${req.gpu === 1 ? '' : 's'}`;
  if (req.cpu > maxCpu) return `each pod asks for ${formatCpu(req.cpu)} cpu and no node has more than ${formatCpu(maxCpu)}`;
  if (req.mem > maxMem) return `each pod asks for ${formatMemory(req.mem)} of memory and no node has more than ${formatMemory(maxMem)}`;
  return `with their cpu and memory, the nodes have room for only ${total} of the ${req.pods} pods (GPUs alone would allow ${byGpu.pods})`;
}
