/**
 * The check both kernel-differential properties make of `selectVictims(..., { alone:
 * true })` (whatif.ts explains a preempt answer's losing way with it): the wasm kernel and
 * the twin agree on it, it changes nothing of the answer `chosen` (the same query without
 * `alone`), and each alternative's own answer is what a query of that alternative alone
 * gives.
 */
import { expect } from 'vitest';
import type { Kernel, GangRequest, VictimAlternative, VictimResult } from '../../src/kernel/types.js';
import type { VictimOrder } from '../../src/kernel/victim-order.js';

/** Runs the check; returns how many wasm queries (one per alternative) it made. */
export function expectAloneAnswers(wasm: Kernel, reference: Kernel, c: { req: GangRequest; alternatives: VictimAlternative[]; order: VictimOrder }, chosen: VictimResult): number {
  const withAlone = wasm.selectVictims(c.req, c.alternatives, c.order, { alone: true });
  expect(withAlone).toEqual(reference.selectVictims(c.req, c.alternatives, c.order, { alone: true }));
  expect({ ...withAlone, alone: undefined }).toEqual(chosen);
  c.alternatives.forEach((alt, i) => {
    const single = wasm.selectVictims(c.req, [alt], c.order);
    expect(withAlone.alone![i]).toEqual({ ok: single.ok, victims: single.victims });
  });
  return 2 * c.alternatives.length;
}
