/**
 * Running the compiled rules with json-rules-engine: the readable source of truth that
 * the tables are made from (and that invariant 9's property test compares them with).
 */
import { createRequire } from 'node:module';
import type { Engine, RuleProperties } from 'json-rules-engine';
import type { CompiledRule } from './compile-rules.js';
import type { EligibilityFacts } from './facts.js';

let engineClass: typeof Engine | undefined;

/**
 * A json-rules-engine Engine (none of whose rules fire on undefined facts) over these rules.
 * The library loads on the first engine, not with this module: a command that builds no
 * table (`check`, `--version`) never pays for it.
 */
export function makeEngine(rules: readonly { rule: RuleProperties }[]): Engine {
  engineClass ??= (createRequire(import.meta.url)('json-rules-engine') as { Engine: typeof Engine }).Engine;
  const engine = new engineClass([], { allowUndefinedFacts: false });
  for (const r of rules) engine.addRule(r.rule);
  return engine;
}

/**
 * The rule that makes a victim eligible under these facts — the first by precedence
 * (CompiledRule.order, then name) among the rules that fire — or undefined. Only
 * `eligible` events count: a `borrow` rule (who may run borrowing) makes no victim.
 */
export async function eligibleBy(engine: Engine, rules: CompiledRule[], facts: EligibilityFacts): Promise<CompiledRule | undefined> {
  const { events } = await engine.run({ ...facts });
  let best: CompiledRule | undefined;
  for (const ev of events) {
    if (ev.type !== 'eligible') continue;
    const name = (ev.params as { rule: string }).rule;
    const rule = rules.find((r) => r.name === name);
    if (rule && (!best || rule.order < best.order || (rule.order === best.order && rule.name < best.name))) best = rule;
  }
  return best;
}
