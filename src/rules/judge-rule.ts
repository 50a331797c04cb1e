/**
 * A rule judged once for every table it can fire in: its predicate (rule-predicate.ts),
 * its victim-only answer per victim combination, and a shape id equal for rules whose
 * conditions read alike. Thousands of rules (one selfPreemption per quota, say) have a
 * handful of shapes, so the answers are computed once per shape, not per rule.
 *
 * Its own room because it is per rule, where tabulate.ts is per table: nothing here
 * knows a preemptor class, and the tabulator reads only what this returns.
 */
import type { CompiledRule } from './compile-rules.js';
import { makeEngine } from './evaluate-rules.js';
import { victimCombos, type EligibilityFacts } from './facts.js';
import { rulePredicate, type RulePredicate } from './rule-predicate.js';
import { trieStep, type TrieNode } from './value-trie.js';

/** Between a victim-only shape and a mixed one (where a shape would go on with a fact's name). */
const MIXED_SHAPE = Symbol('mixed');

/** A rule's predicate and, per victim combination, its victim-only answer. */
export interface Judged {
  pred: RulePredicate;
  victimOk: Uint8Array;
  /** Equal for two rules whose victim-only and mixed conditions are the same text (rule-predicate.ts): they answer alike per victim. */
  shape: number;
}

/**
 * Facts for the preemptor `preemptorQuota` at `preemptorPriority`, every other fact a
 * placeholder the caller overwrites (or that the conditions it evaluates do not read).
 */
export function placeholderFacts(preemptorQuota: string, preemptorPriority: number): EligibilityFacts {
  return { preemptorQuota, preemptorPriority, relation: 'other', lender: '', victimPriority: 0, victimModule: 'DLC', victimStanding: 'idle' };
}

/** Judges a policy's rules, each once, sharing the answers of rules with the same shape. */
export class RuleJudge {
  /** Per rule: its predicate and victim-only answers (null when only the engine can evaluate it). */
  private readonly predicates = new Map<CompiledRule, Judged | null>();
  /**
   * Shapes (rule-predicate.ts): at the end of a victim-only shape its answers, and after
   * MIXED_SHAPE and the mixed shape an id. Thousands of rules have a handful of shapes;
   * a rule whose shape holds an object gets answers and an id of its own.
   */
  private readonly shapes: TrieNode<{ victimOk?: Uint8Array; shape?: number }> = {};
  private shapeCount = 0;
  /** An engine with no rules: its operator map judges every condition of the fast path. */
  private readonly operatorEngine = makeEngine([]);

  /** The rule's predicate and victim-only answers, made once per rule and shared by every table; null when only the engine can evaluate it. */
  judge(rule: CompiledRule): Judged | null {
    let p = this.predicates.get(rule);
    if (p === undefined) {
      const pred = rulePredicate(rule.rule, this.operatorEngine);
      if (pred) {
        let victimNode: TrieNode<{ victimOk?: Uint8Array; shape?: number }> | undefined;
        if (pred.victimShape) {
          victimNode = this.shapes;
          for (const step of pred.victimShape) victimNode = trieStep(victimNode, step);
        }
        let victimOk = victimNode?.value?.victimOk;
        if (!victimOk) {
          const combos = victimCombos();
          victimOk = new Uint8Array(combos.length);
          // The victim-only conditions do not read the other facts: any values serve here.
          const facts = placeholderFacts('', 0);
          for (let i = 0; i < combos.length; i++) {
            const c = combos[i]!;
            facts.victimPriority = c.victimPriority;
            facts.victimModule = c.victimModule;
            facts.victimStanding = c.victimStanding;
            victimOk[i] = pred.victimOnly(facts) ? 1 : 0;
          }
          if (victimNode) (victimNode.value ??= {}).victimOk = victimOk;
        }
        let shapeNode: TrieNode<{ victimOk?: Uint8Array; shape?: number }> | undefined;
        if (victimNode && pred.mixedShape) {
          shapeNode = trieStep(victimNode, MIXED_SHAPE);
          for (const step of pred.mixedShape) shapeNode = trieStep(shapeNode, step);
        }
        let shape = shapeNode?.value?.shape;
        if (shape === undefined) {
          shape = this.shapeCount++;
          if (shapeNode) (shapeNode.value ??= {}).shape = shape;
        }
        p = { pred, victimOk, shape };
      } else p = null;
      this.predicates.set(rule, p);
    }
    return p;
  }
}
