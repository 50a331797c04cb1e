/**
 * Invariants over simulated time (SEMANTICS 11 and docs/simulate.md), on random
 * workloads over the shipped spot example: GPU-hours used + idle = capacity × time;
 * no spot job runs above its bid once protected no more (invariant 7); every
 * preemption names a rule of the policy or the market's release; no quota's in-quota
 * usage exceeds its guarantee at any step (invariant 2); the same seed gives the same
 * report. QUOTIENT_PROPERTY_RUNS sets the number of workloads (default 12).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPOT_RULE } from '../../src/engine/spot-rules.js';
import type { JobSpec } from '../../src/model/policy.js';
import { compileRules } from '../../src/rules/compile-rules.js';
import { simulate, type SimView } from '../../src/simulate/simulator.js';
import type { SimJob } from '../../src/simulate/workload.js';
import { spotExample } from '../helpers/spot-example.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 12);

const jobArb = fc.record({
  submit: fc.integer({ min: 0, max: 24 * 6 }).map((x) => x * 10 * 60_000),
  duration: fc.integer({ min: 1, max: 48 }).map((x) => x * 10 * 60_000),
  team: fc.constantFrom('A', 'B'),
  priority: fc.integer({ min: 1, max: 9 }),
  pods: fc.integer({ min: 1, max: 3 }),
  gpu: fc.constantFrom(1, 2, 4, 8),
  idle: fc.constantFrom<'none' | 'acceptable' | 'only'>('none', 'none', 'acceptable', 'only'),
  checkpoint: fc.option(fc.constantFrom(30, 60), { nil: undefined }),
  restart: fc.boolean(),
  spot: fc.option(
    fc.oneof(fc.record({ general: fc.constant(true), price: fc.double({ min: 2, max: 12, noNaN: true }) }), fc.record({ general: fc.constant(false), discount: fc.integer({ min: 1, max: 9 }) })),
    { nil: undefined, freq: 3 },
  ),
});

type Row = typeof jobArb extends fc.Arbitrary<infer T> ? T : never;

function toJobs(rows: Row[]): SimJob[] {
  return rows
    .map((r, i) => {
      const spotGeneral = r.spot && r.spot.general;
      const spec: JobSpec = {
        name: `j${String(i).padStart(3, '0')}`,
        workspace: r.team === 'A' ? 'team-a' : 'team-b',
        quota: r.team === 'A' ? 'TeamA' : 'TeamB',
        module: 'DLC',
        priority: r.priority,
        pods: r.pods,
        resources: { gpu: r.spot ? (spotGeneral ? 1 : 8) : r.gpu },
        idleResources: r.spot ? 'none' : r.idle,
        ...(r.checkpoint ? { checkpoint: { every: r.checkpoint * 60_000 } } : {}),
        ...(r.restart && !spotGeneral ? { faultTolerance: { autoRestart: true, maxRestarts: 2 } } : {}),
        src: { file: 'gen', line: i + 1, column: 1, path: '' },
      };
      const spot = r.spot
        ? 'price' in r.spot
          ? { instanceType: 'ecs.gn7i-1gpu', priceLimit: Math.round(r.spot.price * 100) / 100 }
          : { instanceType: 'lingjun.gu8-8gpu', discountLimit: r.spot.discount / 10 }
        : undefined;
      return { spec, submit: r.submit, duration: r.duration, ...(spot ? { spot } : {}) };
    })
    .sort((a, b) => a.submit - b.submit || (a.spec.name < b.spec.name ? -1 : 1));
}

describe('simulate invariants over time', () => {
  it('hold on random workloads', async () => {
    const { policy, input } = spotExample();
    const rules = new Set(compileRules(policy).map((r) => r.name));
    await fc.assert(
      fc.asyncProperty(fc.array(jobArb, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 1000 }), async (rows, seed) => {
        const workload = { ...input.workload, jobs: toJobs(rows) };
        const bad: string[] = [];
        const onStep = (v: SimView) => {
          const snap = v.snapshot;
          snap.tree.quotas.forEach((q, a) => {
            let inQuota = 0;
            for (const j of snap.jobs) if (j.standing === 'in-quota' && snap.tree.inSubtree(snap.tree.indexOf(j.quota), a)) inQuota += j.pods * j.resources.gpu;
            if (inQuota > q.min.gpu) bad.push(`${v.t}: ${q.name} in-quota ${inQuota} > ${q.min.gpu}`);
          });
          for (const s of v.spot)
            for (const j of s.running) if (j.bid < s.price && v.t - j.startedAt >= v.protection.get(s.type)!) bad.push(`${v.t}: ${j.job} runs at ${s.price} over its bid ${j.bid}`);
        };
        const r = await simulate({ ...input, workload }, { seed, backend: 'wasm', onStep });
        expect(bad).toEqual([]);
        const t = r.totals;
        expect(Math.abs(t.usedGpuHours + t.idleGpuHours - t.capacityGpuHours)).toBeLessThanOrEqual(0.02);
        expect(t.completed + t.endedPreempted + t.rejected + t.unfinished).toBe(t.jobs);
        for (const e of r.preemptions.first) expect(e.rule === SPOT_RULE || rules.has(e.rule), e.rule).toBe(true);
        const again = await simulate({ ...input, workload }, { seed, backend: 'wasm' });
        expect(JSON.stringify(again)).toBe(JSON.stringify(r));
      }),
      { numRuns: RUNS },
    );
  }, 300_000);
});
