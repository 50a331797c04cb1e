import { describe, expect, it } from 'vitest';
import { DenseKernel } from '../../../src/engine/dense-kernel.js';
import { ReferenceKernel } from '../../../src/kernel/reference.js';
import { gang, job, node, pod, snapshot, alone } from '../kernel/kernel-builders.js';

describe('DenseKernel', () => {
  const base = () => snapshot([node(), node()], [job([pod(0, [0, 1, 2, 3, 4, 5, 6, 7])]), job([pod(1, [0, 1, 2, 3])])]);

  it('answers as its inner kernel with the same jobs, whatever indices the inner one used', () => {
    const dense = new DenseKernel(new ReferenceKernel(), 1);
    dense.load(base());
    const added = dense.addJob(job([pod(1, [4, 5, 6, 7])]));
    expect(added).toBe(2);
    dense.removeJob(0);
    // Dense indices: the last job took the removed one's place.
    expect(dense.size).toBe(2);
    const fresh = new ReferenceKernel();
    fresh.load(snapshot([node(), node()], [job([pod(1, [4, 5, 6, 7])]), job([pod(1, [0, 1, 2, 3])])]));
    expect(dense.place(gang(1, 8))).toEqual(fresh.place(gang(1, 8)));
    expect(dense.room(gang(1, 4))).toEqual(fresh.room(gang(1, 4)));
  });

  it('counts what it asked of the inner kernel: loads, adds, removes', () => {
    const dense = new DenseKernel(new ReferenceKernel());
    dense.load(base());
    dense.addJob(job([pod(1, [4, 5])]));
    dense.removeJob(1);
    expect(dense.stats).toMatchObject({ loads: 1, adds: 1, removes: 1 });
  });

  it('maps victims back to dense indices, and refuses a job index it does not hold', () => {
    const dense = new DenseKernel(new ReferenceKernel(), 1);
    dense.load(base());
    dense.removeJob(0);
    // Node 0 is free now; a second 8-GPU pod needs node 1, held by the old job 1, now dense job 0.
    const r = dense.selectVictims(gang(2, 8), alone([{ job: 0, constraintMask: 0 }]));
    expect(r.ok && r.victims).toEqual([0]);
    // A plain Error (a caller's bug, no code to match): the text says which index.
    expect(() => dense.removeJob(5)).toThrow(/no job at index 5/);
  });
});
