/**
 * The answer to a what-if: a stable JSON contract (docs/policy-format.md). Field names
 * do not change without a version bump. Also the two builders that turn kernel indices
 * into its fields: the placement and the victims.
 */
import type { PodPlacement } from '../kernel/types.js';
import { lostGpuHours } from '../model/lost-work.js';
import type { Standing } from '../model/policy.js';
import type { VictimCriterion } from '../model/victim-order.js';
import type { CompiledRule } from '../rules/compile-rules.js';
import { explainVictim } from '../rules/explain-victim.js';
import { maskToIndices, popcount, type Snapshot } from './snapshot.js';

export type Decision = 'admit' | 'preempt' | 'wait' | 'reject';

export interface PodAnswer {
  pod: number;
  node: string;
  gpus: number[];
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
  /** Why, in the policy's terms, citing file:line:col. */
  reasons: string[];
  /**
   * The pool's victimOrder (SEMANTICS 5.3's criteria, first-deciding first) when it is
   * not the default and chose this answer's victims; absent otherwise.
   */
  victimOrder?: VictimCriterion[];
}

/** The kernel's pod placements as the answer names them: node names and GPU indices. */
export function placementOf(snap: Snapshot, pods: PodPlacement[]): PodAnswer[] {
  return pods.map((p, i) => ({ pod: i, node: snap.cluster.nodes[p.node]!.name, gpus: maskToIndices(p.mask) }));
}

/** The chosen victims (kernel job indices, in the kernel's order), each with its rule and why it is eligible. */
export function victimAnswers(snap: Snapshot, victims: number[], ruleOf: Map<number, CompiledRule>, preemptorPriority: number): VictimAnswer[] {
  return victims.map((vi) => {
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
      reason: explainVictim(snap.policy, rule, v, preemptorPriority),
    };
  });
}
