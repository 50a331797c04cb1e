/**
 * The answer to a what-if: a stable JSON contract (docs/policy-format.md). Field names
 * do not change without a version bump.
 */
import type { Standing } from '../model/policy.js';
import type { VictimCriterion } from '../model/victim-order.js';

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
