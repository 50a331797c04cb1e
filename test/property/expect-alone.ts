/**
 * The check both kernel-differential properties make of `selectVictims(..., { alone:
 * true })` (whatif.ts explains a preempt answer's losing way with it): the wasm kernel and
 * the twin agree on it (through the differential harness, which sees the wasm answer it),
 * it changes nothing of the answer `chosen` (the same query without `alone`), and each
 * alternative's own answer is what a query of that alternative alone gives.
 */
import { expect } from 'vitest';
import type { GangRequest, VictimAlternative, VictimResult } from '../../src/kernel/types.js';
import type { VictimOrder } from '../../src/kernel/victim-order.js';
import type { KernelTwins } from '../helpers/differential.js';

/** Runs the check on both kernels. */
export function expectAloneAnswers(k: KernelTwins, c: { req: GangRequest; alternatives: VictimAlternative[]; order: VictimOrder }, chosen: VictimResult): void {
  const withAlone = k.ask((x) => x.selectVictims(c.req, c.alternatives, c.order, { alone: true }), c.alternatives.length, 'selectVictims alone');
  expect({ ...withAlone, alone: undefined }).toEqual(chosen);
  c.alternatives.forEach((alt, i) => {
    const single = k.ask((x) => x.selectVictims(c.req, [alt], c.order), 1, 'selectVictims of one alternative');
    expect(withAlone.alone![i]).toEqual({ ok: single.ok, victims: single.victims });
  });
}
