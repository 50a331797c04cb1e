import { describe, expect, it } from 'vitest';
import { createKernel } from '../../../src/kernel/create-kernel.js';
import { RESOURCE_CPU, RESOURCE_GPU, type KernelJob, type KernelSnapshot } from '../../../src/kernel/types.js';
import { CRITERIA } from '../../../src/kernel/victim-order.js';
import { BACKENDS, allCandidates, alone, gang, gpuMask, gpuRange, isMinimal, job, loaded, node, pod, snapshot } from './kernel-builders.js';
import { kernelTwins } from '../../helpers/differential.js';

/** Two jobs, each alone on a full 8-GPU node: whichever the order prefers is the victim of a 1 x 8. */
function rivals(a: Partial<Omit<KernelJob, 'pods'>>, b: Partial<Omit<KernelJob, 'pods'>>): KernelSnapshot {
  return snapshot([node(), node()], [job([pod(0, gpuRange(0, 8))], a), job([pod(1, gpuRange(0, 8))], b)]);
}

/** Preference cases: job 1 is always the one that should go (the order must not just follow the index). */
const preferenceCases = [
  { name: 'an idle job goes before a borrowing one', snap: rivals({ rank: 1 }, { rank: 0 }) },
  { name: 'a borrowing job goes before an in-quota one', snap: rivals({ rank: 2 }, { rank: 1 }) },
  { name: 'standing outranks priority', snap: rivals({ rank: 2, priority: 1 }, { rank: 1, priority: 9 }) },
  { name: 'lower priority goes first', snap: rivals({ priority: 6 }, { priority: 3 }) },
  { name: 'less lost work goes first', snap: rivals({ lostWork: 12.5 }, { lostWork: 3 }) },
  { name: 'fewer GPUs go first', snap: rivals({ gpus: 16 }, { gpus: 8 }) },
  { name: 'the more recently started goes first', snap: rivals({ startedAt: 1000 }, { startedAt: 2000 }) },
  { name: 'name order breaks the last tie', snap: rivals({ order: 7 }, { order: 2 }) },
];

describe.each(BACKENDS)('victim selection (%s kernel)', (backend) => {
  it.each(preferenceCases)('$name', ({ snap }) => {
    const result = loaded(backend, snap).selectVictims(gang(1, 8), alone(allCandidates(snap), []));
    expect(result).toEqual({ ok: true, victims: [1], pods: [{ node: 1, mask: gpuMask(gpuRange(0, 8)) }], alternative: 0, exact: true });
  });

  it('preempts nobody when the gang already fits', () => {
    const snap = snapshot([node(), node({ used: [0] })], [job([pod(1, [0])], { rank: 0 })]);
    const result = loaded(backend, snap).selectVictims(gang(1, 4), alone(allCandidates(snap), []));
    expect(result).toEqual({ ok: true, victims: [], pods: [{ node: 1, mask: gpuMask(gpuRange(4, 4)) }], alternative: 0, exact: true });
  });

  it('reprieves a victim the gang turned out not to need', () => {
    // The idle 1-GPU job goes first but frees no whole node; the borrowing job then does,
    // and the reprieve hands the idle job its GPU back.
    const snap = snapshot([node({ used: gpuRange(1, 7) }), node()], [job([pod(0, [0])], { rank: 0 }), job([pod(1, gpuRange(0, 8))], { rank: 1 })]);
    const candidates = allCandidates(snap);
    const result = loaded(backend, snap).selectVictims(gang(1, 8), alone(candidates, []));
    expect(result.victims).toEqual([1]);
    expect(isMinimal(snap, gang(1, 8), candidates, [], result.victims)).toBe(true);
  });

  it('leaves a minimal set: dropping any one victim makes the gang unplaceable', () => {
    const jobs = Array.from({ length: 8 }, (_, i) => job([pod(i >> 1, gpuRange((i & 1) * 4, 4))], { lostWork: i % 3, order: 7 - i }));
    const snap = snapshot(
      Array.from({ length: 4 }, () => node()),
      jobs,
    );
    const candidates = allCandidates(snap);
    const result = loaded(backend, snap).selectVictims(gang(3, 8), alone(candidates, []));
    expect(result.ok).toBe(true);
    expect(result.victims).toHaveLength(6);
    expect(isMinimal(snap, gang(3, 8), candidates, [], result.victims)).toBe(true);
  });

  it('frees every pod of a gang victim, on every node it holds', () => {
    const snap = snapshot([node(), node()], [job([pod(0, gpuRange(0, 8)), pod(1, gpuRange(0, 8))])]);
    const result = loaded(backend, snap).selectVictims(gang(2, 8), alone(allCandidates(snap), []));
    expect(result).toEqual({
      ok: true,
      victims: [0],
      pods: [
        { node: 0, mask: 0xff },
        { node: 1, mask: 0xff },
      ],
      alternative: 0,
      exact: true,
    });
  });

  it('preempts for a quota deficit even when placement alone needs no room', () => {
    // Job 0 is cheapest but relieves no constraint; job 1 relieves 2 GPUs, job 2 relieves 4.
    const snap = snapshot(
      [node({ used: gpuRange(0, 6) }), node()],
      [job([pod(0, gpuRange(0, 2))], { lostWork: 1 }), job([pod(0, gpuRange(2, 2))], { lostWork: 2 }), job([pod(0, [4, 5]), pod(1, [0, 1])], { lostWork: 3 })],
    );
    const candidates = [
      { job: 0, constraintMask: 0 },
      { job: 1, constraintMask: 1 },
      { job: 2, constraintMask: 1 },
    ];
    const constraints = [{ resource: RESOURCE_GPU, deficit: 4 }];
    const result = loaded(backend, snap).selectVictims(gang(1, 1), alone(candidates, constraints));
    expect(result.victims).toEqual([2]);
    expect(isMinimal(snap, gang(1, 1), candidates, constraints, result.victims)).toBe(true);
  });

  it('counts a cpu deficit in millicores over the victim pods', () => {
    const snap = snapshot([node()], [job([pod(0, [0], 1500)], { lostWork: 1 }), job([pod(0, [1], 500), pod(0, [2], 500)], { lostWork: 0 })]);
    const result = loaded(backend, snap).selectVictims(gang(1, 1), alone(allCandidates(snap, 1), [{ resource: RESOURCE_CPU, deficit: 1200 }]));
    // Job 1 (1000 millicores) goes first but is not enough; job 0 alone covers it: job 1 is reprieved.
    expect(result.victims).toEqual([0]);
  });

  it('returns ok=false when even every candidate is not enough', () => {
    const snap = snapshot([node(), node()], [job([pod(0, gpuRange(0, 8))]), job([pod(1, gpuRange(0, 8))])]);
    expect(loaded(backend, snap).selectVictims(gang(3, 8), alone(allCandidates(snap), []))).toEqual({ ok: false, victims: [], pods: [], alternative: -1, exact: false });
  });

  it('returns ok=false when a deficit is larger than the candidates hold', () => {
    const snap = snapshot([node()], [job([pod(0, gpuRange(0, 4))])]);
    const result = loaded(backend, snap).selectVictims(gang(1, 1), alone(allCandidates(snap, 1), [{ resource: RESOURCE_GPU, deficit: 5 }]));
    expect(result).toEqual({ ok: false, victims: [], pods: [], alternative: -1, exact: false });
  });

  it('leaves the loaded state as loaded: later answers match a fresh kernel', () => {
    const snap = snapshot([node({ used: [7] }), node(), node({ pool: 1 })], [job([pod(0, gpuRange(0, 4), 100, 10), pod(1, gpuRange(0, 8), 100, 10)], { rank: 0 }), job([pod(2, gpuRange(0, 2))])]);
    const before = structuredClone(snap);
    const kernel = loaded(backend, snap);
    const queries = () => [
      kernel.place(gang(2, 4)),
      kernel.selectVictims(gang(3, 4), alone(allCandidates(snap, 1), [{ resource: RESOURCE_GPU, deficit: 3 }])),
      kernel.selectVictims(gang(4, 8), alone(allCandidates(snap), [])),
      kernel.place(gang(1, 8, { pool: 1 })),
    ];
    const first = queries();
    expect(queries()).toEqual(first);
    const fresh = loaded(backend, snap);
    expect(fresh.place(gang(2, 4))).toEqual(kernel.place(gang(2, 4)));
    expect(fresh.place(gang(1, 8))).toEqual(kernel.place(gang(1, 8)));
    expect(snap).toEqual(before);
  });

  it.each([
    [
      'a repeated job',
      [
        { job: 0, constraintMask: 0 },
        { job: 0, constraintMask: 0 },
      ],
    ],
    ['a job outside the snapshot', [{ job: 5, constraintMask: 0 }]],
  ])('refuses candidates naming %s', (_name, candidates) => {
    const snap = snapshot([node()], [job([pod(0, [0])])]);
    expect(() => loaded(backend, snap).selectVictims(gang(1, 8), alone(candidates, []))).toThrow(expect.objectContaining({ code: 'kernel/invalid-candidate' }));
  });

  it('refuses a constraint on an unknown resource', () => {
    const snap = snapshot([node()], [job([pod(0, [0])])]);
    expect(() => loaded(backend, snap).selectVictims(gang(1, 1), alone([], [{ resource: 3, deficit: 1 }]))).toThrow(expect.objectContaining({ code: 'kernel/invalid-constraint' }));
  });

  it('lets the victims decide across standings: one idle job so the job borrows beats an in-quota job so it runs in quota', () => {
    const snap = snapshot([node(), node()], [job([pod(0, gpuRange(0, 8))], { rank: 2, priority: 1 }), job([pod(1, gpuRange(0, 8))], { rank: 0, priority: 9 })]);
    const result = loaded(backend, snap).selectVictims(gang(1, 8), [
      { standing: 'in-quota', candidates: [{ job: 0, constraintMask: 0 }], constraints: [] },
      { standing: 'borrowing', candidates: [{ job: 1, constraintMask: 0 }], constraints: [] },
    ]);
    expect(result).toMatchObject({ ok: true, victims: [1], alternative: 1 });
  });

  it('gives an exact tie across standings to in-quota, wherever it is listed', () => {
    const snap = snapshot([node()], [job([pod(0, gpuRange(0, 8))])]);
    const same = allCandidates(snap);
    const result = loaded(backend, snap).selectVictims(gang(1, 8), [
      { standing: 'borrowing', candidates: same, constraints: [] },
      { standing: 'in-quota', candidates: same, constraints: [] },
    ]);
    expect(result).toMatchObject({ ok: true, victims: [0], alternative: 1 });
  });

  it('takes the alternative that has a set when the other has none', () => {
    const snap = snapshot([node()], [job([pod(0, gpuRange(0, 8))])]);
    const result = loaded(backend, snap).selectVictims(gang(1, 8), [
      { standing: 'in-quota', candidates: allCandidates(snap), constraints: [{ resource: RESOURCE_GPU, deficit: 9 }] },
      { standing: 'borrowing', candidates: allCandidates(snap), constraints: [] },
    ]);
    expect(result).toMatchObject({ ok: true, victims: [0], alternative: 1 });
    expect(loaded(backend, snap).selectVictims(gang(1, 8), [])).toEqual({ ok: false, victims: [], pods: [], alternative: -1, exact: false });
  });

  it.each([[[1, 2, 3, 4]], [[1, 1, 2, 3, 4]], [[0, 1, 2, 3, 4]], [[1, 2, 3, 4, 6]]])('refuses the victim order %j', (order) => {
    const snap = snapshot([node()], [job([pod(0, [0])])]);
    expect(() => loaded(backend, snap).selectVictims(gang(1, 1), alone([]), order as never)).toThrow(expect.objectContaining({ code: 'kernel/invalid-order' }));
  });

  it('beyond the exact limit, a second pass in the order without its first criterion finds the cheaper set', () => {
    // Three full nodes of eight 1-GPU jobs: seven priority-1 ones losing 10 each and one
    // priority-2 one losing nothing; a fourth node held by one priority-2 job losing 5.
    // The first pass (priority first) empties a whole small-jobs node (70 lost); the
    // second (lost work first, at the same priority-2 level) takes the big job alone.
    const jobs: KernelJob[] = [];
    for (let n = 0; n < 3; n++) {
      for (let g = 0; g < 8; g++) jobs.push(job([pod(n, [g])], g === 7 ? { priority: 2, lostWork: 0 } : { priority: 1, lostWork: 10 }));
    }
    jobs.push(job([pod(3, gpuRange(0, 8))], { priority: 2, lostWork: 5 }));
    const snap = snapshot([node(), node(), node(), node()], jobs);
    expect(snap.jobs.length).toBeGreaterThan(CRITERIA.EXACT_LIMIT);
    const result = loaded(backend, snap).selectVictims(gang(1, 8), alone(allCandidates(snap)));
    expect(result).toMatchObject({ ok: true, victims: [24], exact: false });
  });

  it('handles a candidate list larger than its first scratch allocation', () => {
    const jobs = Array.from({ length: 300 }, (_, i) => job([pod(i, [0])], { order: i }));
    const snap = snapshot(
      Array.from({ length: 300 }, () => node({ gpus: 1 })),
      jobs,
    );
    const result = loaded(backend, snap).selectVictims(gang(200, 1), alone(allCandidates(snap), []));
    expect(result.victims).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(result.pods).toHaveLength(200);
  });
});

describe('wasm kernel', () => {
  it('counts its calls, so a test can tell the wasm path ran', async () => {
    const { WasmKernel } = await import('../../../src/kernel/wasm-kernel.js');
    const kernel = new WasmKernel();
    kernel.load(snapshot([node()]));
    const before = kernel.wasmCallCount();
    kernel.place(gang(1, 1));
    kernel.selectVictims(gang(1, 1), alone([], []));
    expect(kernel.wasmCallCount()).toBe(before + 2);
    expect(createKernel().backend).toBe('wasm');
  });

  it('grows memory for a big snapshot and keeps answering like the twin', () => {
    const nodes = Array.from({ length: 10_000 }, (_, i) => node({ used: i % 5 === 0 ? [] : gpuRange(0, 1 + (i % 8)) }));
    const jobs = nodes.flatMap((n, i) => (n.usedMask === 0 ? [] : [job([pod(i, gpuRange(0, popcountOf(n.usedMask)))], { lostWork: i % 7 })]));
    const snap = snapshot(nodes, jobs);
    const k = kernelTwins();
    k.load(snap);
    for (const req of [gang(64, 1), gang(16, 8, { strategy: 'spread' }), gang(2100, 8)]) k.ask((x) => x.place(req), 1, 'place');
    const req = gang(2100, 8);
    k.ask((x) => x.selectVictims(req, alone(allCandidates(snap), [])), 1, 'selectVictims');
  });
});

function popcountOf(mask: number): number {
  let n = 0;
  for (let x = mask >>> 0; x !== 0; x &= x - 1) n++;
  return n;
}
