/**
 * The fragmentation measure (src/kernel/fragmentation.ts) on hand-computed nodes, the
 * `fragmentation` strategy on a small cluster where it and binpack part ways (worked by
 * hand below), and the request checks that guard the workload.
 */
import { describe, expect, it } from 'vitest';
import { KernelError } from '../../../src/kernel/kernel-error.js';
import { createKernel } from '../../../src/kernel/create-kernel.js';
import { kernelWorkload, nodeFragmentation, typicalShapes, WEIGHT_SCALE } from '../../../src/kernel/fragmentation.js';
import type { GangRequest, KernelSnapshot, WorkloadShape } from '../../../src/kernel/types.js';
import { BACKENDS, node } from './kernel-builders.js';

const WHOLE: WorkloadShape = { gpu: 1, cpu: 0, weight: 1 };

describe('fragmentation measure', () => {
  it('counts what each typical shape cannot use, weighted', () => {
    // GPUs left [400, 1000, 0]; 4 cores free; model 1.
    const n = { left: [400, 1000, 0], freeCpu: 4000, model: 1 };
    // whole 1-GPU pod fits (GPU 1): it cannot use GPU 0's 400 → 400.
    expect(nodeFragmentation(n, [WHOLE])).toBe(400);
    // a 2-GPU pod does not fit: all 1400 count; a 300m share fits on GPU 0 or 1: nothing counts.
    expect(nodeFragmentation(n, [{ gpu: 2, cpu: 0, weight: 1 }])).toBe(1400);
    expect(nodeFragmentation(n, [{ gpu: 1, milli: 300, cpu: 0, weight: 1 }])).toBe(0);
    // a cpu-only pod uses no GPU: 1400; a pod asking 8 cores does not fit: 1400; model 0 only: 1400.
    expect(nodeFragmentation(n, [{ gpu: 0, cpu: 1000, weight: 1 }])).toBe(1400);
    expect(nodeFragmentation(n, [{ gpu: 1, cpu: 8000, weight: 1 }])).toBe(1400);
    expect(nodeFragmentation(n, [{ gpu: 1, cpu: 0, models: 1, weight: 1 }])).toBe(1400);
    // weights add: 3 · 400 + 1 · 1400.
    expect(
      nodeFragmentation(n, [
        { ...WHOLE, weight: 3 },
        { gpu: 2, cpu: 0, weight: 1 },
      ]),
    ).toBe(2600);
  });

  it("counts every free milli of a node a shape's memory does not fit beside, when the node's free memory is given", () => {
    const shape: WorkloadShape = { gpu: 1, cpu: 0, mem: 1000, weight: 1 };
    expect(nodeFragmentation({ left: [1000, 300], freeCpu: 0, freeMem: 999, model: 0 }, [shape])).toBe(1300);
    expect(nodeFragmentation({ left: [1000, 300], freeCpu: 0, freeMem: 1000, model: 0 }, [shape])).toBe(300);
    // No free memory given (the paper's measure, B1's column): memory is not looked at.
    expect(nodeFragmentation({ left: [1000, 300], freeCpu: 0, model: 0 }, [shape])).toBe(300);
    // A shape asking no memory fits whatever is free.
    expect(nodeFragmentation({ left: [1000, 300], freeCpu: 0, freeMem: 0, model: 0 }, [WHOLE])).toBe(300);
  });

  it('scales kernel weights to integers and takes the typical shapes covering 95 % of pods', () => {
    expect(
      kernelWorkload([
        { ...WHOLE, weight: 0.25 },
        { ...WHOLE, gpu: 2, weight: 0.75 },
      ]).map((s) => s.weight),
    ).toEqual([WEIGHT_SCALE / 4, (3 * WEIGHT_SCALE) / 4]);
    const pods = [...Array<WorkloadShape>(90).fill(WHOLE), ...Array<WorkloadShape>(6).fill({ gpu: 2, cpu: 0, weight: 1 }), ...Array<WorkloadShape>(4).fill({ gpu: 4, cpu: 0, weight: 1 })];
    // 90 + 6 = 96 ≥ 95: the 4-GPU shape is left out.
    expect(typicalShapes(pods).map((s) => [s.gpu, s.weight])).toEqual([
      [1, 90],
      [2, 6],
    ]);
    // Pods of one shape asking different memory: one typical pod, asking the least of them.
    const mixed = typicalShapes([
      { ...WHOLE, mem: 3000 },
      { ...WHOLE, mem: 2000 },
      { ...WHOLE, mem: 2500 },
    ]);
    expect(mixed.map((s) => [s.weight, s.mem])).toEqual([[3, 2000]]);
  });
});

/**
 * Two 2-GPU nodes; n0's GPU 0 is shared (600m used, 400m left), its GPU 1 free; n1's
 * GPU 0 is held whole, its GPU 1 free. A pod asks 400m. The workload: whole 1-GPU pods.
 *
 * binpack: milli left n0 = 400 + 1000 = 1400, n1 = 1000 → n1 (fewest), on its free GPU 1.
 * fragmentation (growth of what 1-GPU pods cannot use, + 1/256 of the milli left after):
 *   n0 before [400, 1000]: a 1-GPU pod fits, cannot use GPU 0's 400 → 400.
 *   n0 GPU 0 → [0, 1000]: 0, growth −400; n0 GPU 1 → [400, 600]: no whole GPU, 1000, growth +600.
 *   n1 before [0, 1000]: 0; GPU 1 → [0, 600]: 600, growth +600.
 *   So n0's GPU 0 (growth −400, left 1000) beats n1 (growth +600, left 600) by far.
 */
const splitCase: { snapshot: KernelSnapshot; req: GangRequest } = {
  snapshot: {
    nodes: [node({ gpus: 2, used: [0] }), node({ gpus: 2, used: [0] })],
    jobs: [
      { pods: [{ node: 0, mask: 1, cpu: 0, mem: 0, milli: 600 }], rank: 2, priority: 5, lostWork: 0, gpus: 600, startedAt: 0, order: 0 },
      { pods: [{ node: 1, mask: 1, cpu: 0, mem: 0 }], rank: 2, priority: 5, lostWork: 0, gpus: 1000, startedAt: 0, order: 1 },
    ],
  },
  req: { pods: 1, gpu: 1, milli: 400, cpu: 0, mem: 0, pool: 0, strategy: 'fragmentation', strict: false, workload: [WHOLE] },
};

describe.each(BACKENDS)('fragmentation strategy (%s kernel)', (backend) => {
  it('joins the shared GPU fragmentation frees, where binpack breaks a whole GPU (hand-worked above)', () => {
    const k = createKernel(backend);
    k.load(splitCase.snapshot);
    expect(k.place(splitCase.req)).toEqual({ ok: true, pods: [{ node: 0, mask: 0b01 }] });
    expect(k.place({ ...splitCase.req, strategy: 'binpack' })).toEqual({ ok: true, pods: [{ node: 1, mask: 0b10 }] });
  });

  it("keeps room for the workload's memory: a pod goes where a typical pod's memory still fits beside it", () => {
    // Two free 2-GPU nodes, 10,000 and 20,000 MiB free; typical pods take 1 GPU and 8,000 MiB.
    // On n0 the pod (4,000 MiB) leaves 6,000: no typical pod fits, its free GPU counts
    // (growth +1000 · weight); on n1 it leaves 16,000: growth 0. Without memory in the
    // shape both grow 0 and the lower index, n0, wins.
    const k = createKernel(backend);
    k.load({ nodes: [node({ gpus: 2, mem: 10_000 }), node({ gpus: 2, mem: 20_000 })], jobs: [] });
    const req: GangRequest = { pods: 1, gpu: 1, cpu: 0, mem: 4000, pool: 0, strategy: 'fragmentation', strict: false, workload: [{ ...WHOLE, mem: 8000 }] };
    expect(k.place(req).pods[0]!.node).toBe(1);
    expect(k.place({ ...req, workload: [WHOLE] }).pods[0]!.node).toBe(0);
  });

  it('ranks by packing alone with no workload: the fewest milli-GPUs left after', () => {
    const k = createKernel(backend);
    k.load({ nodes: [node({ gpus: 4 }), node({ gpus: 4, used: [0, 1] }), node({ gpus: 4, used: [2] })], jobs: [] });
    expect(k.place({ pods: 1, gpu: 1, cpu: 0, mem: 0, pool: 0, strategy: 'fragmentation', strict: false }).pods[0]!.node).toBe(1);
  });

  it('refuses an unknown strategy and a malformed workload, naming the field and what is allowed', () => {
    const k = createKernel(backend);
    k.load(splitCase.snapshot);
    const refused = (req: GangRequest): string => {
      try {
        k.place(req);
      } catch (e) {
        expect(e).toBeInstanceOf(KernelError);
        expect((e as KernelError).code).toBe('kernel/invalid-request');
        return (e as Error).message;
      }
      return 'accepted';
    };
    expect(refused({ ...splitCase.req, strategy: 'fgd' as GangRequest['strategy'] })).toBe("kernel/invalid-request: request.strategy must be one of 'binpack', 'spread', 'fragmentation'");
    expect(refused({ ...splitCase.req, workload: [{ ...WHOLE, weight: 0 }] })).toMatch(/^kernel\/invalid-request: request\.workload\[0\]\.weight must be a finite number > 0/);
    expect(refused({ ...splitCase.req, workload: [{ ...WHOLE, gpu: 2, milli: 300 }] })).toMatch(/^kernel\/invalid-request: request\.workload\[0\]\.gpu must be 1/);
    expect(refused({ ...splitCase.req, workload: Array<WorkloadShape>(65).fill(WHOLE) })).toMatch(/at most 64/);
    expect(refused({ ...splitCase.req, workload: [{ ...WHOLE, mem: -1 }] })).toMatch(/^kernel\/invalid-request: request\.workload\[0\]\.mem must be a finite number >= 0/);
  });
});
