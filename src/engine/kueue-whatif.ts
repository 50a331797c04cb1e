/**
 * A what-if on a quota of a Kueue-rules tree (SEMANTICS 12): the same pipeline's answer
 * (whatif.ts calls this after admission, SEMANTICS 10, in place of PAI's steps 1-4),
 * decided by Kueue's algorithm on its state (rules/kueue):
 *
 *   1. flavor assignment: one flavor per resource group, tried in the ClusterQueue's order
 *      under its flavorFungibility                              → wait with Kueue's words
 *   2. fits the queue's quota on those flavors                  → admit
 *   3. otherwise Kueue's classic preemption chooses the victims  → preempt, or wait
 *
 * Pods are placed by the kernel on the nodes of the assigned flavors only (invariant 12:
 * no pod set straddles flavors). Kueue admits on quota alone; when the flavor's nodes have
 * no room for the pods, the answer says so (Kueue would reserve the quota and the pods would
 * stay pending).
 */
import type { KueuePreemptionClause } from '../model/kueue-policy.js';
import type { JobSpec, Pool, Quota } from '../model/policy.js';
import { formatGpu } from '../model/resources.js';
import { sourceText } from '../model/source.js';
import { assignFlavors, type FlavorAssignment } from '../rules/kueue/assign-flavors.js';
import { buildKueueState, podRequests, type BuiltKueueState } from '../rules/kueue/build-kueue-state.js';
import { CLASSIC_ALGORITHM, classicPreemption } from '../rules/kueue/classic-preemption.js';
import { FAIR_ALGORITHM, fairPreemption, shareText } from '../rules/kueue/fair-preemption.js';
import type { FlavorResource, KueuePreemptionReason, KueueState, KueueTarget } from '../rules/kueue/kueue-state.js';
import { KueueQuotaTree } from '../rules/kueue/quota-math.js';
import { placementOf, victimJobFacts, type Answer, type VictimAnswer } from './answer.js';
import { gangRequest } from './gang.js';
import { flavorMask } from './kueue-nodes.js';
import { because, type Reason, type ReasonCode } from './reason-codes.js';
import { podsGpus, type Snapshot } from './snapshot.js';

/** An answer before its totals and notes (whatif.ts adds them). */
export type KueueDecided = Omit<Answer, 'lostGpuHours' | 'notes'>;

/** The victim code of each of Kueue's reasons. */
const VICTIM_CODE: Record<KueuePreemptionReason, ReasonCode> = {
  InClusterQueue: 'victim/kueue-in-cluster-queue',
  InCohortReclamation: 'victim/kueue-in-cohort-reclamation',
  InCohortReclaimWhileBorrowing: 'victim/kueue-in-cohort-reclaim-while-borrowing',
  InCohortFairSharing: 'victim/kueue-in-cohort-fair-sharing',
};

/** The clause of the preemptor's ClusterQueue that allows each of Kueue's reasons. */
const CLAUSE: Record<KueuePreemptionReason, keyof Omit<KueuePreemptionClause, 'src'> | 'fairSharing'> = {
  InClusterQueue: 'withinClusterQueue',
  InCohortReclamation: 'reclaimWithinCohort',
  InCohortReclaimWhileBorrowing: 'borrowWithinCohort',
  InCohortFairSharing: 'fairSharing',
};

/** The pool's KueueState, built once per snapshot state. */
export function kueueStateOf(snap: Snapshot, pool: Pool): BuiltKueueState {
  return snap.memo(`kueue-state:${pool.name}`, () => buildKueueState({ pool, quotas: snap.policy.quotas, nodes: snap.cluster.nodes, jobs: snap.jobs }));
}

/** Decides a submission to a quota of a Kueue-rules tree. */
export function decideKueue(snap: Snapshot, query: string, job: JobSpec, admissionNotes: readonly Reason[]): KueueDecided {
  const quota = snap.tree.get(job.quota);
  const pool = snap.poolOf(job.quota);
  const base = { query, job: job.name, quota: job.quota };
  const wait = (reasons: Reason[]): KueueDecided => ({ ...base, decision: 'wait', standing: null, placement: [], victims: [], reasons });
  const clauses = quota.kueue!;
  if (clauses.kind !== 'ClusterQueue') {
    return {
      ...wait([]),
      decision: 'reject',
      reasons: [because('kueue/not-a-cluster-queue', `"${quota.name}" is a Cohort (it has children); a workload is submitted to a ClusterQueue: ${quota.children.join(', ')}`)],
    };
  }
  const { state, unmatched } = kueueStateOf(snap, pool);
  const notes: Reason[] = unmatched.map((u) =>
    because(
      'kueue/unmatched-node',
      `running job ${u.job} has a pod on node ${u.node}, which no flavor of its ClusterQueue's group for ${u.resources.join(', ')} matches; counted on the group's first flavor`,
    ),
  );
  const flavors = new Map((pool.flavors ?? []).map((f) => [f.name, f]));
  const perPod = podRequests(job, clauses.resourceGroups);
  const requests = new Map([...perPod].map(([r, v]) => [r, v * job.pods]));
  const at = snap.cluster.at;
  const fa = assignFlavors(state, quota.name, clauses, flavors, requests, { name: job.name, priority: job.priority, createdAt: at });
  const assigned = because('kueue/flavor-assigned', describeAssignment(fa));
  if (fa.mode === 'NoFit' || fa.mode === 'NoCandidates') {
    return wait([...notes, assigned, because('kueue/pending', `Kueue would show: ${fa.pending ?? 'the workload does not fit its ClusterQueue'} (${sourceText(quota.src)})`)]);
  }
  // The nodes of every assigned flavor (one per resource group): the pods may use only those.
  let mask = 0xffffffff;
  for (const g of fa.groups) if (g.flavor !== undefined) mask &= flavorMask(snap.models, g.flavor, job.gpuModels);
  const req = gangRequest(job, snap.poolIndexOf(job.quota), pool, mask >>> 0);
  const standing = fa.borrow ? 'borrowing' : 'in-quota';
  const flavorNames = fa.groups.map((g) => g.flavor).filter((f): f is string => f !== undefined);
  const noNodes = mask >>> 0 === 0;
  const nodeRoom = (what: string): Reason =>
    because(
      'kueue/no-node-room',
      noNodes
        ? `no node of the pool matches flavor ${flavorNames.join(' and ')}'s nodeLabels, so ${what} its pods have nowhere to run`
        : `${what} the nodes of flavor ${flavorNames.join(' and ')} have no room for its ${job.pods} pod(s) now; they would stay pending`,
    );

  if (fa.mode === 'Fit') {
    const fits = because('kueue/fits', `fits ClusterQueue ${quota.name} on ${flavorNames.join(', ')}${fa.borrow ? `, borrowing from cohort ${quota.parent}` : ''}`);
    const res = noNodes ? { ok: false as const, pods: [] } : snap.kernel.place(req);
    if (!res.ok) return wait([...notes, assigned, fits, nodeRoom('Kueue would admit it (the quota is there), but')]);
    return { ...base, decision: 'admit', standing, placement: placementOf(snap, res.pods, req), victims: [], reasons: [...notes, assigned, fits, ...admissionNotes] };
  }

  // Preempt: Kueue's fair-sharing preemption when the tree enables fair sharing (then
  // borrowWithinCohort is ignored, as in Kueue), its classic preemption otherwise.
  const preemptor = { workload: { name: job.name, clusterQueue: quota.name, priority: job.priority, createdAt: at, admittedAt: at, evicted: false, usage: fa.usage } };
  const result = state.fairSharing ? fairPreemption(state, preemptor, fa.needPreemption) : classicPreemption(state, preemptor, fa.needPreemption);
  const algorithm = because(
    'kueue/algorithm',
    state.fairSharing
      ? `victims chosen by Kueue's fair-sharing preemption (${FAIR_ALGORITHM}, strategies ${state.fairSharing.strategies.join(', ')}), not Quotient's minimal set`
      : `victims chosen by Kueue's classic preemption (${CLASSIC_ALGORITHM}), not Quotient's minimal set`,
  );
  if (result.targets.length === 0) {
    return wait([
      ...notes,
      assigned,
      because('kueue/pending', `Kueue would show: ${fa.pending ?? 'insufficient unused quota'}; ${result.why ?? 'no victims'} (${sourceText(clauses.preemption!.src)})`),
      algorithm,
    ]);
  }
  const victims = result.targets.map((t) => victimAnswer(snap, quota, t));
  const after = borrowsAfter(state, quota.name, fa.usage, result.targets);
  const indices = result.targets.map((t) => snap.jobIndex.get(t.workload)!);
  const placed = noNodes ? undefined : placeAfter(snap, req, indices, after);
  const why = [
    ...notes,
    assigned,
    because('kueue/pending', `Kueue would show before preempting: ${fa.pending ?? 'insufficient unused quota'}`),
    because('preempt/victims', `preempting ${victims.length} workload(s) (${formatGpu(victims.reduce((s, v) => s + v.gpus, 0))} GPUs) frees the quota on ${flavorNames.join(', ')}`),
    algorithm,
  ];
  if (!placed) why.push(nodeRoom('Kueue would evict them and admit it, but'));
  return { ...base, decision: 'preempt', standing: after, placement: placed ? placementOf(snap, placed, req) : [], victims, reasons: why };
}

/** The job's standing once its victims are gone: borrowing when it takes its queue over nominal on a flavor-resource (SEMANTICS 12). */
function borrowsAfter(state: KueueState, queue: string, usage: ReadonlyMap<FlavorResource, number>, targets: readonly KueueTarget[]): 'in-quota' | 'borrowing' {
  const tree = KueueQuotaTree.of(state);
  const ledger = tree.ledger();
  for (const t of targets) {
    const w = state.workloads.find((x) => x.name === t.workload);
    if (w) ledger.removeWorkload(w);
  }
  return [...usage].some(([fr, v]) => v > 0 && ledger.isBorrowing(queue, fr, v)) ? 'borrowing' : 'in-quota';
}

/** The kernel's placement with every victim gone (all of them: Kueue evicts its whole target list). */
function placeAfter(snap: Snapshot, req: ReturnType<typeof gangRequest>, victims: number[], standing: 'in-quota' | 'borrowing') {
  const jobs = victims.map((i) => snap.state.jobs[i]!);
  const gpus = jobs.reduce((s, j) => s + podsGpus(j.pods), 0);
  const cpu = jobs.reduce((s, j) => s + j.pods.reduce((t, p) => t + p.cpu, 0), 0);
  const mem = jobs.reduce((s, j) => s + j.pods.reduce((t, p) => t + p.mem, 0), 0);
  // One constraint per resource the victims hold, of their whole amount: only the whole list relieves it.
  const constraints = [...(gpus > 0 ? [{ resource: 0, deficit: gpus }] : []), ...(cpu > 0 ? [{ resource: 1, deficit: cpu }] : []), ...(mem > 0 ? [{ resource: 2, deficit: mem }] : [])];
  const mask = constraints.reduce((m, _c, k) => m | (1 << k), 0);
  const res = snap.kernel.selectVictims(req, [{ standing, candidates: victims.map((job) => ({ job, constraintMask: mask })), constraints }]);
  return res.ok && res.victims.length === victims.length ? res.pods : undefined;
}

function victimAnswer(snap: Snapshot, preemptorQueue: Quota, t: KueueTarget): VictimAnswer {
  const vi = snap.jobIndex.get(t.workload)!;
  const v = snap.job(vi);
  const clause = CLAUSE[t.reason];
  const p = preemptorQueue.kueue!.preemption!;
  const setting = clause === 'fairSharing' ? 'fair sharing' : clause === 'borrowWithinCohort' ? `borrowWithinCohort.policy: ${p.borrowWithinCohort.policy}` : `${clause}: ${p[clause]}`;
  return {
    ...victimJobFacts(snap, vi),
    rule: `${preemptorQueue.name}/preemption.${clause}`,
    source: sourceText(p.src),
    code: VICTIM_CODE[t.reason],
    reason: `${t.reason}: ${explainReason(t.reason, v.quota, v.priority, preemptorQueue.name)} (${setting}${
      t.fairness ? `; ${t.fairness.strategy}: share ${shareText(t.fairness.preemptorShare)} against ${t.fairness.targetQueue}'s ${shareText(t.fairness.targetShare)}` : ''
    })`,
  };
}

function explainReason(reason: KueuePreemptionReason, queue: string, priority: number, preemptorQueue: string): string {
  switch (reason) {
    case 'InClusterQueue':
      return `a workload of ${preemptorQueue} itself, priority ${priority}`;
    case 'InCohortReclamation':
      return `${queue} borrows from the cohort, and ${preemptorQueue} reclaims its nominal quota`;
    case 'InCohortReclaimWhileBorrowing':
      return `${queue} borrows, and ${preemptorQueue} preempts it while borrowing itself`;
    case 'InCohortFairSharing':
      return `${queue}'s share of the cohort is above ${preemptorQueue}'s`;
  }
}

/** The flavors the pod set got, and what each tried flavor was. */
function describeAssignment(fa: FlavorAssignment): string {
  return fa.groups
    .map((g) => {
      const tried = g.tried.map((t) => `${t.flavor} ${t.mode}${t.borrow ? ' (borrowing)' : ''}`).join(', ');
      return `${g.resources.join(', ')}: ${g.flavor ?? 'no flavor'}${tried ? ` (tried ${tried})` : ''}`;
    })
    .join('; ');
}
