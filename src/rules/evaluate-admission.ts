/**
 * Running the admission rules on one submission with json-rules-engine: which caps
 * apply and which settings it breaks. The engine is built once per rule set.
 */
import { Engine } from 'json-rules-engine';
import type { AdmissionFacts, AdmissionRule } from './compile-admission.js';

/** What the admission rules say about one submission. */
export interface AdmissionVerdict {
  /** Caps that apply (the engine checks the numbers). */
  caps: AdmissionRule[];
  /** Settings the submission breaks: each is a reject. */
  violations: AdmissionRule[];
}

/** Evaluates admission rules; build once with `new AdmissionEvaluator(rules)`. */
export class AdmissionEvaluator {
  private readonly engine: Engine;
  private readonly byName: Map<string, AdmissionRule>;

  constructor(readonly rules: AdmissionRule[]) {
    this.engine = new Engine([], { allowUndefinedFacts: false });
    for (const r of rules) this.engine.addRule(r.rule);
    this.byName = new Map(rules.map((r) => [r.name, r]));
  }

  /** The caps that apply and the settings broken, each in rule order. */
  async evaluate(facts: AdmissionFacts): Promise<AdmissionVerdict> {
    if (this.rules.length === 0) return { caps: [], violations: [] };
    const { events } = await this.engine.run({ ...facts });
    const fired = new Set(events.map((e) => (e.params as { rule: string }).rule));
    const hits = this.rules.filter((r) => fired.has(r.name) && this.byName.has(r.name));
    return { caps: hits.filter((r) => r.kind === 'cap'), violations: hits.filter((r) => r.kind !== 'cap') };
  }
}
