/**
 * The prefilter of which rules a preemptor quota's tables consider (rules/rule-ties.ts):
 * a rule tied by its own conditions to another quota, or to a lender off the path, never fires.
 */
import { describe, expect, it } from 'vitest';
import { mayFireOn } from '../../../src/rules/rule-ties.js';
import { twoTeams } from '../../helpers/two-teams.js';

describe('rule ties', () => {
  const s = twoTeams();

  it("ties a quota's own clauses to its jobs and a lent share's reclaim to paths through the lender; reclaim of idle capacity fires for everyone", () => {
    const rule = (n: string) => s.rules.find((r) => r.name === n)!;
    expect(mayFireOn(rule('A/selfPreemption'), ['A', 'Root'])).toBe(true);
    expect(mayFireOn(rule('A/selfPreemption'), ['B', 'Root'])).toBe(false);
    expect(mayFireOn(rule('reclaim/idle'), ['B', 'Root'])).toBe(true);
    expect(mayFireOn(rule('A/reclaim'), ['A', 'Root'])).toBe(true);
    expect(mayFireOn(rule('A/reclaim'), ['B', 'Root'])).toBe(false);
  });

  it('never lets a borrow rule make victims', () => {
    const borrow = s.rules.find((r) => r.kind === 'borrow');
    if (borrow) expect(mayFireOn(borrow, [borrow.quota, 'Root'])).toBe(false);
    expect(s.rules.some((r) => r.kind === 'borrow')).toBe(true);
  });
});
