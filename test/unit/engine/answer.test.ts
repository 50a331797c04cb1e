import { describe, expect, it } from 'vitest';
import { placementOf, totalLostGpuHours, victimAnswers, type VictimAnswer } from '../../../src/engine/answer.js';
import { twoTeams } from '../../helpers/two-teams.js';

describe('answer builders', () => {
  const s = twoTeams();
  const snap = s.snapshot!;

  it("adds the victims' lost GPU-hours to the hundredth, a hidden victim counting nothing", () => {
    const v = (lostGpuHours: number) => ({ lostGpuHours }) as VictimAnswer;
    expect(totalLostGpuHours([v(1.114), v(2.222), { hidden: true }])).toBe(3.34);
    expect(totalLostGpuHours([])).toBe(0);
  });

  it('names each pod by its node and GPU indices, with a share when the request is one', () => {
    expect(placementOf(snap, [{ node: 1, mask: 0b1100 }])).toEqual([{ pod: 0, node: 'n-1', gpus: [2, 3] }]);
    expect(placementOf(snap, [{ node: 0, mask: 1 }], { milli: 250 })).toEqual([{ pod: 0, node: 'n-0', gpus: [0], gpuMilli: 250 }]);
  });

  it('explains each victim by the rule that makes it eligible, with its code and source', () => {
    const selfRule = s.rules.find((r) => r.name === 'A/selfPreemption')!;
    const i = snap.jobIndex.get('a-low')!;
    const [v] = victimAnswers(snap, [i], new Map([[i, selfRule]]), 7);
    expect(v).toMatchObject({ job: 'a-low', quota: 'A', priority: 2, standing: 'in-quota', gpus: 8, rule: 'A/selfPreemption', code: 'victim/self-preemption' });
    expect(v!.source).toBe(selfRule.source);
  });
});
