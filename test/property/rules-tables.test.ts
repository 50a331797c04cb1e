/**
 * Invariant 9: the rules the YAML compiles to (run by json-rules-engine, all of them)
 * and the eligibility tables the engine reads agree on every input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MODULES } from '../../src/model/policy.js';
import { eligibleBy, makeEngine } from '../../src/rules/evaluate-rules.js';
import { EligibilityTables } from '../../src/rules/eligibility-table.js';
import { COMBOS_PER_RELATION, VICTIM_STANDINGS } from '../../src/rules/facts.js';
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
      // Classes tabulated first: rows and cell arrays they leave behind are reused by
      // later tables (eligibility-table.ts), so a wrongly shared row shows here.
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 1, max: 9 }), fc.constantFrom('in-quota' as const, 'borrowing' as const)), { maxLength: 24 }),
    );
    let fast = 0;
    await fc.assert(
      fc.asyncProperty(arb, async ([s, qPick, vPick, preemptorPriority, victimPriority, victimModule, victimStanding, target, before]) => {
        const session = openSession([{ path: 's.yaml', text: scenarioYaml(s) }]);
        const tree = session.tree;
        const n = tree.quotas.length;
        const classes = [...before.map(([bq, bp, bt]) => [bq % n, bp, bt] as const), [qPick % n, preemptorPriority, target] as const];
        for (const [cq, cp, ct] of classes) await session.tables.tableFor(cq, cp, ct);
        // Every table of this session came from the synchronous path, not the engine fallback.
        if (session.tables.fastTables === new Set(classes.map((c) => c.join('/'))).size) fast++;
        // Sharing never changes a table: each equals the one a fresh set of tables (nothing
        // cached from other classes) makes for its class, cell for cell.
        for (const [cq, cp, ct] of classes) {
          const shared = await session.tables.tableFor(cq, cp, ct);
          const alone = await new EligibilityTables(session.rules, tree).tableFor(cq, cp, ct);
          let differs: string | undefined;
          for (let v = 0; v < n && !differs; v++) {
            for (let c = 0; c < COMBOS_PER_RELATION; c++)
              if (shared.cellFor(v, c) !== alone.cellFor(v, c)) differs = `victim quota ${v}, combination ${c}: ${shared.cellFor(v, c)} vs ${alone.cellFor(v, c)}`;
          }
          expect(differs).toBeUndefined();
        }
        // The class drawn, and the last one tabulated before it (the likeliest to have left
        // a row behind for it), against every victim quota: one victim combination each.
        for (const [q, priority, tgt] of classes.slice(-2)) {
          const table = await session.tables.tableFor(q, priority, tgt);
          for (let k = 0; k < n; k++) {
            const v = (vPick + k) % n;
            const fromTable = table.lookup(v, victimPriority, victimModule, victimStanding);
            const relation = tree.relation(q, v);
            const lenderIdx = relation === 'sibling' || relation === 'lent' ? tree.lender(q, v) : -1;
            // The full rule set: which rules serve a borrowing target is the rules' own
            // condition on preemptorTarget (reclaim of a lent share serves only in-quota, SEMANTICS 5.1).
            const rules = session.rules;
            const fromRules = await eligibleBy(makeEngine(rules), rules, {
              preemptorQuota: tree.at(q).name,
              preemptorPriority: priority,
              preemptorTarget: tgt,
              relation,
              lender: lenderIdx >= 0 ? tree.at(lenderIdx).name : '',
              victimPriority,
              victimModule,
              victimStanding,
            });
            expect(fromTable?.name).toBe(fromRules?.name);
          }
        }
      }),
      { numRuns: RUNS },
    );
    // The tables must have come from the synchronous path (rules/rule-predicate.ts), not the engine fallback.
    expect(fast).toBe(RUNS);
  });
});
