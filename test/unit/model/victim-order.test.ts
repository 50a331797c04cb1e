/**
 * SEMANTICS 5.3's criteria are one table (src/model/victim-order.ts): the kernel's twin
 * keeps its numbers (kernel/ may not import model/), so this holds them equal, and holds
 * docs/semantics.md's table of the criteria to the rows. The wasm's numbers are held to
 * the twin's when the kernel loads (checkMirrors, test/unit/kernel/layout.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CRITERIA, DEFAULT_VICTIM_ORDER } from '../../../src/kernel/victim-order.js';
import { VICTIM_CRITERIA, VICTIM_CRITERION_TABLE, VICTIM_CRITERION_TEXT, isDefaultVictimOrder, victimCriterion } from '../../../src/model/victim-order.js';

describe('the victim criteria table', () => {
  it("gives each criterion the kernel twin's number", () => {
    const twin: Record<string, number> = {
      priority: CRITERIA.CRITERION_PRIORITY,
      'lost-work': CRITERIA.CRITERION_LOST_WORK,
      gpus: CRITERIA.CRITERION_GPUS,
      count: CRITERIA.CRITERION_COUNT,
      recency: CRITERIA.CRITERION_RECENCY,
    };
    expect(Object.fromEntries(VICTIM_CRITERION_TABLE.map((c) => [c.name, c.id]))).toEqual(twin);
    expect(VICTIM_CRITERION_TABLE).toHaveLength(CRITERIA.CRITERIA_COUNT);
    // SEMANTICS' own order is the table's order, in names and in the kernel's ids.
    expect(VICTIM_CRITERIA.map((n) => victimCriterion(n).id)).toEqual([...DEFAULT_VICTIM_ORDER]);
    expect(isDefaultVictimOrder([...VICTIM_CRITERIA])).toBe(true);
    expect(isDefaultVictimOrder(['lost-work', 'priority', 'gpus', 'count', 'recency'])).toBe(false);
  });

  it('is what docs/semantics.md prints, row for row', () => {
    const doc = readFileSync('docs/semantics.md', 'utf8');
    const rows = [...doc.matchAll(/^\| (\d) \| `([a-z-]+)` \| (.+?) \| (.+?) \| (.+?) \|$/gm)].map((m) => ({ id: Number(m[1]), name: m[2], job: m[3], set: m[4], sentence: m[5] }));
    expect(rows).toEqual(VICTIM_CRITERION_TABLE.map((c) => ({ id: c.id, name: c.name, job: c.job, set: c.set, sentence: c.sentence })));
    expect(rows.map((r) => VICTIM_CRITERION_TEXT[r.name as keyof typeof VICTIM_CRITERION_TEXT])).toEqual(rows.map((r) => r.sentence));
  });
});
