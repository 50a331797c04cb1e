/**
 * A generated scenario: policy documents (as the plain objects a YAML file holds), a
 * Cluster snapshot and one submission. It prints itself as runnable YAML, so a failing
 * property's counterexample can be saved and replayed with `quotient whatif`.
 */
import { toYaml } from '../policy/write/to-docs.js';

/** One YAML document as plain data. */
export type Doc = Record<string, unknown>;

export interface Scenario {
  docs: Doc[];
  /** Name of the WhatIf document among `docs`. */
  query: string;
}

/** The scenario as one multi-document YAML file. */
export function scenarioYaml(s: Scenario): string {
  return s.docs.map(toYaml).join('---\n');
}

/** Attaches fast-check's printing hook so counterexamples print as YAML. */
export function printable<T extends Scenario>(s: T): T {
  Object.defineProperty(s, Symbol.for('fast-check/toStringMethod'), {
    value: () => `\n# --- counterexample: save as case.yaml, then: quotient whatif case.yaml --query ${s.query}\n${scenarioYaml(s)}`,
    enumerable: false,
  });
  return s;
}
