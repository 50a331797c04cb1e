/**
 * SEMANTICS 5.3 against the exact optimum, judged by an oracle that shares no code with
 * the engine or the kernel (verify/optimal-victims.ts: its own placement count, its own
 * cost). Up to `CRITERIA.EXACT_LIMIT` deciding candidates the kernel searches exactly, so
 * on every case the oracle can take (at most MAX_CANDIDATES = EXACT_LIMIT candidates)
 * the chosen set must be the optimum itself, on all five criteria and the name
 * tie-break, and minimal (invariant 4).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { preemptionProblem } from '../../src/engine/preemption-problem.js';
import { CRITERIA } from '../../src/kernel/victim-order.js';
import { scenarioArbitrary, scenarioYaml } from '../../src/testing/index.js';
import { MAX_CANDIDATES, isMinimalSet, optimalVictims } from '../../src/verify/optimal-victims.js';
import { openSession } from '../helpers/session.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 150);

describe('victim sets against the exact optimum', () => {
  it('the oracle takes every case the kernel must solve exactly', () => {
    expect(MAX_CANDIDATES).toBeLessThanOrEqual(CRITERIA.EXACT_LIMIT);
  });

  it('are the optimum of the full order and minimal, on every preempting answer with few candidates', async () => {
    let compared = 0;
    let nonTrivial = 0;
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary({ maxNodes: 12, flavours: ['full', 'big-gangs', 'all-idle', 'plain', 'extreme-priorities'] }), async (s) => {
        const session = openSession([{ path: 's.yaml', text: scenarioYaml(s) }]);
        const w = session.policy.whatIfs[0]!;
        const answer = await session.answerJob(w.name, w.submit);
        if (answer.decision !== 'preempt') return;
        const snap = session.snapshot!;
        const standing = answer.standing as 'in-quota' | 'borrowing';
        const problem = await preemptionProblem(snap, session.tables, w.submit, standing);
        if (problem.candidates.length > MAX_CANDIDATES) return;
        const alt = { standing, candidates: problem.candidates, constraints: problem.constraints };
        const best = optimalVictims(snap.state, problem.req, [alt]);
        expect(best, 'the engine preempted, so a feasible set exists').toBeDefined();
        const chosen = answer.victims.map((v) => snap.jobIndex.get(v.job)!).sort((a, b) => a - b);
        expect(chosen).toEqual(best!.jobs);
        expect(isMinimalSet(snap.state, problem.req, alt, chosen)).toBe(true);
        compared++;
        // A case where the greedy's first feasible prefix is not already the only choice.
        if (problem.candidates.length > chosen.length + 1) nonTrivial++;
      }),
      { numRuns: RUNS },
    );
    // The property must not pass vacuously: enough generated cases preempt with a real choice.
    expect(compared).toBeGreaterThanOrEqual(Math.ceil(RUNS / 30));
    expect(nonTrivial).toBeGreaterThanOrEqual(Math.ceil(RUNS / 60));
  });
});
