/**
 * The simulator's kernel follows the cluster incrementally (one addJob / removeJob per
 * start and end, engine/dense-kernel.ts) instead of reloading the whole cluster after
 * every change. Decisions must not change: a seeded PAI-shaped burst with preemptions,
 * restarts, idle and spot jobs gives the same report byte for byte both ways — and the
 * incremental path really ran (adds, removes and compactions, one load only).
 */
import { describe, expect, it } from 'vitest';
import { DenseKernel } from '../../../src/engine/dense-kernel.js';
import { createKernel } from '../../../src/kernel/create-kernel.js';
import type { ClusterNode } from '../../../src/model/policy.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { marketSeries } from '../../../src/simulate/market.js';
import { defaultTeams } from '../../../src/simulate/openb-trace.js';
import { generatePai, type GenTeam } from '../../../src/simulate/pai-generator.js';
import { simulate, type SimInput } from '../../../src/simulate/simulator.js';
import { Differential, expectIncremental } from '../../helpers/differential.js';

const DIR = 'bench/policies/pai-three-teams';

function input(): SimInput {
  const policy = loadPolicy(readBundles([DIR])[0]!.files, { now: 0 }).policy!;
  const teams: GenTeam[] = defaultTeams(policy).map((t) => (t.module === 'EAS' ? { ...t, priority: [7, 9], flexible: false } : { ...t, priority: [1, 6], flexible: true }));
  // A burst: 1,200 jobs in 45 minutes on 150 × 8 GPUs, so quotas fill and jobs preempt.
  const workload = generatePai({ jobs: 1200, days: 0.03, seed: 7, teams, markets: policy.spotMarkets ?? [] });
  const nodes: ClusterNode[] = Array.from({ length: 150 }, (_, i) => ({ name: `n${i}`, gpus: 8, pool: 'gpu-pool', src: { file: 'test', line: i + 1, column: 1, path: '' } }));
  const market = marketSeries(policy.spotMarkets ?? [], { prices: new Map(), inventory: new Map() }, 7, 30 * 86_400_000);
  return { policy, label: DIR, nodes, workload, market };
}

describe('incremental kernel updates', () => {
  it('decide exactly as reloading the whole cluster before every question', async () => {
    const kernel = new DenseKernel(createKernel('wasm'), 16);
    // The shared harness: the incremental run against the reloading one, byte for byte;
    // its witness is the DenseKernel's job-by-job changes.
    const twin = new Differential('simulation on a live kernel vs reloading before every question', () => kernel.stats.adds + kernel.stats.removes);
    let reload: Awaited<ReturnType<typeof simulate>> | undefined;
    await twin.sameAsync(
      async () => JSON.stringify(await simulate(input(), { seed: 7, kernel })),
      async () => JSON.stringify((reload = await simulate(input(), { seed: 7, backend: 'wasm', kernelUpdates: 'reload' }))),
    );
    // The run exercises what could diverge: preemptions (victim keys), restarts, idle and spot jobs.
    expect(reload!.totals.preemptions).toBeGreaterThan(20);
    expect(reload!.totals.restarts).toBeGreaterThan(0);
    expect(reload!.spot.jobs).toBeGreaterThan(0);
    // The incremental path ran: the kernel was loaded once (Snapshot.build), then only
    // added to and removed from, and compacted when retired indices piled up.
    expectIncremental(kernel, 1000);
    expect(kernel.stats.adds).toBeGreaterThan(500);
    expect(kernel.stats.removes).toBeGreaterThan(500);
    expect(kernel.stats.compactions).toBeGreaterThan(0);
  });
});
