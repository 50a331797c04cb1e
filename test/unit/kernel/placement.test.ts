import { describe, expect, it } from 'vitest';
import type { GangRequest, KernelSnapshot, PodPlacement } from '../../../src/kernel/types.js';
import { createKernel } from '../../../src/kernel/create-kernel.js';
import { BACKENDS, gang, gpuMask, gpuRange, job, loaded, node, pod, snapshot } from './kernel-builders.js';

interface PlacementCase {
  name: string;
  snap: KernelSnapshot;
  req: GangRequest;
  /** Expected pods, or null when the gang must not be placed. */
  want: PodPlacement[] | null;
}

const on = (n: number, gpus: number[]): PodPlacement => ({ node: n, mask: gpuMask(gpus) });

const cases: PlacementCase[] = [
  {
    name: 'binpack picks the fullest node that fits',
    snap: snapshot([node({ used: gpuRange(0, 2) }), node({ used: gpuRange(0, 6) }), node({ used: gpuRange(0, 7) })]),
    req: gang(1, 2),
    want: [on(1, [6, 7])],
  },
  {
    name: 'spread picks the emptiest node',
    snap: snapshot([node({ used: gpuRange(0, 2) }), node({ used: gpuRange(0, 6) }), node()]),
    req: gang(1, 2, { strategy: 'spread' }),
    want: [on(2, [0, 1])],
  },
  {
    name: 'ties go to the lowest node index',
    snap: snapshot([node({ used: [0] }), node({ used: [0] })]),
    req: gang(1, 1),
    want: [on(0, [1])],
  },
  {
    name: 'binpack keeps filling the node it chose while it fits',
    snap: snapshot([node(), node({ used: gpuRange(0, 4) })]),
    req: gang(3, 2),
    want: [on(1, [4, 5]), on(1, [6, 7]), on(0, [0, 1])],
  },
  {
    name: 'spread moves to the emptiest node after each pod',
    snap: snapshot([node(), node({ used: gpuRange(0, 4) })]),
    req: gang(3, 2, { strategy: 'spread' }),
    want: [on(0, [0, 1]), on(0, [2, 3]), on(0, [4, 5])],
  },
  {
    name: 'a 4-GPU pod on a node with GPU 1 used gets the aligned block 4-7',
    snap: snapshot([node({ used: [1] })]),
    req: gang(1, 4),
    want: [on(0, gpuRange(4, 4))],
  },
  {
    name: 'a 2-GPU pod gets an aligned pair, not two loose GPUs',
    snap: snapshot([node({ used: [1, 4] })]),
    req: gang(1, 2),
    want: [on(0, [2, 3])],
  },
  {
    name: 'without an aligned block a non-strict pod takes the lowest free GPUs',
    snap: snapshot([node({ used: [1, 5] })]),
    req: gang(1, 4),
    want: [on(0, [0, 2, 3, 4])],
  },
  {
    name: 'strict refuses a non-aligned fit that non-strict accepts',
    snap: snapshot([node({ used: [1, 5] })]),
    req: gang(1, 4, { strict: true }),
    want: null,
  },
  {
    name: 'strict takes the aligned block when there is one',
    snap: snapshot([node({ used: [1, 5] }), node({ used: [0] })]),
    req: gang(1, 4, { strict: true }),
    want: [on(1, gpuRange(4, 4))],
  },
  {
    name: 'strict has no effect on a shape that is not a power of two',
    snap: snapshot([node({ used: [1, 5] })]),
    req: gang(2, 3, { strict: true }),
    want: [on(0, [0, 2, 3]), on(0, [4, 6, 7])],
  },
  {
    name: 'cpu limits how many pods a node takes',
    snap: snapshot([node({ cpu: 3000 }), node({ cpu: 2000 })]),
    req: gang(2, 1, { cpu: 2000 }),
    want: [on(0, [0]), on(1, [0])],
  },
  {
    name: 'memory limits how many pods a node takes',
    snap: snapshot([node({ mem: 1024 })]),
    req: gang(2, 1, { mem: 1024 }),
    want: null,
  },
  {
    name: 'a node without the cpu is skipped even with free GPUs',
    snap: snapshot([node({ cpu: 500 }), node({ used: gpuRange(0, 4), cpu: 1000 })]),
    req: gang(1, 1, { cpu: 1000 }),
    want: [on(1, [4])],
  },
  {
    name: 'pools are not mixed: free GPUs in another pool do not help',
    snap: snapshot([node({ used: gpuRange(0, 8) }), node({ pool: 1 })]),
    req: gang(1, 1),
    want: null,
  },
  {
    name: 'a request for another pool lands only on that pool',
    snap: snapshot([node(), node({ pool: 1, used: [0] })]),
    req: gang(1, 1, { pool: 1 }),
    want: [on(1, [1])],
  },
  {
    name: 'a pool with no nodes has no room',
    snap: snapshot([node()]),
    req: gang(1, 1, { pool: 7 }),
    want: null,
  },
  {
    name: 'a gang is placed whole: 3 x 8 on two free nodes is refused',
    snap: snapshot([node(), node()]),
    req: gang(3, 8),
    want: null,
  },
  {
    name: 'a gang is placed whole: 2 x 8 on two free nodes uses both',
    snap: snapshot([node(), node()]),
    req: gang(2, 8),
    want: [on(0, gpuRange(0, 8)), on(1, gpuRange(0, 8))],
  },
  {
    name: 'a pod larger than any node never fits',
    snap: snapshot([node({ gpus: 4 }), node({ gpus: 4 })]),
    req: gang(1, 8),
    want: null,
  },
  {
    name: 'a 32-GPU node hands out GPU 31 as an unsigned mask',
    snap: snapshot([node({ gpus: 32, used: gpuRange(0, 16) })]),
    req: gang(1, 16, { strict: true }),
    want: [on(0, gpuRange(16, 16))],
  },
  {
    name: 'an empty gang is placed trivially',
    snap: snapshot([node({ used: gpuRange(0, 8) })]),
    req: gang(0, 1),
    want: [],
  },
];

describe.each(BACKENDS)('placement (%s kernel)', (backend) => {
  it.each(cases)('$name', ({ snap, req, want }) => {
    const kernel = loaded(backend, snap);
    const result = kernel.place(req);
    expect(result).toEqual(want === null ? { ok: false, pods: [] } : { ok: true, pods: want });
  });

  it('answers the same request the same way twice (the loaded state is restored)', () => {
    const kernel = loaded(backend, snapshot([node({ used: [1] }), node({ used: gpuRange(0, 6) })]));
    const first = kernel.place(gang(3, 2));
    expect(kernel.place(gang(3, 2))).toEqual(first);
  });

  it('refuses a query before a snapshot is loaded', () => {
    expect(() => createKernel(backend).place(gang(1, 1))).toThrow(expect.objectContaining({ code: 'kernel/not-loaded' }));
  });

  it.each([
    ['gpu 0', gang(1, 0)],
    ['gpu 33', gang(1, 33)],
    ['fractional pods', gang(1.5, 1)],
    ['negative cpu', gang(1, 1, { cpu: -1 })],
    ['unknown strategy', gang(1, 1, { strategy: 'random' as 'spread' })],
  ])('refuses a malformed request (%s)', (_name, req) => {
    const kernel = loaded(backend, snapshot([node()]));
    expect(() => kernel.place(req)).toThrow(expect.objectContaining({ code: 'kernel/invalid-request' }));
  });

  it('refuses a snapshot whose pod names a missing node', () => {
    const bad = snapshot([node()], [job([pod(0, [0])])]);
    bad.jobs[0]!.pods[0]!.node = 3;
    expect(() => createKernel(backend).load(bad)).toThrow(expect.objectContaining({ code: 'kernel/invalid-snapshot' }));
  });
});
