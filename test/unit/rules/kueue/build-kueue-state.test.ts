/** The KueueState of a Kueue-rules pool from its policy and Cluster (SEMANTICS 12). */
import { describe, expect, it } from 'vitest';
import { buildKueueState, gpuResourceOf, podRequests } from '../../../../src/rules/kueue/build-kueue-state.js';
import { kueuePolicy } from '../../../helpers/kueue-policy.js';

const policy = kueuePolicy();
const built = () => buildKueueState({ pool: policy.pools[0]!, quotas: policy.quotas, nodes: policy.cluster!.nodes, jobs: policy.cluster!.jobs });

describe('buildKueueState', () => {
  it('makes the cohort tree with quota per flavor-resource and the preemption policy', () => {
    const { state } = built();
    expect([...state.nodes.keys()]).toEqual(['org', 'A', 'B']);
    expect(state.nodes.get('org')).toMatchObject({ kind: 'Cohort', parent: null, children: ['A', 'B'] });
    expect(state.nodes.get('B')!.quota.get('a100/nvidia.com/gpu')).toEqual({ nominal: 8, lendingLimit: 4 });
    expect(state.nodes.get('A')!.quota.get('h100/cpu')).toEqual({ nominal: 64_000 });
    expect(state.nodes.get('A')!.preemption).toEqual({ withinClusterQueue: 'LowerPriority', reclaimWithinCohort: 'Any', borrowWithinCohort: { policy: 'Never' } });
  });

  it("counts each pod on its node's flavor, in the queue's flavor order, with the real priority", () => {
    const { state } = built();
    const aRun = state.workloads.find((w) => w.name === 'a-run')!;
    // a-0 matches a100; h-0 matches tainted first (same labels), in A's order: tainted before h100.
    expect(Object.fromEntries(aRun.usage)).toEqual({ 'a100/nvidia.com/gpu': 2, 'a100/cpu': 4000, 'tainted/nvidia.com/gpu': 2, 'tainted/cpu': 4000 });
    expect(aRun).toMatchObject({ clusterQueue: 'A', priority: -5, createdAt: Date.parse('2026-11-20T10:00:00Z'), admittedAt: Date.parse('2026-11-20T10:00:00Z'), evicted: false });
  });

  it('counts a pod on a node no flavor matches on the first flavor, and says so', () => {
    const { state, unmatched } = built();
    expect(Object.fromEntries(state.workloads.find((w) => w.name === 'stray')!.usage)).toEqual({ 'a100/nvidia.com/gpu': 1 });
    expect(unmatched).toEqual([{ job: 'stray', node: 'x-0', resources: ['nvidia.com/gpu'] }]);
  });

  it("names the job's GPUs by the queue's GPU resource", () => {
    const groups = policy.quotas.find((q) => q.name === 'A')!.kueue!.resourceGroups;
    expect(gpuResourceOf(groups)).toBe('nvidia.com/gpu');
    expect(gpuResourceOf([{ coveredResources: ['amd.com/gpu'], flavors: [], src: groups[0]!.src }])).toBe('amd.com/gpu');
    expect(Object.fromEntries(podRequests({ resources: { gpu: 2, cpu: 500 } }, groups))).toEqual({ 'nvidia.com/gpu': 2, cpu: 500 });
  });
});
