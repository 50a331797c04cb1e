import { describe, expect, it } from 'vitest';
import { compileRules } from '../../../src/rules/compile-rules.js';
import { eligibleBy, makeEngine } from '../../../src/rules/evaluate-rules.js';
import type { EligibilityFacts } from '../../../src/rules/facts.js';
import { twoTeams } from '../../helpers/two-teams.js';

describe('eligibleBy', () => {
  const rules = compileRules(twoTeams().policy);
  const engine = makeEngine(rules);
  const facts = (over: Partial<EligibilityFacts>): EligibilityFacts => ({
    preemptorQuota: 'A',
    preemptorPriority: 7,
    preemptorTarget: 'in-quota',
    relation: 'sibling',
    lender: 'A',
    victimPriority: 2,
    victimModule: 'DLC',
    victimStanding: 'borrowing',
    ...over,
  });

  it('names the first rule by precedence among those that fire (SEMANTICS 6.5)', async () => {
    // A borrowing sibling at priority 2: A's reclaim and A's selfPreemption both fire; reclaim comes first.
    expect((await eligibleBy(engine, rules, facts({})))?.name).toBe('A/reclaim');
    expect((await eligibleBy(engine, rules, facts({ victimStanding: 'idle' })))?.name).toBe('reclaim/idle');
  });

  it('names none when no rule fires', async () => {
    expect(await eligibleBy(engine, rules, facts({ victimStanding: 'in-quota', victimPriority: 8 }))).toBeUndefined();
  });

  it('builds an engine that refuses facts it does not know of', async () => {
    await expect(makeEngine(rules).run({})).rejects.toThrow(/Undefined fact/);
  });
});
