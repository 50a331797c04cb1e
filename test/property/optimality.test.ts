/**
 * SEMANTICS 5.3 against the exact optimum (exhaustive search, verify/optimal-victims.ts)
 * on clusters of up to 12 nodes. The documented bound (docs/semantics.md): criterion 1
 * — the most important victim — is always optimal (gap 0), because the greedy pass
 * stops at the first feasible prefix of the sorted candidates and reprieve only removes
 * victims. Criteria 2-4 are heuristic; B4 (bench/b4-victim-quality.ts) measures their gap.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { preemptionProblem } from '../../src/engine/preemption-problem.js';
import { scenarioArbitrary, scenarioYaml } from '../../src/testing/index.js';
import { MAX_CANDIDATES, optimalVictims, victimSetCost } from '../../src/verify/optimal-victims.js';
import { openSession } from '../helpers/session.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 150);

describe('victim sets against the exact optimum', () => {
  it('always match the optimum on criterion 1 and are never cheaper than it (bound: 0 on criterion 1)', async () => {
    let compared = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary({ maxNodes: 12, flavours: ['full', 'big-gangs', 'all-idle', 'plain', 'extreme-priorities'] }), async (s) => {
        const session = openSession([{ path: 's.yaml', text: scenarioYaml(s) }]);
        const w = session.policy.whatIfs[0];
        const answer = await session.answer(w.name, w.submit);
        if (answer.decision !== 'preempt') return;
        const snap = session.snapshot!;
        const problem = await preemptionProblem(snap, session.tables, w.submit, answer.standing as 'in-quota' | 'borrowing');
        if (problem.candidates.length > MAX_CANDIDATES) return;
        const best = optimalVictims(snap.state, problem.req, problem.candidates, problem.constraints);
        expect(best, 'the engine preempted, so a feasible set exists').toBeDefined();
        const chosen = victimSetCost(snap.state, answer.victims.map((v) => snap.jobIndex.get(v.job)!));
        expect({ rank: chosen.rank, priority: chosen.priority }).toEqual({ rank: best!.cost.rank, priority: best!.cost.priority });
        expect(chosen.lostWork).toBeGreaterThanOrEqual(best!.cost.lostWork);
        compared++;
      }),
      { numRuns: RUNS },
    );
    // The property must not pass vacuously: some generated cases preempt.
    expect(compared).toBeGreaterThan(0);
  });
});
