/** The shipped spot example (policies/spot-market) as a simulation input, read the way the CLI reads it. */
import { readFileSync } from 'node:fs';
import type { Policy, RunningJob } from '../../src/model/policy.js';
import { loadPolicy } from '../../src/policy/load-policy.js';
import { readBundles } from '../../src/policy/parse/read-files.js';
import { marketSeries, readMarketCsv } from '../../src/simulate/market.js';
import { readJobs } from '../../src/simulate/read-jobs.js';
import type { simulate } from '../../src/simulate/simulator.js';
import { clusterDoc, jobsBlock } from './policy-yaml.js';

const DIR = 'policies/spot-market';

/** The policy, and the input of a run over its jobs.csv and market CSVs. */
export function spotExample(): { policy: Policy; input: Parameters<typeof simulate>[0] } {
  const policy = loadPolicy(readBundles([DIR])[0]!.files, { now: 0 }).policy!;
  const types = new Set(policy.spotMarkets![0]!.instanceTypes.map((t) => t.name));
  const prices = readMarketCsv('prices.csv', readFileSync(`${DIR}/prices.csv`, 'utf8'), 'price', types).series;
  const inventory = readMarketCsv('inventory.csv', readFileSync(`${DIR}/inventory.csv`, 'utf8'), 'inventory', types).series;
  const instanceTypes = new Map(policy.spotMarkets![0]!.instanceTypes.map((t) => [t.name, { pool: t.pool }]));
  const workload = readJobs(`${DIR}/jobs.csv`, readFileSync(`${DIR}/jobs.csv`, 'utf8'), { policy, instanceTypes });
  const market = marketSeries(policy.spotMarkets!, { prices, inventory }, 1, 100 * 3_600_000);
  return { policy, input: { policy, label: DIR, nodes: policy.cluster!.nodes, workload, market } };
}

/** A one-pod DLC job running on node `lj-<node>` of the spot example's tree, GPUs from `firstGpu` on; an idle one is an `only` job. */
export function spotRunningJob(o: { name: string; teamA: boolean; priority: number; gpu: number; idle?: boolean; startedAt: number; node: number; firstGpu?: number }): RunningJob {
  const first = o.firstGpu ?? 0;
  return {
    name: o.name,
    workspace: o.teamA ? 'team-a' : 'team-b',
    quota: o.teamA ? 'TeamA' : 'TeamB',
    module: 'DLC',
    priority: o.priority,
    pods: 1,
    resources: { gpu: o.gpu },
    idleResources: o.idle ? 'only' : 'none',
    standing: o.idle ? 'idle' : 'in-quota',
    startedAt: o.startedAt,
    placement: [{ node: `lj-${o.node}`, gpus: Array.from({ length: o.gpu }, (_, g) => first + g) }],
    placedByEngine: false,
    src: { file: 'gen', line: 1, column: 1, path: '' },
  };
}

/** A Cluster document on the spot example's four 8-GPU lingjun nodes (lj-0 .. lj-3), at midnight by default, holding `jobs` (one-line entries). */
export function spotClusterYaml(jobs: string[], at = '2026-11-20T00:00:00Z'): string {
  return clusterDoc(`  nodeGroups:\n    - { prefix: lj-, count: 4, gpus: 8, pool: lingjun-pool }\n${jobsBlock(...jobs)}`, { at });
}
