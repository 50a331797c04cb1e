/**
 * The fragmentation measure (src/kernel/fragmentation.ts) on hand-computed nodes, the
 * `fragmentation` strategy on a small cluster where it and binpack part ways (worked by
 * hand below), and the request checks that guard the workload.
 */
import { describe, expect, it } from 'vitest';
import { KernelError } from '../../../src/kernel/kernel-error.js';
import { createKernel } from '../../../src/kernel/create-kernel.js';
import { cpuShortfall, kernelWorkload, nodeFragmentation, shortfallGrowth, shortfallScale, typicalShapes, WEIGHT_SCALE } from '../../../src/kernel/fragmentation.js';
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

  it("measures the cpu shortfall: the milli-GPUs a node's free cpu cannot serve at the workload's milli per millicore", () => {
    // GPU shapes ask 1 · 1 · 1000 + 2 · 1 · 500 = 2000 milli for 1 · 4000 + 2 · 1000 = 6000
    // millicores: 1/3 milli a millicore. The cpu-only shape weighs in W only.
    const scale = shortfallScale([
      { gpu: 1, cpu: 4000, weight: 1 },
      { gpu: 1, milli: 500, cpu: 1000, weight: 2 },
      { gpu: 0, cpu: 8000, weight: 5 },
    ]);
    expect(scale).toEqual({ weight: 8, milliPerCpu: 1 / 3 });
    // 3000 milli free beside 6000 millicores: 6000 / 3 = 2000 served, 1000 short; enough cpu: 0.
    expect(cpuShortfall(3000, 6000, 1 / 3)).toBeCloseTo(1000, 9);
    expect(cpuShortfall(3000, 9000, 1 / 3)).toBe(0);
    // A workload asking no cpu has no shortfall, whatever the node; cpu that is not a number gives 0.
    expect(shortfallScale([{ gpu: 1, cpu: 0, weight: 1 }]).milliPerCpu).toBe(0);
    expect(cpuShortfall(8000, 0, 0)).toBe(0);
    expect(cpuShortfall(8000, Number.NaN, 0.25)).toBe(0);
    // Growth: W · (after − before). 4000 milli, 16000 millicores at 0.25 → 0 short; the
    // pod takes 1000 milli and 6000 millicores: 3000 − 2500 = 500 short.
    expect(shortfallGrowth({ weight: 8, milliPerCpu: 0.25 }, 4000, 16_000, 3000, 10_000)).toBe(4000);
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

  it('sends a cpu-hungry pod where cpu is left for the free GPUs, and a cpu-light one to the cpu-poor node (cpu shortfall)', () => {
    // Typical pods: 1 GPU and 4 cores, so 0.25 milli-GPU a millicore. n0: 4 GPUs, 16 cores;
    // n1: 4 GPUs, 40 cores. A pod of 1 GPU and 6 cores leaves a typical pod room on
    // either (fragmentation grows 0), but on n0 3 GPUs beside 10 cores: 3000 − 2500 =
    // 500 milli short (before: 4000 − 4000 = 0), weighed W each; on n1 none. Packing alone
    // (and binpack) would take n0. A pod of 1 GPU and 2 cores leaves n0 3000 − 3500 < 0:
    // no shortfall, and packing takes n0.
    const k = createKernel(backend);
    k.load({ nodes: [node({ gpus: 4, cpu: 16_000 }), node({ gpus: 4, cpu: 40_000 })], jobs: [] });
    const typical: WorkloadShape = { gpu: 1, cpu: 4000, weight: 1 };
    const req: GangRequest = { pods: 1, gpu: 1, cpu: 6000, mem: 0, pool: 0, strategy: 'fragmentation', strict: false, workload: [typical] };
    expect(k.place(req).pods[0]!.node).toBe(1);
    expect(k.place({ ...req, strategy: 'binpack' }).pods[0]!.node).toBe(0);
    expect(k.place({ ...req, cpu: 2000 }).pods[0]!.node).toBe(0);
    // A share of the same node and cpu is ranked alike.
    expect(k.place({ ...req, milli: 500 }).pods[0]!.node).toBe(1);
    // A workload asking no cpu sees no shortfall: packing takes n0.
    expect(k.place({ ...req, workload: [{ ...typical, cpu: 0 }] }).pods[0]!.node).toBe(0);
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
