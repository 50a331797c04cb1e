/**
 * The answer to a what-if: a stable JSON contract (docs/cli.md "JSON output",
 * schemas/whatif-report.json). Field names do not change without a new apiVersion; every
 * reason, note and victim carries a stable code (engine/reason-codes.ts) beside its sentence.
 * Also the two builders that turn kernel indices into its fields: the placement and the victims.
 */
import type { PodPlacement } from '../kernel/types.js';
import { lostGpuHours } from '../model/lost-work.js';
import type { QueueStrategy, Standing } from '../model/policy.js';
import type { VictimCriterion } from '../model/victim-order.js';
import type { CompiledRule } from '../rules/compile-rules.js';
import { explainVictim } from '../rules/explain-victim.js';
import type { Reason, ReasonCode } from './reason-codes.js';
import { maskToIndices, podsGpus, type Snapshot } from './snapshot.js';

export type { Reason, ReasonCode } from './reason-codes.js';

export type Decision = 'admit' | 'preempt' | 'wait' | 'reject';

export interface PodAnswer {
  pod: number;
  node: string;
  gpus: number[];
  /** GPU sharing: the pod's share of its one GPU in milli-GPUs (460 = 0.46 GPU); absent for whole GPUs. */
  gpuMilli?: number;
}

export interface VictimAnswer {
  job: string;
  quota: string;
  priority: number;
  module: string;
  standing: Standing;
  gpus: number;
  lostGpuHours: number;
  /** The rule that makes the job eligible, e.g. `Quota1/childPreemption`. */
  rule: string;
  /** file:line:col of the clause, or `built-in`. */
  source: string;
  /** Why it is eligible, as a code: `victim/<kind of rule>`. */
  code: ReasonCode;
  reason: string;
}

export interface Answer {
  /** The WhatIf's name (or `submit` for an ad-hoc job). */
  query: string;
  job: string;
  quota: string;
  decision: Decision;
  /** How the job would run; null when it would not run (wait, reject). */
  standing: Standing | null;
  placement: PodAnswer[];
  victims: VictimAnswer[];
  /** GPU-hours of work the victims lose in all (rounded to 0.01); 0 without victims. */
  lostGpuHours: number;
  /** Why, in the policy's terms, citing file:line:col. */
  reasons: Reason[];
  /**
   * The pool's victimOrder (SEMANTICS 5.3's criteria, first-deciding first) when it is
   * not the default and chose this answer's victims; absent otherwise.
   */
  victimOrder?: VictimCriterion[];
  /** What the answer did not check or assumed (e.g. no submitter: caps and membership unchecked). */
  notes: Reason[];
  /**
   * The queues at the snapshot time (SEMANTICS 8, engine/queue-answer.ts): the job's
   * place, the queued jobs served before it, the one that holds it. Absent when the
   * snapshot lists no queued job: the job is then first in its queue and nothing is
   * served before it.
   */
  queue?: QueueAnswer;
}

/** Where the job enters the queues at the snapshot time, and what serving the jobs ahead of it did. */
export interface QueueAnswer {
  /** 1 + the queued jobs of its quota its queue's strategy orders before it (1 = the next job the strategy tries). */
  position: number;
  /** Its quota's queue strategy. */
  strategy: QueueStrategy;
  /** The queued jobs (of every quota) served before it that can run, taken as started, in the order they were served. */
  started: QueuedStartAnswer[];
  /** The job ahead of it that cannot run and that its queue's strategy does not let it pass, with that job's own reasons; null when none holds it. */
  heldBy: (QueuedJobAnswer & { reasons: Reason[] }) | null;
}

/** A queued job as the asker may see it (SEMANTICS 10): in full, or anonymous usage. */
export type QueuedJobAnswer =
  | { job: string; quota: string; priority: number; gpus: number; submittedAt: string }
  | { job: string; hidden: true; workspace: string; quota: string; priorityBand: string; gpus: number; submittedAt: string };

/** A queued job taken as started before the asked one: how it runs and whom it preempts (as the asker may see them). */
export type QueuedStartAnswer = QueuedJobAnswer & { decision: 'admit' | 'preempt'; standing: Standing; victims: string[] };

/** The total lost GPU-hours of the victims that show one (a hidden victim does not), rounded to 0.01. */
export function totalLostGpuHours(victims: ReadonlyArray<VictimAnswer | { hidden: true }>): number {
  return Math.round(victims.reduce((s, v) => s + ('lostGpuHours' in v ? v.lostGpuHours : 0), 0) * 100) / 100;
}

/** The code of a victim's reason: the kind of rule that makes it eligible. */
const VICTIM_CODE: Record<CompiledRule['kind'], ReasonCode> = {
  'reclaim-idle': 'victim/reclaim-idle',
  'reclaim-borrowed': 'victim/reclaim-borrowed',
  self: 'victim/self-preemption',
  child: 'victim/child-preemption',
  // Who may run borrowing (SEMANTICS 5.2) makes no victim; here for the record's completeness.
  borrow: 'borrow/allowed',
};

/** The kernel's pod placements as the answer names them: node names, GPU indices, and a sharing pod's share. */
export function placementOf(snap: Snapshot, pods: PodPlacement[], req?: { milli?: number }): PodAnswer[] {
  const milli = req?.milli;
  return pods.map((p, i) => ({ pod: i, node: snap.cluster.nodes[p.node]!.name, gpus: maskToIndices(p.mask), ...(milli ? { gpuMilli: milli } : {}) }));
}

/** What every victim answer says of the job itself, whichever rules chose it (PAI's tables or Kueue's algorithm). */
export function victimJobFacts(snap: Snapshot, vi: number): Pick<VictimAnswer, 'job' | 'quota' | 'priority' | 'module' | 'standing' | 'gpus' | 'lostGpuHours'> {
  const v = snap.job(vi);
  return {
    job: v.name,
    quota: v.quota,
    priority: v.priority,
    module: v.module,
    standing: v.standing,
    // A victim's shares count as the fraction of a GPU they free (0.46), whole pods by their GPUs.
    gpus: podsGpus(snap.state.jobs[vi]!.pods),
    lostGpuHours: lostGpuHours(v, snap.cluster.at),
  };
}

/** The chosen victims (kernel job indices, in the kernel's order), each with its rule and why it is eligible. */
export function victimAnswers(snap: Snapshot, victims: number[], ruleOf: Map<number, CompiledRule>, preemptorPriority: number): VictimAnswer[] {
  return victims.map((vi) => {
    const v = snap.job(vi);
    const rule = ruleOf.get(vi)!;
    return {
      ...victimJobFacts(snap, vi),
      rule: rule.name,
      source: rule.source,
      code: VICTIM_CODE[rule.kind],
      reason: explainVictim(snap.policy, rule, v, preemptorPriority),
    };
  });
}
