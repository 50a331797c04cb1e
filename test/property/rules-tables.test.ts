/**
 * Invariant 9: the rules the YAML compiles to (run by json-rules-engine, all of them)
 * and the eligibility tables the engine reads agree on every input.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MODULES } from '../../src/model/policy.js';
import { EligibilityTables } from '../../src/rules/eligibility-table.js';
import { COMBOS_PER_RELATION, VICTIM_STANDINGS } from '../../src/rules/facts.js';
import { scenarioArbitrary, scenarioYaml } from '../../src/testing/index.js';
import { openSession } from '../helpers/session.js';
import { ruleTables } from '../helpers/differential.js';

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
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(arb, async ([s, qPick, vPick, preemptorPriority, victimPriority, victimModule, victimStanding, target, before]) => {
        const session = openSession([{ path: 's.yaml', text: scenarioYaml(s) }]);
        const tree = session.tree;
        const n = tree.quotas.length;
        // The shared harness: every class tabulated by the predicates (its witness,
        // tables.fastTables), every lookup held to a full Engine.run of the rules.
        const twins = ruleTables(session.tables, session.rules, tree);
        const classes = [...before.map(([bq, bp, bt]) => [bq % n, bp, bt] as const), [qPick % n, preemptorPriority, target] as const];
        for (const [cq, cp, ct] of classes) await twins.table(cq, cp, ct);
        // Sharing never changes a table: each equals the one a fresh set of tables (nothing
        // cached from other classes) makes for its class, cell for cell.
        for (const [cq, cp, ct] of classes) {
          const shared = await twins.table(cq, cp, ct);
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
        // A borrowing target is served by reclaim of idle capacity but not by reclaim of a
        // lent share (SEMANTICS 4, 5.1): the rules' own preemptorTarget condition says so.
        for (const [q, priority, tgt] of classes.slice(-2)) {
          for (let k = 0; k < n; k++) await twins.lookup(q, priority, tgt, { quota: (vPick + k) % n, priority: victimPriority, module: victimModule, standing: victimStanding });
        }
        twins.expectAllFast();
        compared += twins.diff.compared;
      }),
      { numRuns: RUNS },
    );
    // Not vacuous: every run compared at least one victim quota per class drawn.
    expect(compared).toBeGreaterThanOrEqual(RUNS);
  });
});
