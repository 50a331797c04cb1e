/**
 * Fair sharing over generated cohort trees (SEMANTICS 13):
 * - the share (src/rules/kueue/fair-share.ts) agrees with an independent reading of the
 *   definition (test/helpers/fair-share-oracle.ts) at every node, with and without a request;
 * - invariant 13 (SEMANTICS 11): if W preempts U of another ClusterQueue, U resubmitted at
 *   once cannot preempt W. The cases where a cross-queue victim was found and resubmitted
 *   are counted, and a floor on that count keeps the property from passing vacuously.
 *
 * Trees: up to 4 Cohorts (the first the root) and 2-5 ClusterQueues, quotas on three
 * flavor-resources (two flavors of gpu, one of cpu, so shares sum over flavors), optional
 * borrowing and lending limits, weights including 0 and fractions, and workloads in each
 * queue on flavor-resources it has quota for.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fairPreemption } from '../../src/rules/kueue/fair-preemption.js';
import { compareShares, dominantResourceShare, weightedShare, type FairShare } from '../../src/rules/kueue/fair-share.js';
import type { FairPreemptionStrategy, KueueState, KueueWorkload } from '../../src/rules/kueue/kueue-state.js';
import { KueueQuotaTree } from '../../src/rules/kueue/quota-math.js';
import { oracleShare } from '../helpers/fair-share-oracle.js';
import { buildState, type NodeSpec, type WorkloadSpec } from '../unit/rules/kueue/fair-cases/build-state.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 300);
const FRS = ['f0/gpu', 'f1/gpu', 'f0/cpu'] as const;
const WEIGHTS = [0, 0.5, 1, 1, 1, 2, 3] as const;

/** A limit on one quota in four: with more, little can be borrowed and little preempted. */
const limitArb = (max: number): fc.Arbitrary<number | undefined> => fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.integer({ min: 0, max }), weight: 1 });
/** Per flavor-resource of FRS, in order: a quota, or none. */
type QuotaEntries = Array<{ nominal: number; borrowingLimit?: number | undefined; lendingLimit?: number | undefined } | null>;
const quotaArb: fc.Arbitrary<QuotaEntries> = fc.tuple(
  ...FRS.map(() => fc.option(fc.record({ nominal: fc.integer({ min: 0, max: 6 }), borrowingLimit: limitArb(4), lendingLimit: limitArb(6) }), { freq: 3 })),
);
const usageArb = fc.array(fc.record({ fr: fc.nat(), amount: fc.integer({ min: 1, max: 4 }) }), { minLength: 1, maxLength: 2 });
const incomingUsageArb = fc.array(fc.record({ fr: fc.nat(), amount: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 1 });

/**
 * One cohort where every queue holds gpu on both flavors and no limits, reclaiming from any
 * borrower: the shape in which preemption between two queues is frequent.
 */
const contendedQuotaArb: fc.Arbitrary<QuotaEntries> = fc.tuple(
  fc.record({ nominal: fc.integer({ min: 0, max: 4 }) }),
  fc.option(fc.record({ nominal: fc.integer({ min: 0, max: 3 }) }), { freq: 2 }),
  fc.constant(null),
);
const noQuotaArb: fc.Arbitrary<QuotaEntries> = fc.constant([null, null, null]);

const scenarioArb = (maxCohorts: number, contended = false) =>
  fc.record({
    cohorts: fc.array(fc.record({ parent: fc.nat(), weight: fc.constantFrom(...WEIGHTS), quota: contended ? noQuotaArb : quotaArb }), {
      minLength: 1,
      maxLength: maxCohorts,
    }),
    queues: fc.array(
      fc.record({
        parent: fc.nat(),
        weight: fc.constantFrom(...WEIGHTS),
        quota: contended ? contendedQuotaArb : quotaArb,
        within: fc.constantFrom('Never', 'LowerPriority', 'LowerOrNewerEqualPriority'),
        reclaim: contended ? fc.constant('Any' as const) : fc.constantFrom('Never', 'LowerPriority', 'Any', 'Any', 'Any'),
      }),
      { minLength: 2, maxLength: 5 },
    ),
    // Enough workloads that queues borrow and the cohort is full: preemption is the point.
    workloads: fc.array(fc.record({ queue: fc.nat(), usage: usageArb, priority: fc.integer({ min: 0, max: 3 }), createdAt: fc.integer({ min: 0, max: 5 }) }), { minLength: 4, maxLength: 16 }),
    incoming: fc.record({ queue: fc.nat(), usage: incomingUsageArb, priority: fc.integer({ min: 0, max: 3 }), createdAt: fc.integer({ min: 0, max: 6 }) }),
    strategies: fc.constantFrom<FairPreemptionStrategy[]>(['LessThanOrEqualToFinalShare'], ['LessThanInitialShare'], ['LessThanOrEqualToFinalShare', 'LessThanInitialShare']),
  });
type Scenario = ReturnType<typeof scenarioArb> extends fc.Arbitrary<infer T> ? T : never;

function quotaOf(q: QuotaEntries): NodeSpec['quota'] {
  const out: NonNullable<NodeSpec['quota']> = {};
  q.forEach((entry, i) => {
    if (entry !== null) out[FRS[i]!] = entry;
  });
  return out;
}

/** The scenario as a state, and the incoming workload (null when its queue has no quota to use). */
function materialise(s: Scenario): { state: KueueState; incoming: WorkloadSpec | null } {
  const nodes: NodeSpec[] = s.cohorts.map((c, i) => ({ name: `C${i}`, kind: 'Cohort', weight: c.weight, quota: quotaOf(c.quota), ...(i > 0 ? { parent: `C${c.parent % i}` } : {}) }));
  const queueKeys: string[][] = [];
  s.queues.forEach((q, i) => {
    const quota = quotaOf(q.quota);
    queueKeys.push(Object.keys(quota!));
    nodes.push({ name: `q${i}`, parent: `C${q.parent % s.cohorts.length}`, weight: q.weight, quota, preemption: { withinClusterQueue: q.within, reclaimWithinCohort: q.reclaim } });
  });
  const spec = (name: string, w: Scenario['workloads'][number], admittedAt: number): WorkloadSpec | null => {
    const qi = w.queue % s.queues.length;
    const keys = queueKeys[qi]!;
    if (keys.length === 0) return null;
    const usage: Record<string, number> = {};
    for (const u of w.usage) usage[keys[u.fr % keys.length]!] = (usage[keys[u.fr % keys.length]!] ?? 0) + u.amount;
    return { name, cq: `q${qi}`, usage, priority: w.priority, createdAt: w.createdAt, admittedAt };
  };
  // Admitted as Kueue would have: in order, each only if it fits its queue's quota then
  // (borrowing and lending limits included), so no generated state is over-admitted.
  const ledger = KueueQuotaTree.of(buildState(nodes)).ledger();
  const admitted: WorkloadSpec[] = [];
  s.workloads.forEach((w, i) => {
    const x = spec(`w${i}`, w, i);
    if (x === null) return;
    const usage = new Map(Object.entries(x.usage));
    if (!ledger.fits(x.cq, usage)) return;
    ledger.add(x.cq, usage);
    admitted.push(x);
  });
  return { state: buildState(nodes, admitted, s.strategies), incoming: spec('incoming', s.incoming, 100) };
}

function toWorkload(w: WorkloadSpec): KueueWorkload {
  return { name: w.name, clusterQueue: w.cq, priority: w.priority ?? 0, createdAt: w.createdAt ?? 0, admittedAt: w.admittedAt ?? 0, evicted: false, usage: new Map(Object.entries(w.usage)) };
}

describe('fair sharing over generated cohorts', () => {
  it('the share agrees with the independent oracle at every node, with and without a request', () => {
    let borrowingSeen = 0;
    fc.assert(
      fc.property(scenarioArb(4), fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 3, maxLength: 3 }), (s, req) => {
        const { state } = materialise(s);
        const ledger = KueueQuotaTree.of(state).ledger();
        const extra = new Map(FRS.map((fr, i) => [fr, req[i]!] as const).filter(([, v]) => v > 0));
        for (const name of state.nodes.keys()) {
          for (const request of [undefined, extra]) {
            const got = dominantResourceShare(ledger, name, request);
            const want = oracleShare(state, name, request);
            if (got.borrowing) borrowingSeen++;
            expect({ node: name, borrowing: got.borrowing, dominant: got.dominantResource }).toEqual({ node: name, borrowing: want.borrowing, dominant: want.dominant });
            expect(got.ratio).toBeCloseTo(want.ratio, 9);
            const w = weightedShare(got);
            if (want.weighted === Infinity) expect(w).toBe(Infinity);
            else expect(w).toBeCloseTo(want.weighted, 9);
          }
        }
      }),
      { numRuns: RUNS },
    );
    // The generator must produce borrowing nodes, or the comparison says little.
    expect(borrowingSeen).toBeGreaterThan(RUNS);
  });

  /*
   * Kueue's proof (site/content/en/docs/concepts/fair_sharing.md) assumes what the property
   * checks below: P and T are sibling queues (it leaves the hierarchical case open), U is W's
   * only victim in T (with several, T's share when U comes back is below the one compared), W raises
   * P's share and U raises T's where they borrow (each uses its queue's dominant resource; a
   * queue not borrowing is never a fairness target), fill-back gave
   * nothing back (the shares were compared with every taken workload gone), and the loop would
   * be for fairness (the later preempt-within-nominal rule is outside it). Outside these,
   * Kueue's algorithm can loop: fair-loops.test.ts pins one case of each kind.
   */
  it("invariant 13, within the assumptions of Kueue's proof: if W preempts U of another queue, U resubmitted at once cannot preempt W for fairness", () => {
    let scenarios = 0; // scenarios with at least one victim of another queue
    let reached = 0; // victims within the assumptions, resubmitted and checked
    let outside = 0; // victims outside them that did take W back (Kueue's loops; not a failure)
    fc.assert(
      fc.property(scenarioArb(1, true), (s) => {
        const { state, incoming } = materialise(s);
        if (incoming === null) return;
        const w = toWorkload(incoming);
        const { targets, returned } = fairPreemption(state, { workload: w });
        const gone = new Set(targets.map((t) => t.workload));
        const admittedW = { ...w, admittedAt: 200 };
        const after: KueueState = { ...state, workloads: [...state.workloads.filter((x) => !gone.has(x.name)), admittedW] };
        const across = targets.map((t) => state.workloads.find((x) => x.name === t.workload)!).filter((u) => u.clusterQueue !== w.clusterQueue);
        if (across.length > 0) scenarios++;
        const tree = KueueQuotaTree.of(after);
        for (const u of across) {
          const back = fairPreemption(after, { workload: u });
          const takesBack = back.targets.some((x) => x.workload === w.name && x.reason === 'InCohortFairSharing');
          const loops = takesBack && back.returned.length === 0;
          const ledger = tree.ledger();
          const pWith = dominantResourceShare(ledger, w.clusterQueue);
          const tWithout = dominantResourceShare(ledger, u.clusterQueue);
          ledger.removeWorkload(admittedW);
          const pWithout = dominantResourceShare(ledger, w.clusterQueue);
          ledger.addWorkload(admittedW);
          ledger.addWorkload(u);
          const tWith = dominantResourceShare(ledger, u.clusterQueue);
          // A queue not borrowing after admission is never a fairness target (the proof's first case).
          const raises = (withIt: FairShare, without: FairShare): boolean => !withIt.borrowing || compareShares(withIt, without) > 0;
          const alone = across.filter((x) => x.clusterQueue === u.clusterQueue).length === 1;
          const assumed = alone && returned.length === 0 && raises(pWith, pWithout) && raises(tWith, tWithout);
          if (!assumed) {
            if (takesBack) outside++;
            continue;
          }
          reached++;
          expect(loops, `${u.name} (${u.clusterQueue}) resubmitted preempts ${w.name} (${w.clusterQueue}) back for fairness`).toBe(false);
        }
      }),
      { numRuns: RUNS },
    );
    console.log(`invariant 13: ${scenarios} of ${RUNS} scenarios had a victim of another queue; ${reached} victims within the proof's assumptions checked; ${outside} outside them took W back`);
    expect(reached).toBeGreaterThanOrEqual(Math.ceil(RUNS / 10));
  });
});
