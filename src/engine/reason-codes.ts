/**
 * The stable codes of answers' reasons, notes and victims: one table, the only home of
 * every code. A code never changes meaning; a new situation gets a new row (and its line
 * in docs/cli.md and in schemas/common.json's reasonCode enum, which
 * test/golden/reason-codes.test.ts checks against this table, as it checks that every
 * answer of the golden cases and shipped policies carries codes from it).
 * The sentence beside a code may be reworded at any time; scripts should match on codes.
 */

/** Every code, with what it means. Extend by adding a row. */
export const REASON_CODES = {
  // Admission (SEMANTICS 10): access, per-module settings, resource caps.
  'admission/access-denied': 'the submitter may not submit to this workspace or quota (membership, allowedRoles, allowedModules)',
  'admission/setting-violated': "the job breaks one of the workspace's per-module admission settings",
  'admission/cap-never-fits': 'the job alone asks for more than a resource cap allows at all',
  'admission/cap-full': 'a resource cap is full: with this job its subject would run more than the cap allows',
  'admission/cap-room': 'the strictest resource cap that applies, and the room it leaves',
  'admission/submitter-unknown': 'the job names no submittedBy: per-user and per-role caps and workspace membership were not checked',
  // Quota arithmetic (SEMANTICS 3, 5.2).
  'quota/fits': 'the job fits its quota and every ancestor',
  'quota/over-min': 'with the job, a quota on its path would use more than it guarantees',
  'quota/never-fits': 'the job alone asks for more than a quota on its path guarantees in all',
  'quota/over-max': 'with the job, a quota on its path would use more than its max (a ceiling), in quota and borrowing alike',
  'quota/never-fits-max': "the job alone asks for more than a quota on its path's max: it could never run in quota or borrowing",
  'borrow/allowed': "the job's priority lets it borrow a same-level quota's unused share (the quota's borrowing rule)",
  'borrow/not-allowed': "the job may not borrow (a root quota, no selfPreemption or borrowing.priority, or a priority outside the quota's borrowing rule)",
  'borrow/over-min': 'borrowing, a quota above the job would still use more than it guarantees',
  'borrow/no-room': 'every quota above the job has room for it to borrow, but the pool has no room for the gang right now',
  // Placement (SEMANTICS 5.4).
  'placement/no-room': 'the pool has no room for the gang right now (with its fragmentation)',
  'placement/never-fits-pool': 'no placement could ever fit the pool, even with every node empty',
  'placement/gpu-model': 'the GPU models the job asks for block it (no node of the pool has them, or too few of them are free)',
  'placement/indices-assigned': "some running jobs' GPU indices were assigned by Quotient (the snapshot gave a node and a GPU count only)",
  // Preemption (SEMANTICS 4, 5.3).
  'preempt/victims': 'preempting the listed victims makes room',
  'preempt/no-candidates': 'no running job may be preempted for this job',
  'preempt/shortfall': 'even every eligible job preempted would not let the job in',
  'preempt/blocking-borrower': 'a borrower that no rule lets the job preempt fills a quota the job needs room in (the rule that would have to allow it is named)',
  'preempt/other-way': 'the victim set another way of running (in quota or borrowing) would have needed, and why the chosen set wins',
  'preempt/cannot-help': 'the job asks for more than a quota guarantees at all, so no preemption can help',
  'preempt/victim-order': "the pool's victimOrder (not the default) chose the victims",
  'preempt/too-many-constraints': 'more quotas and resources are over at once than the victim search takes',
  'preempt/over-max': 'with the best victims of a way gone, a ceiling on the path would still be exceeded: a ceiling never makes a running job a victim, so that way is closed',
  // Idle capacity (SEMANTICS 5.5, invariant 5).
  'idle/runs-idle': 'the job runs on idle capacity, outside every quota, and can be preempted when an owner needs it back',
  'idle/no-room': 'there is not enough idle capacity for the job',
  'idle/never-preempts': 'a job on idle resources never preempts anything',
  'idle/not-accepted': 'idleResources is none, so the job does not run on idle capacity',
  // Queues at one instant (SEMANTICS 8).
  'queue/held':
    "a job ahead in the job's queue cannot run now and the queue's strategy does not let the job pass it (fifo's head, the last job of balance's window, a job of intelligent's FIFO class): the job waits behind it",
  'queue/served-first': 'queued jobs submitted before this one were served first and those that can run were taken as started: the answer is on what they leave',
  // Input that came from elsewhere.
  'interop/pai-request': 'a note on how a PAI CreateJob request was read',
  'interop/kubernetes-manifest': 'a note on how a Kubernetes manifest (a Job, PyTorchJob, Kueue Workload…) was read',
  // Quota scaling (SEMANTICS 9): the reasons of a ScaleQuota answer, and each job whose standing changes.
  'scale/min-set': "a quota's min is set to a new value (and what its parent's children then guarantee in all)",
  'scale/jobs-turn-borrowing': "a shrunk quota's jobs use more than its new min: the fewest of its newest lowest-priority jobs that cover the excess turn borrowing",
  'scale/jobs-return-in-quota': "a quota's new min has room for some of its borrowing jobs: they return in quota",
  'scale/jobs-stay-borrowing': "a quota's new min has no room for its borrowing jobs: they stay borrowing",
  'scale/no-change': 'no running job changes standing: every quota still covers the jobs it holds in quota',
  'scale/job-turns-borrowing': "the job now runs borrowing (reclaimable by its quota's siblings): its quota's min dropped below what its jobs use",
  'scale/job-returns-in-quota': "the job runs in quota again: its quota's new min has room for it",
  // Kueue's rules (SEMANTICS 12).
  'kueue/not-a-cluster-queue': "under Kueue's rules the job names a Cohort (a quota with children); workloads are submitted to ClusterQueues",
  'kueue/flavor-assigned': "the flavor Kueue assigns the job's pod set in each resource group, and how each flavor tried fared (Fit, Preempt, NoCandidates, NoFit)",
  'kueue/fits': "the job fits its ClusterQueue's quota on the assigned flavors (and whether it borrows from its cohort)",
  'kueue/pending': 'the reason Kueue would show for a workload that does not fit now',
  'kueue/algorithm': "Kueue's algorithm (classic or fair-sharing preemption) chose the victims, not Quotient's minimal set",
  'kueue/no-node-room': "Kueue admits on quota, but the assigned flavor's nodes have no room for the pods (or no node matches the flavor)",
  'kueue/unmatched-node': 'a running job has a pod on a node no flavor of its ClusterQueue matches: its usage is counted on the first flavor of the group',
  // Victims: why each one is eligible, by the kind of rule.
  'victim/reclaim-idle': 'the victim runs on idle capacity, which any job running on quota reclaims',
  'victim/reclaim-borrowed': "the victim borrows a share that the job's quota path lent and may take back",
  'victim/self-preemption': "the victim is eligible under the job's quota's selfPreemption clause",
  'victim/child-preemption': 'the victim is eligible under a childPreemption clause above it',
  'victim/kueue-in-cluster-queue': "Kueue's InClusterQueue: a workload of the job's own ClusterQueue, allowed by withinClusterQueue",
  'victim/kueue-in-cohort-reclamation': "Kueue's InCohortReclamation: a borrowing workload of another ClusterQueue of the cohort, allowed by reclaimWithinCohort",
  'victim/kueue-in-cohort-reclaim-while-borrowing': "Kueue's InCohortReclaimWhileBorrowing: taken while the job borrows, allowed by borrowWithinCohort",
  'victim/kueue-in-cohort-fair-sharing': "Kueue's InCohortFairSharing: chosen by fair sharing's share comparison",
} as const;

/** A stable reason code (see REASON_CODES). */
export type ReasonCode = keyof typeof REASON_CODES;

/** A reason, note or victim explanation: a stable code beside a sentence for people. */
export interface Reason {
  code: ReasonCode;
  message: string;
}

/** Builds a reason. */
export function because(code: ReasonCode, message: string): Reason {
  return { code, message };
}
