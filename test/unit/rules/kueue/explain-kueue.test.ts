/** `quotient explain`'s words for the quotas of a Kueue-rules tree. */
import { describe, expect, it } from 'vitest';
import { explainKueueQuotas } from '../../../../src/rules/kueue/explain-kueue.js';
import { kueuePolicy } from '../../../helpers/kueue-policy.js';

describe('explainKueueQuotas', () => {
  it("says each ClusterQueue's preemption policy, flavors in order with their quota, fungibility and queueing; each Cohort's members", () => {
    const lines = explainKueueQuotas(kueuePolicy().quotas);
    expect(lines.map((l) => l.name)).toEqual(['org', 'A', 'B']);
    expect(lines[0]!.summary).toBe('Kueue Cohort of A, B; no quota of its own');
    expect(lines[1]!.summary).toContain('preempts within the queue LowerPriority, reclaims within the cohort Any, while borrowing Never');
    expect(lines[1]!.summary).toContain('tainted (nvidia.com/gpu 64, cpu 64) then a100');
    expect(lines[1]!.summary).toContain('whenCanBorrow TryNextFlavor, whenCanPreempt TryNextFlavor; BestEffortFIFO');
    expect(lines[2]!.summary).toContain('nvidia.com/gpu 8, lends 4');
    expect(lines[1]!.source).toMatch(/^kueue\.yaml:\d+:\d+$/);
  });
});
