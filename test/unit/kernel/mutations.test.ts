/**
 * Permanent mutations (addJob, removeJob), GPU models and the room query, on each
 * backend: what they do, what they refuse, and that a refused call changes nothing.
 */
import { describe, expect, it } from 'vitest';
import { BACKENDS, gang, gpuMask, gpuRange, alone, job, loaded, node, pod, snapshot } from './kernel-builders.js';

const invalidJob = expect.objectContaining({ code: 'kernel/invalid-job' });

describe.each(BACKENDS)('kernel mutations (%s)', (backend) => {
  it('addJob occupies its GPUs: the next placement goes around them', () => {
    const kernel = loaded(backend, snapshot([node(), node()]));
    expect(kernel.addJob(job([pod(0, gpuRange(0, 8))]))).toBe(0);
    expect(kernel.place(gang(1, 8))).toEqual({ ok: true, pods: [{ node: 1, mask: gpuMask(gpuRange(0, 8)) }] });
    expect(kernel.room(gang(1, 1))).toEqual({ freeGpus: 8, largestFree: 8, podsFit: 8, fragmentedGpus: 0 });
  });

  it('addJob refuses a GPU already held, or one the node lacks, and changes nothing', () => {
    const kernel = loaded(backend, snapshot([node({ gpus: 4, used: [3] })]));
    const before = kernel.room(gang(1, 1));
    // The first pod is fine; the second clashes with it: the first must be taken back too.
    expect(() => kernel.addJob(job([pod(0, [0]), pod(0, [0, 1])]))).toThrow(invalidJob);
    expect(() => kernel.addJob(job([pod(0, [3])]))).toThrow(invalidJob);
    expect(() => kernel.addJob(job([pod(0, [5])]))).toThrow(invalidJob);
    expect(() => kernel.addJob(job([pod(1, [0])]))).toThrow(invalidJob);
    expect(kernel.room(gang(1, 1))).toEqual(before);
    // Indices stay dense after refusals.
    expect(kernel.addJob(job([pod(0, [0])]))).toBe(0);
  });

  it('removeJob frees the GPUs, retires the index, and never reuses it', () => {
    const snap = snapshot([node({ gpus: 2 })], [job([pod(0, [0, 1])])]);
    const kernel = loaded(backend, snap);
    expect(kernel.place(gang(1, 2)).ok).toBe(false);
    kernel.removeJob(0);
    expect(kernel.place(gang(1, 2))).toEqual({ ok: true, pods: [{ node: 0, mask: 0b11 }] });
    expect(() => kernel.removeJob(0)).toThrow(invalidJob);
    expect(() => kernel.removeJob(1)).toThrow(invalidJob);
    expect(() => kernel.selectVictims(gang(1, 2), alone([{ job: 0, constraintMask: 0 }]))).toThrow(expect.objectContaining({ code: 'kernel/invalid-candidate' }));
    expect(kernel.addJob(job([pod(0, [0])]))).toBe(1);
  });

  it('grows past its first capacity and keeps every job addressable as a victim', () => {
    const kernel = loaded(backend, snapshot(Array.from({ length: 40 }, () => node())));
    for (let n = 0; n < 40; n++) expect(kernel.addJob(job([pod(n, gpuRange(0, 8))], { priority: (n % 9) + 1 }))).toBe(n);
    expect(kernel.place(gang(1, 1)).ok).toBe(false);
    const all = Array.from({ length: 40 }, (_, j) => ({ job: j, constraintMask: 0 }));
    // The lowest priority job (priority 1: jobs 0, 9, 18, 27, 36) goes first; ties by name order.
    expect(kernel.selectVictims(gang(1, 8), alone(all)).victims).toEqual([0]);
  });

  it('places only on nodes of an allowed model, and room counts only those', () => {
    const kernel = loaded(backend, snapshot([node({ model: 0 }), node({ model: 2, used: [0] }), node({ model: 1 })]));
    expect(kernel.place(gang(1, 4, { models: 0b100 })).pods.map((p) => p.node)).toEqual([1]);
    expect(kernel.place(gang(1, 8, { models: 0b100 })).ok).toBe(false);
    expect(kernel.place(gang(2, 8, { models: 0b011 })).pods.map((p) => p.node)).toEqual([0, 2]);
    expect(kernel.room(gang(1, 8, { models: 0b100 }))).toEqual({ freeGpus: 7, largestFree: 7, podsFit: 0, fragmentedGpus: 7 });
    expect(() => kernel.place(gang(1, 1, { models: 0.5 }))).toThrow(expect.objectContaining({ code: 'kernel/invalid-request' }));
  });
});
