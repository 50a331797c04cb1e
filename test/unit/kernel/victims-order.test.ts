/**
 * The order between every pair of SEMANTICS 5.3's criteria, pinned in both kernels: two
 * possible victim sets, one better on criterion a and worse on b, tied on the other
 * three; the set better on whichever of a and b the order lists first must win. Each
 * pair is tried with the better-on-a set on either node (so no index bias passes), under
 * the default order and under orders that move each criterion.
 */
import { describe, expect, it } from 'vitest';
import type { KernelJob } from '../../../src/kernel/types.js';
import { DEFAULT_VICTIM_ORDER, type CriterionId, type VictimOrder } from '../../../src/kernel/victim-order.js';
import { BACKENDS, alone, allCandidates, gang, gpuRange, job, loaded, node, pod, snapshot } from './kernel-builders.js';

type Keys = Partial<Omit<KernelJob, 'pods'>>;

/** The tied values, and per criterion the better and the worse value of one set. */
const TIED: Keys = { rank: 2, priority: 4, lostWork: 2, gpus: 8, startedAt: 1000 };
const BETTER: Record<Exclude<CriterionId, 4>, Keys> = {
  1: { priority: 3 },
  2: { lostWork: 1 },
  3: { gpus: 4 },
  5: { startedAt: 2000 },
};
const WORSE: Record<Exclude<CriterionId, 4>, Keys> = {
  1: { priority: 5 },
  2: { lostWork: 3 },
  3: { gpus: 12 },
  5: { startedAt: 500 },
};

/**
 * The jobs of one option, all on node `n` (8 GPUs, full): one job, or two 4-GPU jobs when
 * the option must have more victims. Sums (lost work, GPUs) split evenly over two jobs;
 * maxima and minima (priority, start) repeat, so a two-job set keeps the set's values.
 */
function option(n: number, keys: Keys, two: boolean): KernelJob[] {
  const k = { ...TIED, ...keys };
  if (!two) return [job([pod(n, gpuRange(0, 8))], k)];
  const half = { ...k, lostWork: k.lostWork! / 2, gpus: k.gpus! / 2 };
  return [job([pod(n, gpuRange(0, 4))], half), job([pod(n, gpuRange(4, 4))], half)];
}

const ORDERS: VictimOrder[] = [DEFAULT_VICTIM_ORDER, [5, 4, 3, 2, 1], [2, 4, 1, 5, 3], [3, 5, 2, 1, 4]];
const IDS: CriterionId[] = [1, 2, 3, 4, 5];
const PAIRS = IDS.flatMap((a) => IDS.filter((b) => b > a).map((b) => [a, b] as const));

const cases = ORDERS.flatMap((order) =>
  PAIRS.flatMap(([a, b]) =>
    [0, 1].map((node0) => {
      // P is better on a and worse on b; Q the other way round.
      const keysP: Keys = { ...(a === 4 ? {} : BETTER[a]), ...(b === 4 ? {} : WORSE[b]) };
      const keysQ: Keys = { ...(a === 4 ? {} : WORSE[a]), ...(b === 4 ? {} : BETTER[b]) };
      const pTwo = b === 4; // worse on count: two victims
      const qTwo = a === 4;
      const expectP = order.indexOf(a) < order.indexOf(b);
      return { order, a, b, node0, keysP, keysQ, pTwo, qTwo, expectP };
    }),
  ),
);

describe.each(BACKENDS)('victim order between every pair of criteria (%s kernel)', (backend) => {
  it.each(cases)('order $order: criterion $a vs $b, better-on-$a set on node $node0', ({ order, node0, keysP, keysQ, pTwo, qTwo, expectP }) => {
    const p = option(node0, keysP, pTwo);
    const q = option(1 - node0, keysQ, qTwo);
    const jobs = node0 === 0 ? [...p, ...q] : [...q, ...p];
    const pIndices = node0 === 0 ? p.map((_, i) => i) : p.map((_, i) => q.length + i);
    const qIndices = node0 === 0 ? q.map((_, i) => p.length + i) : q.map((_, i) => i);
    const snap = snapshot([node(), node()], jobs);
    const result = loaded(backend, snap).selectVictims(gang(1, 8), alone(allCandidates(snap)), order);
    expect(result.ok).toBe(true);
    expect(result.exact).toBe(true);
    expect([...result.victims].sort((x, y) => x - y)).toEqual(expectP ? pIndices : qIndices);
  });

  it('breaks a tie on all five criteria by job name, not by position', () => {
    const snap = snapshot([node(), node()], [job([pod(0, gpuRange(0, 8))], { ...TIED, order: 1 }), job([pod(1, gpuRange(0, 8))], { ...TIED, order: 0 })]);
    expect(loaded(backend, snap).selectVictims(gang(1, 8), alone(allCandidates(snap))).victims).toEqual([1]);
  });
});
