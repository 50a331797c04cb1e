/**
 * Who may run borrowing (SEMANTICS 5.2) is one rule per quota, `<Q>/borrowing`, compiled
 * from model/borrowing.ts and tabulated per (quota, priority): the table must say what
 * json-rules-engine says running every compiled rule, and what the loader's reading of
 * the same home (model/borrowing.ts `mayBorrow`, used by `standings: derive`) says.
 */
import fc from 'fast-check';
import { Engine } from 'json-rules-engine';
import { describe, expect, it } from 'vitest';
import { mayBorrow } from '../../../src/model/borrowing.js';
import type { Policy, Quota } from '../../../src/model/policy.js';
import { QuotaTree } from '../../../src/model/quota-tree.js';
import { compileRules } from '../../../src/rules/compile-rules.js';
import { EligibilityTables } from '../../../src/rules/eligibility-table.js';
import { preemptorFacts } from '../../../src/rules/facts.js';

const SRC = { file: 'p.yaml', line: 1, column: 1, path: '' };

/** A quota of the model, with defaults for what borrowing does not read. */
function quota(name: string, parent: string | null, extra: Partial<Quota> = {}): Quota {
  return { name, parent, children: [], min: { gpu: 8 }, queueStrategy: 'fifo', queue: {} as Quota['queue'], reclaim: 'any', pool: 'p', src: SRC, reclaimSrc: SRC, ...extra };
}

function policyOf(quotas: Quota[]): Policy {
  return { pools: [], quotas, workspaces: [], whatIfs: [], scales: [], promises: [], files: [] };
}

const range = fc.tuple(fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 9 })).map(([a, b]) => ({ lo: Math.min(a, b), hi: Math.max(a, b) }));

/** What json-rules-engine says: the `borrow` event of the quota's rule, if any fires. */
async function engineSays(policy: Policy, name: string, priority: number): Promise<string | undefined> {
  const rules = compileRules(policy);
  const engine = new Engine([], { allowUndefinedFacts: false });
  for (const r of rules) engine.addRule(r.rule);
  const { events } = await engine.run({ ...preemptorFacts(name, priority, 'borrowing', 1) });
  return events.filter((e) => e.type === 'borrow').map((e) => (e.params as { rule: string }).rule)[0];
}

describe('the borrowing table', () => {
  it('names A/borrowing for what borrowing.priority, else highPriority, holds; nobody on a root or without either', () => {
    const sp = (lo: number, hi: number) => ({ highPriority: { lo, hi }, lowPriority: { lo: 1, hi: 1 }, modules: ['DLC' as const], src: SRC });
    const quotas = [
      quota('Root', null, { borrowing: { priority: { lo: 1, hi: 9 }, src: SRC }, selfPreemption: sp(6, 9) }),
      quota('A', 'Root', { selfPreemption: sp(6, 9) }),
      quota('B', 'Root', { borrowing: { priority: { lo: 1, hi: 9 }, src: SRC } }),
      quota('C', 'Root', { borrowing: { priority: { lo: 3, hi: 9 }, src: SRC }, selfPreemption: sp(6, 9) }),
      quota('D', 'Root'),
    ];
    const policy = policyOf(quotas);
    const tree = new QuotaTree(quotas);
    const table = new EligibilityTables(compileRules(policy), tree).borrowing;
    const who = (name: string) => [1, 2, 3, 4, 5, 6, 7, 8, 9].filter((p) => table.ruleFor(tree.indexOf(name), p) !== undefined);
    expect(who('Root')).toEqual([]);
    expect(who('A')).toEqual([6, 7, 8, 9]);
    expect(who('B')).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(who('C')).toEqual([3, 4, 5, 6, 7, 8, 9]);
    expect(who('D')).toEqual([]);
    expect(table.ruleFor(tree.indexOf('C'), 4)?.name).toBe('C/borrowing');
    expect(table.ruleFor(tree.indexOf('C'), 4)?.kind).toBe('borrow');
  });

  it('agrees with json-rules-engine and with model/borrowing.ts for random ranges', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(fc.option(range, { nil: undefined }), fc.option(range, { nil: undefined }), fc.integer({ min: 1, max: 9 }), async (borrow, high, priority) => {
        const quotas = [
          quota('Root', null),
          quota('A', 'Root', {
            ...(borrow ? { borrowing: { priority: borrow, src: SRC } } : {}),
            ...(high ? { selfPreemption: { highPriority: high, lowPriority: { lo: 1, hi: 1 }, modules: ['DLC'], src: SRC } } : {}),
          }),
        ];
        const policy = policyOf(quotas);
        const tree = new QuotaTree(quotas);
        const fromTable = new EligibilityTables(compileRules(policy), tree).borrowing.ruleFor(1, priority)?.name;
        expect(fromTable).toBe(await engineSays(policy, 'A', priority));
        expect(fromTable !== undefined).toBe(mayBorrow(quotas[1]!, priority));
        checked++;
      }),
      { numRuns: 200 },
    );
    expect(checked).toBe(200);
  });
});
