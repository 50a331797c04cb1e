/**
 * A workload holds at most MAX_JOBS jobs (policy/parse/number-limits.ts): a jobs file or an
 * openb pod list with more is refused whole at the first row past the limit; a node list
 * (`--cluster`) holds at most MAX_CLUSTER_NODES nodes, as a Cluster does. The limits are
 * too large for a unit test to write out: here they are mocked down to 3 jobs and 5 nodes
 * (the spot example's Cluster has 4); the CLI test
 * holds `--jobs` to the real one.
 */
import { describe, expect, it, vi } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { loadCluster } from '../../../src/simulate/cluster-loaders.js';
import { defaultTeams, DEFAULT_QOS, readOpenb } from '../../../src/simulate/openb-trace.js';
import { readJobs } from '../../../src/simulate/read-jobs.js';

vi.mock('../../../src/policy/parse/number-limits.js', async (original) => ({ ...(await original<object>()), MAX_JOBS: 3, MAX_CLUSTER_NODES: 5 }));

const policy = loadPolicy(readBundles(['policies/spot-market'])[0]!.files, { now: 0 }).policy!;
const ctx = { policy, instanceTypes: new Map() };

describe('the size of a workload', () => {
  it('reads a jobs file of MAX_JOBS rows, and refuses one more at its line', () => {
    const rows = (n: number) => `name,submit,duration,quota,gpu\n${Array.from({ length: n }, (_, i) => `j${i},0,1h,TeamA,8`).join('\n')}\n`;
    expect(readJobs('jobs.csv', rows(3), ctx).jobs).toHaveLength(3);
    const over = readJobs('jobs.csv', rows(4), ctx);
    expect(over.jobs).toEqual([]);
    expect(over.rejected.map((f) => [f.code, f.line])).toEqual([['trace/too-many-jobs', 5]]);
    const yaml = readJobs('jobs.yaml', `${Array.from({ length: 4 }, (_, i) => `- { name: j${i}, submit: 0, duration: 1h, quota: TeamA, gpu: 8 }`).join('\n')}\n`, ctx);
    expect(yaml.rejected.map((f) => [f.code, f.line])).toEqual([['trace/too-many-jobs', 4]]);
  });

  it('refuses an openb pod list of more than MAX_JOBS pods', () => {
    const head = 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time';
    const pods = (n: number) => `${head}\n${Array.from({ length: n }, (_, i) => `p${i},1000,1024,1,1000,,LS,Running,0,60,0`).join('\n')}\n`;
    const mapping = { qos: DEFAULT_QOS, teams: defaultTeams(policy) };
    expect(readOpenb('pods.csv', pods(3), mapping).jobs).toHaveLength(3);
    expect(readOpenb('pods.csv', pods(4), mapping).rejected.map((f) => f.code)).toEqual(['trace/too-many-jobs']);
  });

  it('refuses a node list of more than MAX_CLUSTER_NODES GPU nodes, at the first one past', () => {
    const nodes = (n: number) => `sn,cpu_milli,memory_mib,gpu,model\n${Array.from({ length: n }, (_, i) => `n${i},96000,786432,8,V100`).join('\n')}\n`;
    expect(loadCluster('openb', 'nodes.csv', nodes(5), 'p').nodes).toHaveLength(5);
    expect(loadCluster('openb', 'nodes.csv', nodes(6), 'p').findings.map((f) => [f.code, f.line])).toEqual([['cluster/too-many-nodes', 7]]);
  });
});
