/**
 * SEMANTICS 9 as the scale answer says it: per scaled quota, how many jobs a shrink
 * turns borrowing, and which borrowers return in quota where the new min has room.
 */
import { describe, expect, it } from 'vitest';
import { openSession } from '../../helpers/session.js';

const POLICY = `
apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: t }
spec:
  pool: { name: p }
  quotas:
    - name: Root
      min: { gpu: 32 }
      children:
        - name: A
          min: { gpu: 8 }
          selfPreemption: { highPriority: 6-9, lowPriority: 1-3, modules: [DLC] }
        - { name: B, min: { gpu: 24 } }
---
apiVersion: quotient.dev/v1
kind: Workspace
metadata: { name: ws }
spec: { quotas: [A, B] }
---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c }
spec:
  at: 2026-11-20T12:00:00Z
  nodeGroups: [ { prefix: n-, count: 4, gpus: 8, pool: p } ]
  jobs:
    - { name: a-own, workspace: ws, quota: A, module: DLC, priority: 5, pods: 1, resources: { gpu: 8 } }
    - { name: a-borrow-7, workspace: ws, quota: A, module: DLC, priority: 7, pods: 1, resources: { gpu: 8 }, standing: borrowing }
    - { name: a-borrow-9, workspace: ws, quota: A, module: DLC, priority: 9, pods: 1, resources: { gpu: 8 }, standing: borrowing }
`;

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
