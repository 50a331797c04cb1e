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

/** The name of one eligibility fact. */
export type FactName = keyof EligibilityFacts;

/** The facts that describe the victim alone: conditions on them only are shared by every table. */
const VICTIM_FACTS: ReadonlySet<string> = new Set<FactName>(['victimPriority', 'victimModule', 'victimStanding']);
/** Every fact, in the order `mixedReads` lists them. */
const FACT_ORDER: readonly FactName[] = ['preemptorQuota', 'preemptorPriority', 'preemptorTarget', 'relation', 'lender', 'victimPriority', 'victimModule', 'victimStanding'];
const ALL_FACTS: ReadonlySet<string> = new Set<string>(FACT_ORDER);

/** One plain condition, bound to the engine's operator. */
interface Atom {
  fact: FactName;
  /** The operator's name, and the engine's operator it names. */
  opName: string;
  op: EngineOperator;
  /** A constant, or the name of the fact whose value is compared with. */
  value: unknown;
  valueFact?: FactName;
}

/**
 * A rule's conditions split by what they read, so a table evaluates each group only as
 * often as its inputs change: `victimOnly` atoms read the victim facts alone (one answer
 * per victim combination, whatever the preemptor), `key` atoms read no victim fact (one
 * answer per preemptor class and relation key), `mixed` atoms read both (per combination).
 * The rule fires exactly when all three hold: its conditions are one `all`.
 */
export interface RulePredicate {
  victimOnly: (facts: EligibilityFacts) => boolean;
  key: (facts: EligibilityFacts) => boolean;
  /** The key atoms that do not read `fact`: when they fail, `key` fails whatever `fact` is. */
  keyWithout: (facts: EligibilityFacts, fact: FactName) => boolean;
  mixed: (facts: EligibilityFacts) => boolean;
  /** True when some atom is mixed: `mixed` must then be evaluated per victim combination. */
  hasMixed: boolean;
  /**
   * The non-victim facts the mixed atoms read, in a fixed order. Given the victim
   * combination, `mixed` depends on nothing else: two evaluations with equal values of
   * these facts agree (eligibility-table.ts shares rows on it).
   */
  mixedReads: readonly FactName[];
  /** The non-victim facts the key and mixed atoms read, in a fixed order: the rule's answers depend on the victim and these alone. */
  reads: readonly FactName[];
  /** The facts the key atoms read, in a fixed order: `key` depends on these alone. */
  keyReads: readonly FactName[];
  /**
   * The victim-only atoms as a sequence of primitive values (fact, operator, constant,
   * with markers for arrays and fact references), or undefined when a constant is an
   * object: two rules whose sequences are equal element by element (SameValueZero) give
   * the same `victimOnly` answers, so tables compute them once per shape, not per rule.
   */
  victimShape?: readonly unknown[];
  /** The mixed atoms likewise: with equal `mixedReads` values, equal sequences give equal `mixed` answers. */
  mixedShape?: readonly unknown[];
}

function operatorsOf(engine: Engine): { get(name: string): EngineOperator | undefined } | undefined {
  const ops = (engine as unknown as { operators?: { get?: unknown } }).operators;
  return ops && typeof ops.get === 'function' ? (ops as { get(name: string): EngineOperator | undefined }) : undefined;
}

function test(atoms: Atom[], facts: EligibilityFacts, skip?: FactName): boolean {
  for (const a of atoms) {
    if (skip !== undefined && (a.fact === skip || a.valueFact === skip)) continue;
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
  const key: Atom[] = [];
  const mixed: Atom[] = [];
  const mixedReads = new Set<FactName>();
  const reads = new Set<FactName>();
  const keyReads = new Set<FactName>();
  for (const raw of conditions.all) {
    const c = raw as { fact?: unknown; operator?: unknown; value?: unknown; path?: unknown; params?: unknown };
    if (typeof c.fact !== 'string' || !ALL_FACTS.has(c.fact) || typeof c.operator !== 'string') return undefined;
    if (c.path !== undefined || c.params !== undefined) return undefined;
    for (const k in c) if (k !== 'fact' && k !== 'operator' && k !== 'value') return undefined;
    const op = operators.get(c.operator);
    if (!op) return undefined;
    let valueFact: FactName | undefined;
    if (c.value !== null && typeof c.value === 'object' && !Array.isArray(c.value)) {
      const ref = c.value as { fact?: unknown };
      if (typeof ref.fact !== 'string' || !ALL_FACTS.has(ref.fact) || Object.keys(ref).length !== 1) return undefined;
      valueFact = ref.fact as FactName;
    }
    const atom: Atom = { fact: c.fact as FactName, opName: c.operator, op, value: c.value, valueFact };
    const read = valueFact === undefined ? [atom.fact] : [atom.fact, valueFact];
    let victimReads = 0;
    for (const f of read) if (VICTIM_FACTS.has(f)) victimReads++;
    if (victimReads === read.length) victimOnly.push(atom);
    else if (victimReads === 0) {
      key.push(atom);
      for (const f of read) keyReads.add(f);
    } else {
      mixed.push(atom);
      for (const f of read) if (!VICTIM_FACTS.has(f)) mixedReads.add(f);
    }
    for (const f of read) if (!VICTIM_FACTS.has(f)) reads.add(f);
  }
  return {
    victimOnly: (facts) => test(victimOnly, facts),
    key: (facts) => test(key, facts),
    keyWithout: (facts, fact) => test(key, facts, fact),
    mixed: (facts) => test(mixed, facts),
    hasMixed: mixed.length > 0,
    mixedReads: FACT_ORDER.filter((f) => mixedReads.has(f)),
    reads: FACT_ORDER.filter((f) => reads.has(f)),
    keyReads: FACT_ORDER.filter((f) => keyReads.has(f)),
    victimShape: shapeOf(victimOnly),
    mixedShape: shapeOf(mixed),
  };
}

/** Marks in a shape sequence: never a constant of a JSON rule, so a sequence reads back one way. */
const ARRAY_START = Symbol('[');
const ARRAY_END = Symbol(']');
const FACT_REF = Symbol('fact');

/**
 * Atoms as one sequence: per atom its fact, its operator's name and its constant (a
 * primitive, or an array between marks) or FACT_REF and the fact compared with;
 * undefined when a constant holds an object.
 */
function shapeOf(atoms: Atom[]): unknown[] | undefined {
  const steps: unknown[] = [];
  const value = (v: unknown): boolean => {
    if (v === null || typeof v !== 'object') {
      steps.push(v);
      return true;
    }
    if (!Array.isArray(v)) return false;
    steps.push(ARRAY_START);
    for (const x of v) if (!value(x)) return false;
    steps.push(ARRAY_END);
    return true;
  };
  for (const a of atoms) {
    steps.push(a.fact, a.opName);
    if (a.valueFact !== undefined) steps.push(FACT_REF, a.valueFact);
    else if (!value(a.value)) return undefined;
  }
  return steps;
}
