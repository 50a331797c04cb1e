/**
 * Invariant 9: the rules the YAML compiles to (run by json-rules-engine, all of them)
 * and the eligibility tables the engine reads agree on every input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MODULES } from '../../src/model/policy.js';
import { eligibleBy, makeEngine } from '../../src/rules/evaluate-rules.js';
import { VICTIM_STANDINGS } from '../../src/rules/facts.js';
import { scenarioArbitrary, scenarioYaml } from '../../src/testing/index.js';
import { openSession } from '../helpers/session.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 150);

describe('eligibility tables (invariant 9)', () => {
  it('agree with the full rule set for every preemptor class, target standing and victim', async () => {
    const arb = fc.tuple(
      scenarioArbitrary({ maxQuotas: 7, maxJobs: 0 }),
      fc.nat(),
      fc.nat(),
      fc.integer({ min: 1, max: 9 }),
      fc.integer({ min: 1, max: 9 }),
      fc.constantFrom(...MODULES),
      fc.constantFrom(...VICTIM_STANDINGS),
      fc.constantFrom('in-quota' as const, 'borrowing' as const),
    );
    let fast = 0;
    await fc.assert(
      fc.asyncProperty(arb, async ([s, qPick, vPick, preemptorPriority, victimPriority, victimModule, victimStanding, target]) => {
        const session = openSession([{ path: 's.yaml', text: scenarioYaml(s) }]);
        const tree = session.tree;
        const q = qPick % tree.quotas.length;
        const v = vPick % tree.quotas.length;
        const table = await session.tables.tableFor(q, preemptorPriority, target);
        fast += session.tables.fastTables;
        const fromTable = table.lookup(v, victimPriority, victimModule, victimStanding);
        const relation = tree.relation(q, v);
        const lenderIdx = relation === 'sibling' || relation === 'lent' ? tree.lender(q, v) : -1;
        // The full rule set; a borrowing target is served by reclaim of idle capacity but
        // not by reclaim of a lent share (SEMANTICS 4, 5.1).
        const rules = target === 'in-quota' ? session.rules : session.rules.filter((r) => r.kind !== 'reclaim-borrowed');
        const fromRules = await eligibleBy(makeEngine(rules), rules, {
          preemptorQuota: tree.at(q).name,
          preemptorPriority,
          relation,
          lender: lenderIdx >= 0 ? tree.at(lenderIdx).name : '',
          victimPriority,
          victimModule,
          victimStanding,
        });
        expect(fromTable?.name).toBe(fromRules?.name);
      }),
      { numRuns: RUNS },
    );
    // The tables must have come from the synchronous path (rules/rule-predicate.ts), not the engine fallback.
    expect(fast).toBe(RUNS);
  });
});
