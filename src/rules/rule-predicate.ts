/**
 * A compiled rule's conditions as a synchronous test over the eligibility facts, so that
 * tabulating a preemptor class costs microseconds instead of hundreds of asynchronous
 * json-rules-engine runs (B7: a 1,000-quota policy has ~9,000 classes).
 *
 * json-rules-engine stays the judge of what each condition means: every comparison is
 * made by the engine's own operator (`equal`, `in`, `lessThan`, …, looked up in the
 * engine's operator map), and a fact reference in `value` is read from the same facts.
 * Only the shape of the rules this project compiles is handled here — a top-level `all`
 * of plain conditions on flat facts (rules/compile-rules.ts writes nothing else); any
 * other shape yields no predicate and the table falls back to running the engine.
 * test/property/rules-tables.test.ts holds the tables to full engine runs (invariant 9).
 */
import type { Engine, RuleProperties } from 'json-rules-engine';
import type { EligibilityFacts } from './facts.js';

/** The engine's operator as json-rules-engine 7 keeps it in `engine.operators`. */
interface EngineOperator {
  evaluate(factValue: unknown, jsonValue: unknown): boolean;
}

type FactName = keyof EligibilityFacts;

/** The facts that describe the victim alone: conditions on them only are shared by every table. */
const VICTIM_FACTS: ReadonlySet<string> = new Set<FactName>(['victimPriority', 'victimModule', 'victimStanding']);
const ALL_FACTS: ReadonlySet<string> = new Set<FactName>(['preemptorQuota', 'preemptorPriority', 'relation', 'lender', 'victimPriority', 'victimModule', 'victimStanding']);

/** One plain condition, bound to the engine's operator. */
interface Atom {
  fact: FactName;
  op: EngineOperator;
  /** A constant, or the name of the fact whose value is compared with. */
  value: unknown;
  valueFact?: FactName;
}

/**
 * A rule's conditions split by what they read: `victimOnly` atoms depend on the victim
 * facts alone (one answer per victim combination, whatever the preemptor), `others` read
 * at least one preemptor or relation fact.
 */
export interface RulePredicate {
  victimOnly: (facts: EligibilityFacts) => boolean;
  others: (facts: EligibilityFacts) => boolean;
  /** True when `others` reads a victim fact too (it must then be evaluated per victim combination). */
  othersReadVictim: boolean;
}

function operatorsOf(engine: Engine): { get(name: string): EngineOperator | undefined } | undefined {
  const ops = (engine as unknown as { operators?: { get?: unknown } }).operators;
  return ops && typeof ops.get === 'function' ? (ops as { get(name: string): EngineOperator | undefined }) : undefined;
}

function test(atoms: Atom[], facts: EligibilityFacts): boolean {
  for (const a of atoms) {
    const v = a.valueFact === undefined ? a.value : facts[a.valueFact];
    if (!a.op.evaluate(facts[a.fact], v)) return false;
  }
  return true;
}

/**
 * The rule's conditions as a predicate evaluated with `engine`'s operators, or undefined
 * when the rule has a shape this fast path does not read (the caller then runs the engine).
 */
export function rulePredicate(rule: RuleProperties, engine: Engine): RulePredicate | undefined {
  const operators = operatorsOf(engine);
  const conditions = rule.conditions as { all?: unknown[]; any?: unknown; not?: unknown; condition?: unknown };
  if (!operators || !Array.isArray(conditions.all) || Object.keys(conditions).length !== 1) return undefined;
  const victimOnly: Atom[] = [];
  const others: Atom[] = [];
  let othersReadVictim = false;
  for (const raw of conditions.all) {
    const c = raw as { fact?: unknown; operator?: unknown; value?: unknown; path?: unknown; params?: unknown };
    if (typeof c.fact !== 'string' || !ALL_FACTS.has(c.fact) || typeof c.operator !== 'string') return undefined;
    if (c.path !== undefined || c.params !== undefined) return undefined;
    const keys = Object.keys(c).filter((k) => k !== 'fact' && k !== 'operator' && k !== 'value');
    if (keys.length) return undefined;
    const op = operators.get(c.operator);
    if (!op) return undefined;
    let valueFact: FactName | undefined;
    if (c.value !== null && typeof c.value === 'object' && !Array.isArray(c.value)) {
      const ref = c.value as { fact?: unknown };
      if (typeof ref.fact !== 'string' || !ALL_FACTS.has(ref.fact) || Object.keys(ref).length !== 1) return undefined;
      valueFact = ref.fact as FactName;
    }
    const atom: Atom = { fact: c.fact as FactName, op, value: c.value, valueFact };
    const readsOnlyVictim = VICTIM_FACTS.has(atom.fact) && (valueFact === undefined || VICTIM_FACTS.has(valueFact));
    if (readsOnlyVictim) victimOnly.push(atom);
    else {
      others.push(atom);
      if (VICTIM_FACTS.has(atom.fact) || (valueFact !== undefined && VICTIM_FACTS.has(valueFact))) othersReadVictim = true;
    }
  }
  return {
    victimOnly: (facts) => test(victimOnly, facts),
    others: (facts) => test(others, facts),
    othersReadVictim,
  };
}
