import { describe, expect, it } from 'vitest';
import { compileRules, modulesText } from '../../../src/rules/compile-rules.js';
import { makeEngine } from '../../../src/rules/evaluate-rules.js';
import type { EligibilityFacts } from '../../../src/rules/facts.js';
import { twoTeams } from '../../helpers/two-teams.js';

describe('compileRules', () => {
  const s = twoTeams();
  const rules = compileRules(s.policy);
  const fired = async (facts: Partial<EligibilityFacts>) => {
    const { events } = await makeEngine(rules).run({
      preemptorQuota: 'A',
      preemptorPriority: 7,
      preemptorTarget: 'in-quota',
      relation: 'self',
      lender: '',
      victimPriority: 2,
      victimModule: 'DLC',
      victimStanding: 'in-quota',
      ...facts,
    });
    // Victim rules only: a `borrow` rule (who may run borrowing) fires on the preemptor alone.
    return events.filter((e) => e.type === 'eligible').map((e) => (e.params as { rule: string }).rule);
  };

  it('compiles reclaim of idle capacity, each lender’s reclaim and each clause into one named rule with its source', () => {
    expect(rules.map((r) => [r.name, r.kind])).toEqual([
      ['reclaim/idle', 'reclaim-idle'],
      ['A/reclaim', 'reclaim-borrowed'],
      ['B/reclaim', 'reclaim-borrowed'],
      ['A/selfPreemption', 'self'],
      ['A/borrowing', 'borrow'],
    ]);
    expect(rules[0]!.source).toBe('built-in');
    expect(rules.find((r) => r.name === 'A/selfPreemption')!.source).toMatch(/^test\.yaml:\d+:\d+$/);
    expect(rules.every((r) => r.summary.length > 20)).toBe(true);
  });

  it('lets self-level preemption take a lower priority in its range and modules, never an equal one (SEMANTICS 5)', async () => {
    expect(await fired({})).toEqual(['A/selfPreemption']);
    expect(await fired({ victimPriority: 7, preemptorPriority: 7 })).toEqual([]);
    expect(await fired({ victimModule: 'DSW' })).toEqual([]);
    expect(await fired({ preemptorPriority: 5 })).toEqual([]);
  });

  it('reclaims idle jobs for anyone and a lent share for its lender', async () => {
    expect(await fired({ victimStanding: 'idle', preemptorQuota: 'B', relation: 'other' })).toEqual(['reclaim/idle']);
    expect(await fired({ preemptorQuota: 'B', relation: 'sibling', lender: 'B', victimStanding: 'borrowing', victimPriority: 9 })).toEqual(['B/reclaim']);
    // SEMANTICS 5.1: only a preemptor that will run in quota takes back a lent share.
    expect(await fired({ preemptorQuota: 'B', preemptorTarget: 'borrowing', relation: 'sibling', lender: 'B', victimStanding: 'borrowing', victimPriority: 9 })).toEqual([]);
  });

  it('writes module lists as people read them', () => {
    expect(modulesText(['DLC'])).toBe('DLC');
    expect(modulesText(['DLC', 'DSW'])).toMatch(/DLC.*DSW/);
  });
});
