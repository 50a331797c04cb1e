import { describe, expect, it } from 'vitest';
import { packCandidates } from '../../../src/kernel/packed-candidates.js';
import { RESOURCE_GPU, type Candidate, type KernelSnapshot } from '../../../src/kernel/types.js';
import { alone, gang, gpuRange, job, loaded, node, pod, snapshot } from './kernel-builders.js';

/** Four 8-GPU nodes, each held by two 4-GPU jobs of different priorities (jobs 2n and 2n + 1 on node n). */
function cluster(): KernelSnapshot {
  const nodes = [node(), node(), node(), node()];
  const jobs = nodes.flatMap((_, n) => [job([pod(n, gpuRange(0, 4))], { priority: 1 + ((3 * n) % 7), gpus: 4 }), job([pod(n, gpuRange(4, 4))], { priority: 2 + ((5 * n) % 6), gpus: 4 })]);
  return snapshot(nodes, jobs);
}

/** The list with its columns kept beside it, as the engine builds it. */
function packed(candidates: Candidate[]): Candidate[] {
  const list = candidates.map((c) => ({ ...c }));
  packCandidates(list, { jobs: Int32Array.from(list, (c) => c.job), masks: Int32Array.from(list, (c) => c.constraintMask) });
  return list;
}

describe('candidates handed to the wasm kernel as columns (kernel/packed-candidates.ts)', () => {
  const snap = cluster();
  const lists: Candidate[][] = [
    [0, 1, 2, 3, 4, 5, 6, 7].map((j) => ({ job: j, constraintMask: j % 3 === 0 ? 1 : 0 })),
    [1, 3, 4, 6].map((j) => ({ job: j, constraintMask: 1 })),
    [7, 2, 5].map((j) => ({ job: j, constraintMask: -1 })),
  ];

  it('answers as the same list of objects does, for every gang and deficit', () => {
    const kernel = loaded('wasm', snap);
    let compared = 0;
    for (const candidates of lists)
      for (const [pods, gpu] of [
        [1, 8],
        [2, 8],
        [1, 4],
        [3, 4],
      ] as const)
        for (const deficit of [0, 4, 12]) {
          const constraints = deficit ? [{ resource: RESOURCE_GPU, deficit }] : [];
          const plain = kernel.selectVictims(gang(pods, gpu), alone(candidates, constraints));
          expect(kernel.selectVictims(gang(pods, gpu), alone(packed(candidates), constraints))).toEqual(plain);
          compared++;
        }
    expect(compared).toBe(36);
  });

  it('reads the columns, not the objects, when both are there', () => {
    const kernel = loaded('wasm', snap);
    const objects = [{ job: 0, constraintMask: 0 }];
    // The columns name job 1 on the same node: the victim is the columns' job.
    packCandidates(objects, { jobs: Int32Array.of(1), masks: Int32Array.of(0) });
    expect(kernel.selectVictims(gang(1, 8), alone(objects)).ok).toBe(false);
    const both = [
      { job: 0, constraintMask: 0 },
      { job: 2, constraintMask: 0 },
    ];
    packCandidates(both, { jobs: Int32Array.of(0, 1), masks: Int32Array.of(0, 0) });
    expect(kernel.selectVictims(gang(1, 8), alone(both)).victims).toEqual([0, 1]);
  });

  it('refuses a column naming no job of the snapshot, and columns of another length', () => {
    const kernel = loaded('wasm', snap);
    const list = [{ job: 0, constraintMask: 0 }];
    packCandidates(list, { jobs: Int32Array.of(99), masks: Int32Array.of(0) });
    expect(() => kernel.selectVictims(gang(1, 8), alone(list))).toThrow(expect.objectContaining({ code: 'kernel/invalid-candidate' }));
    expect(() => packCandidates(list, { jobs: Int32Array.of(0, 1), masks: Int32Array.of(0, 0) })).toThrow();
  });
});
