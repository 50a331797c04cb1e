import { describe, expect, it } from 'vitest';
import { MODULES } from '../../../src/model/policy.js';
import { comboIndex, COMBOS_PER_RELATION, victimCombos } from '../../../src/rules/facts.js';

describe('victim fact combinations', () => {
  it('lists every priority, module and standing once, in table order', () => {
    const combos = victimCombos();
    expect(combos).toHaveLength(COMBOS_PER_RELATION);
    expect(COMBOS_PER_RELATION).toBe(9 * MODULES.length * 3);
    combos.forEach((c, i) => expect(comboIndex(c.victimPriority, c.victimModule, c.victimStanding)).toBe(i));
  });

  it('hands out one frozen list, so a table cannot change another table’s facts', () => {
    expect(victimCombos()).toBe(victimCombos());
    expect(Object.isFrozen(victimCombos())).toBe(true);
    expect(Object.isFrozen(victimCombos()[0])).toBe(true);
  });
});
