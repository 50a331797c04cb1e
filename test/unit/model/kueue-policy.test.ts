/** The model's Kueue values are the ones the Kueue algorithms' contract spells (rules/kueue/kueue-state.ts). */
import { describe, expect, it } from 'vitest';
import { KUEUE_BORROW_WITHIN_COHORT, KUEUE_RECLAIM_WITHIN_COHORT, KUEUE_WITHIN_CLUSTER_QUEUE, isGpuResource, nodeMatchesFlavor } from '../../../src/model/kueue-policy.js';
import { BORROW_WITHIN_COHORT, RECLAIM_WITHIN_COHORT, WITHIN_CLUSTER_QUEUE } from '../../../src/rules/kueue/kueue-state.js';

describe('model/kueue-policy', () => {
  it('spells the preemption policies as the contract does', () => {
    expect([...KUEUE_WITHIN_CLUSTER_QUEUE]).toEqual([...WITHIN_CLUSTER_QUEUE]);
    expect([...KUEUE_RECLAIM_WITHIN_COHORT]).toEqual([...RECLAIM_WITHIN_COHORT]);
    expect([...KUEUE_BORROW_WITHIN_COHORT]).toEqual([...BORROW_WITHIN_COHORT]);
  });

  it('matches a node to a flavor when every nodeLabel is among its labels', () => {
    const a100 = { nodeLabels: { model: 'a100', zone: 'z1' } };
    expect(nodeMatchesFlavor({ model: 'a100', zone: 'z1', extra: 'x' }, a100)).toBe(true);
    expect(nodeMatchesFlavor({ model: 'a100' }, a100)).toBe(false);
    expect(nodeMatchesFlavor({ model: 'h100', zone: 'z1' }, a100)).toBe(false);
    expect(nodeMatchesFlavor(undefined, { nodeLabels: {} })).toBe(true);
  });

  it('counts GPUs under any vendor name', () => {
    expect(['nvidia.com/gpu', 'amd.com/gpu', 'gpu'].every(isGpuResource)).toBe(true);
    expect(['cpu', 'memory', 'example.com/foo', 'nvidia.com/mig-1g.5gb'].some(isGpuResource)).toBe(false);
  });
});
