/**
 * The generators of states (verify/promise-states.ts for promises, testing/arbitraries.ts
 * for the property suite) let a job borrow exactly when model/borrowing.ts's `mayBorrow`
 * does (SEMANTICS 5.2): `borrowing.priority` when written, else selfPreemption's
 * highPriority, nobody on a root. Each check here fails when a generator decides who
 * borrows by a rule of its own (issue 31: both once read highPriority only); and their
 * fill counts usage by model/usage-rule.ts `countsAt`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/engine/session.js';
import { mayBorrow } from '../../../src/model/borrowing.js';
import type { Policy, Quota } from '../../../src/model/policy.js';
import { inRange } from '../../../src/model/priority.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { scenarioArbitrary, scenarioYaml } from '../../../src/testing/index.js';
import { promiseStates } from '../../../src/verify/promise-states.js';
import { ClusterFill } from '../../../src/verify/fill-cluster.js';

/** Every borrowing job of `jobs` paired with whether the policy's rule lets it borrow, and whether highPriority alone would. */
function borrowers(policy: Policy, jobs: ReadonlyArray<{ quota: string; priority: number; standing?: string }>) {
  const quota = new Map(policy.quotas.map((q) => [q.name, q]));
  return jobs
    .filter((j) => j.standing === 'borrowing')
    .map((j) => {
      const q = quota.get(j.quota)!;
      return { allowed: mayBorrow(q, j.priority), byHighPriority: q.selfPreemption !== undefined && inRange(q.selfPreemption.highPriority, j.priority) };
    });
}

describe('promise states borrow by the one borrowing rule', () => {
  const [bundle] = readBundles(['policies/self-level-preemption']);
  const opened = bundle && Session.open(bundle.files).session;
  const promise = opened?.policy.promises.find((p) => p.name === 'inference-never-preempted');
  if (!opened || !promise) throw new Error('shipped policy or promise missing');
  const base = opened.policy;
  /** The policy with every child quota's borrowing.priority set to `lo`-`hi`. */
  const withBorrowing = (lo: number, hi: number): Policy => ({
    ...base,
    quotas: base.quotas.map((q): Quota => (q.parent === null ? q : { ...q, borrowing: { priority: { lo, hi }, src: q.src } })),
  });
  const sample = (policy: Policy) => fc.sample(promiseStates(policy, [], promise), { numRuns: 300, seed: 11 }).flatMap((s) => borrowers(policy, s.added));

  it('lets jobs borrow that borrowing.priority admits and highPriority does not', () => {
    const found = sample(withBorrowing(1, 9));
    expect(found.every((b) => b.allowed)).toBe(true);
    // Reading highPriority instead would never make these.
    expect(found.filter((b) => !b.byHighPriority).length).toBeGreaterThan(0);
  });

  it('lets no job borrow that a narrower borrowing.priority leaves out', () => {
    const found = sample(withBorrowing(9, 9));
    expect(found.length).toBeGreaterThan(0);
    expect(found.every((b) => b.allowed)).toBe(true);
  });
});

describe('generated scenarios borrow by the one borrowing rule', () => {
  it("makes only borrowers the loaded policy's rule admits, some of them by borrowing.priority alone", () => {
    const scenarios = fc.sample(scenarioArbitrary({ flavours: ['preemptible', 'plain', 'full'] }), { numRuns: 100, seed: 7 });
    let byBorrowingOnly = 0;
    let count = 0;
    for (const scenario of scenarios) {
      const { session } = Session.open([{ path: 'generated.yaml', text: scenarioYaml(scenario) }]);
      if (!session) throw new Error('a generated scenario does not load');
      for (const b of borrowers(session.policy, session.policy.cluster?.jobs ?? [])) {
        expect(b.allowed).toBe(true);
        count++;
        if (!b.byHighPriority) byBorrowingOnly++;
      }
    }
    expect(count).toBeGreaterThan(0);
    expect(byBorrowingOnly).toBeGreaterThan(0);
  });
});

describe("the generators' fill counts usage by the one usage rule", () => {
  it('counts a borrower at the ancestors it borrows through, not at its own quota, and an idle job nowhere (SEMANTICS 3)', () => {
    const anyone = () => true;
    const fill = new ClusterFill(
      [
        { name: 'Root', parent: -1, min: 16, pool: 'p', mayBorrow: () => false },
        { name: 'A', parent: 0, min: 8, pool: 'p', mayBorrow: anyone },
        { name: 'B', parent: 0, min: 8, pool: 'p', mayBorrow: anyone },
      ],
      [],
    );
    fill.count(1, 'borrowing', 4);
    fill.count(1, 'in-quota', 2);
    fill.count(2, 'idle', 8);
    expect([...fill.usage]).toEqual([6, 2, 0]);
    // A has 6 of its 8 left for an in-quota job: the borrower is over A's min by design.
    expect(fill.room(1)).toBe(6);
  });
});
