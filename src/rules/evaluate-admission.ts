/**
 * Running the admission rules on one submission with json-rules-engine: which caps
 * apply and which settings it breaks. The engine is built once per rule set.
 */
import type { Engine } from 'json-rules-engine';
import type { AdmissionFacts, AdmissionRule } from './compile-admission.js';
import { makeEngine } from './evaluate-rules.js';

/** What the admission rules say about one submission. */
export interface AdmissionVerdict {
  /** Caps that apply (the engine checks the numbers). */
  caps: AdmissionRule[];
  /** Settings the submission breaks: each is a reject. */
  violations: AdmissionRule[];
}

/**
 * Evaluates admission rules; build once with `new AdmissionEvaluator(rules)`. Every rule
 * is scoped to its workspace (compile-admission.ts), so a submission runs only its own
 * workspace's rules: one json-rules-engine per workspace, built on first use.
 */
export class AdmissionEvaluator {
  private readonly engines = new Map<string, { engine: Engine; rules: AdmissionRule[] }>();

  constructor(readonly rules: AdmissionRule[]) {}

  /** The caps that apply and the settings broken, each in rule order. */
  async evaluate(facts: AdmissionFacts): Promise<AdmissionVerdict> {
    const own = this.engineOf(facts.workspace);
    if (own.rules.length === 0) return { caps: [], violations: [] };
    const { events } = await own.engine.run({ ...facts });
    const fired = new Set(events.map((e) => (e.params as { rule: string }).rule));
    const hits = own.rules.filter((r) => fired.has(r.name));
    return { caps: hits.filter((r) => r.kind === 'cap'), violations: hits.filter((r) => r.kind !== 'cap') };
  }

  private engineOf(workspace: string): { engine: Engine; rules: AdmissionRule[] } {
    let own = this.engines.get(workspace);
    if (!own) {
      const rules = this.rules.filter((r) => r.workspace === workspace);
      own = { engine: makeEngine(rules), rules };
      this.engines.set(workspace, own);
    }
    return own;
  }
}
