/**
 * The simulator on the shipped spot example: the report ties out, every preemption
 * names a rule that exists (or the market's release, at a market move), the invariants
 * hold at every step, and the same seed gives the same report byte for byte.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SPOT_RULE } from '../../../src/engine/spot-rules.js';
import { compileRules } from '../../../src/rules/compile-rules.js';
import type { Report } from '../../../src/simulate/report.js';
import { simulate, type SimOptions, type SimView } from '../../../src/simulate/simulator.js';
import { spotExample } from '../../helpers/spot-example.js';

const DIR = 'policies/spot-market';

async function run(options: Partial<SimOptions> = {}): Promise<Report> {
  return simulate(spotExample().input, { seed: 1, backend: 'wasm', ...options });
}

describe('simulate', () => {
  it('reads the whole shipped trace', () => {
    const { input } = spotExample();
    expect(input.workload.rejected).toEqual([]);
    expect(input.workload.jobs.length).toBe(36);
  });

  it('ties out: GPU-hours used + idle = capacity × time, and every job is accounted for', async () => {
    const r = await run();
    const t = r.totals;
    expect(Math.abs(t.usedGpuHours + t.idleGpuHours - t.capacityGpuHours)).toBeLessThanOrEqual(0.02);
    expect(t.completed + t.endedPreempted + t.rejected + t.unfinished).toBe(t.jobs);
    expect(r.teams.reduce((s, g) => s + g.jobs, 0)).toBe(t.jobs);
    expect(r.teams.reduce((s, g) => s + g.preempted, 0)).toBe(t.preemptions);
    expect(r.preemptions.byRule.reduce((s, x) => s + x.count, 0)).toBe(t.preemptions);
    // The example is built to show each mechanism at least once. Since victim sets compete
    // across the ways a job could run (SEMANTICS 5.3), TeamB's in-quota jobs also take back
    // a lent share there (TeamB/reclaim).
    expect(r.preemptions.byRule.map((x) => x.rule).sort()).toEqual(['TeamA/selfPreemption', 'TeamB/reclaim', 'market/spot-release', 'reclaim/idle'].sort());
    expect(r.spot.saved).toBeGreaterThan(0);
    expect(r.spot.interruptions.price).toBeGreaterThan(0);
    expect(r.spot.interruptions.inventory).toBeGreaterThan(0);
    expect(t.restarts).toBeGreaterThan(0);
  });

  it('names a rule of the policy for every preemption, and releases spot jobs only at a market move or a protection end', async () => {
    const { policy } = spotExample();
    const rules = new Map(compileRules(policy).map((x) => [x.name, x.source]));
    const r = await run();
    const moves = new Set<number>();
    for (const [file, col] of [
      ['prices.csv', 'price'],
      ['inventory.csv', 'inventory'],
    ] as const) {
      for (const line of readFileSync(`${DIR}/${file}`, 'utf8').trim().split('\n').slice(1)) {
        const at = line.split(',')[0]!;
        moves.add(at === '0' ? 0 : Number(at.replace('h', '')));
        void col;
      }
    }
    expect(r.preemptions.first.length).toBe(r.totals.preemptions);
    for (const e of r.preemptions.first) {
      if (e.rule === SPOT_RULE) {
        expect(e.by).toBe('');
        expect(moves.has(e.hour), `${e.job} released at hour ${e.hour}`).toBe(true);
        expect(e.reason).toMatch(/market price .* rose to|inventory .* fell to/);
      } else {
        expect(rules.get(e.rule), e.rule).toBe(e.source);
        expect(e.by).not.toBe('');
      }
    }
  });

  it('holds the invariants at every step: in-quota within min, no spot job above its bid after protection, no GPU twice', async () => {
    const violations: string[] = [];
    const steps: number[] = [];
    const onStep = (v: SimView) => {
      steps.push(v.t);
      const snap = v.snapshot;
      snap.tree.quotas.forEach((q, a) => {
        let inQuota = 0;
        for (const j of snap.jobs) if (j.standing === 'in-quota' && snap.tree.inSubtree(snap.tree.indexOf(j.quota), a)) inQuota += j.pods * j.resources.gpu;
        if (inQuota > q.min.gpu) violations.push(`${v.t}: in-quota ${inQuota} > ${q.name} min ${q.min.gpu}`);
      });
      const seen = new Set<string>();
      for (const j of snap.jobs)
        for (const p of j.placement)
          for (const g of p.gpus) {
            const k = `${p.node}/${g}`;
            if (seen.has(k)) violations.push(`${v.t}: GPU ${k} twice`);
            seen.add(k);
          }
      for (const s of v.spot)
        for (const j of s.running) {
          if (j.bid < s.price && v.t - j.startedAt >= v.protection.get(s.type)!) violations.push(`${v.t}: ${j.job} bids ${j.bid} under ${s.price}`);
        }
      for (const s of v.spot)
        if (s.running.filter((j) => v.t - j.startedAt >= v.protection.get(s.type)!).reduce((n, j) => n + j.pods, 0) > s.inventory) violations.push(`${v.t}: ${s.type} over inventory`);
    };
    await run({ onStep });
    expect(steps.length).toBeGreaterThan(10);
    expect(violations).toEqual([]);
  });

  it('gives the same report for the same seed, byte for byte, on either kernel', async () => {
    const a = JSON.stringify(await run());
    const b = JSON.stringify(await run());
    const c = JSON.stringify(await run({ backend: 'reference' }));
    expect(b).toBe(a);
    expect(c).toBe(a);
  });

  it('stops at --until and says so', async () => {
    const r = await run({ until: 12 * 3_600_000 });
    expect(r.hours).toBe(12);
    expect(r.until).toBe(12);
    expect(r.totals.unfinished).toBeGreaterThan(0);
    expect(Math.abs(r.totals.usedGpuHours + r.totals.idleGpuHours - 32 * 12)).toBeLessThanOrEqual(0.02);
  });

  it('with a scheduler cycle, starts quota jobs only on its ticks, and still ties out', async () => {
    const starts: number[] = [];
    let seen = new Set<string>();
    const cycle = 10 * 60_000;
    const r = await run({
      cycle,
      onStep: (v) => {
        const now = new Set(v.snapshot.jobs.map((j) => j.name));
        for (const j of v.snapshot.jobs) if (!seen.has(j.name)) starts.push(j.startedAt);
        seen = now;
      },
    });
    expect(r.cycleSeconds).toBe(600);
    expect(starts.length).toBeGreaterThan(5);
    for (const t of starts) expect(t % cycle).toBe(0);
    expect(Math.abs(r.totals.usedGpuHours + r.totals.idleGpuHours - r.totals.capacityGpuHours)).toBeLessThanOrEqual(0.02);
  });
});
