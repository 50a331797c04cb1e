import { describe, expect, it } from 'vitest';
import { explainVictim } from '../../../src/rules/explain-victim.js';
import { twoTeams } from '../../helpers/two-teams.js';

// The sentence is the behaviour here: it must state the facts and the clause that make the victim eligible.
describe('explainVictim', () => {
  const s = twoTeams();
  const rule = (name: string) => s.rules.find((r) => r.name === name)!;
  const job = (name: string) => s.snapshot!.jobs.find((j) => j.name === name)!;

  it('cites the self-level clause: the priority ranges, the modules and where the victim runs', () => {
    const text = explainVictim(s.policy, rule('A/selfPreemption'), job('a-low'), 7);
    expect(text).toBe("priority 2 is in lowPriority 1-5 and below 7, and DLC is in modules [DLC] of A's self-level preemption (highPriority 6-9); the job runs on A itself");
    expect(explainVictim(s.policy, rule('A/selfPreemption'), job('b-run'), 7)).toContain('on B, a same-level quota of A');
  });

  it('says an idle victim is reclaimed, and a borrower is taken back by its lender', () => {
    expect(explainVictim(s.policy, rule('reclaim/idle'), { ...job('b-run'), idleResources: 'only', standing: 'idle' }, 3)).toContain('runs on idle resources (idleResources: only)');
    expect(explainVictim(s.policy, rule('A/reclaim'), { ...job('b-run'), standing: 'borrowing' }, 3)).toContain('A takes back what it lent (reclaim: any)');
  });
});
