/**
 * The facts a preemption rule looks at, and their small discrete space. Eligibility
 * depends only on these, so the rules can be run once per preemptor class over every
 * combination and stored as a table (ARCHITECTURE.md, "Why rules and a kernel").
 */
import { MODULES, type Module, type Standing } from '../model/policy.js';
import type { Relation } from '../model/quota-tree.js';

/** The victim standings preemption can touch (spot jobs are outside quota preemption). */
export const VICTIM_STANDINGS: readonly Standing[] = ['idle', 'borrowing', 'in-quota'];
export const PRIORITIES = [1, 2, 3, 4, 5, 6, 7, 8, 9] as const;

/**
 * The standing a preemptor would run in. Reclaim of idle capacity serves both (SEMANTICS
 * 4: every job that runs on quota); reclaim of a lent share serves only `in-quota`.
 */
export type PreemptorTarget = 'in-quota' | 'borrowing';

/**
 * A preemptor's facts with placeholder victim facts (an idle priority-`victimPriority` DLC
 * job of an unrelated quota): the start of every table's scratch facts, which overwrite
 * the victim's as they go. One literal, so every scratch object has one shape.
 */
export function preemptorFacts(preemptorQuota: string, preemptorPriority: number, preemptorTarget: PreemptorTarget, victimPriority = 0): EligibilityFacts {
  return { preemptorQuota, preemptorPriority, preemptorTarget, relation: 'other', lender: '', victimPriority, victimModule: 'DLC', victimStanding: 'idle' };
}

/** One evaluation's facts, flat so that json-rules-engine needs no JSONPath. */
export interface EligibilityFacts {
  /** Preemptor's quota name. */
  preemptorQuota: string;
  preemptorPriority: number;
  /** The standing the preemptor would run in once its victims are gone (one table per target). */
  preemptorTarget: PreemptorTarget;
  /** Victim quota's relation to the preemptor's (see QuotaTree.relation). */
  relation: Relation;
  /** For relation sibling or lent: the quota on the preemptor's path that lent; else ''. */
  lender: string;
  victimPriority: number;
  victimModule: Module;
  victimStanding: Standing;
}

/** A (relation, lender) pair: the part of the victim facts that depends on its quota. */
export interface RelationKey {
  relation: Relation;
  lender: string;
}

/** The victim facts of one combination. */
export interface VictimCombo {
  readonly victimPriority: number;
  readonly victimModule: Module;
  readonly victimStanding: Standing;
}

const COMBOS: readonly VictimCombo[] = Object.freeze(
  PRIORITIES.flatMap((victimPriority) => MODULES.flatMap((victimModule) => VICTIM_STANDINGS.map((victimStanding) => Object.freeze({ victimPriority, victimModule, victimStanding })))),
);

/** Every victim fact combination for one (relation, lender), in table order (one frozen list, made once). */
export function victimCombos(): readonly VictimCombo[] {
  return COMBOS;
}

/** Index of a victim combination within a relation block of the table. */
export function comboIndex(priority: number, module: Module, standing: Standing): number {
  return ((priority - 1) * MODULES.length + MODULES.indexOf(module)) * VICTIM_STANDINGS.length + VICTIM_STANDINGS.indexOf(standing);
}

export const COMBOS_PER_RELATION = PRIORITIES.length * MODULES.length * VICTIM_STANDINGS.length;
