/**
 * SEMANTICS 9 as the scale answer says it: per scaled quota, how many jobs a shrink
 * turns borrowing, and which borrowers return in quota where the new min has room.
 */
import { describe, expect, it } from 'vitest';
import { openSession } from '../../helpers/session.js';
import { clusterDoc, jobEntry, jobsBlock, nodeGroupLine, policyText, quotaEntry, quotaTreeDoc, rootQuotaEntry, workspaceDoc } from '../../helpers/policy-yaml.js';

const POLICY = `\n${policyText(
  quotaTreeDoc(rootQuotaEntry(32, `        - name: A\n          min: { gpu: 8 }\n          selfPreemption: { highPriority: 6-9, lowPriority: 1-3, modules: [DLC] }\n${quotaEntry('B', 24)}`)),
  workspaceDoc(['A', 'B']),
  clusterDoc(nodeGroupLine(4) + jobsBlock(jobEntry('a-own', 'A', 5, 8), jobEntry('a-borrow-7', 'A', 7, 8, 'standing: borrowing'), jobEntry('a-borrow-9', 'A', 9, 8, 'standing: borrowing'))),
)}`;

describe('scale answer (SEMANTICS 9)', () => {
  it('returns the most important borrower in quota where the grown min has room, and says who stays borrowing', () => {
    const s = openSession(POLICY);
    const src = s.policy.quotas[0]!.src;
    const a = s.scale({
      name: 'grow-a',
      set: [
        { quota: 'A', gpu: 16, src },
        { quota: 'B', gpu: 16, src },
      ],
      src,
    });
    // A grows 8 → 16: room for one 8-GPU borrower, the priority-9 one first.
    expect(a.changes.map((c) => [c.job, c.from, c.to])).toEqual([['a-borrow-9', 'borrowing', 'in-quota']]);
    expect(a.changes.map((c) => c.code)).toEqual(['scale/job-returns-in-quota']);
    expect(a.reasons).toContainEqual({
      code: 'scale/jobs-return-in-quota',
      message: 'A: the new min of 16 has room, so 1 of its borrowing job(s) return in quota (a-borrow-9 (8 GPUs)); 1 other(s) stay borrowing, for want of room',
    });
  });
});
