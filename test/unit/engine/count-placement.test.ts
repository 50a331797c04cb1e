/**
 * Placements given as a node and a GPU count (Kubernetes does not say which GPUs a pod
 * holds): the snapshot assigns indices after every explicit one, the lowest free aligned
 * block first; answers say so. Cordoned nodes keep their pods and take no new ones.
 */
import { describe, expect, it } from 'vitest';
import { assignIndices } from '../../../src/engine/snapshot.js';
import { openSession } from '../../helpers/session.js';
import { codesOf } from '../../helpers/codes.js';
import { clusterDoc, policyText, quotaEntry, quotaTreeDoc, rootQuotaEntry, workspaceDoc } from '../../helpers/policy-yaml.js';

const policy = (body: string) => policyText(quotaTreeDoc(rootQuotaEntry(16, quotaEntry('A', 8) + quotaEntry('B', 8))), workspaceDoc(['A', 'B']), clusterDoc(body));

describe('count-only placements', () => {
  it('assigns the lowest free aligned block after the explicit indices', () => {
    const s = openSession(
      policy(`  nodes:
    - { name: n-0, gpus: 8, pool: p }
    - { name: n-1, gpus: 8, pool: p }
  jobs:
    - { name: counted, workspace: ws, quota: A, module: DLC, priority: 3, resources: { gpu: 2 }, placement: [ { node: n-0, gpuCount: 2 } ] }
    - { name: explicit, workspace: ws, quota: B, module: DLC, priority: 3, resources: { gpu: 1 }, placement: [ { node: n-0, gpus: [0] } ] }
`),
    );
    const counted = s.snapshot!.jobs.find((j) => j.name === 'counted')!;
    // GPU 0 is taken explicitly, so the first free aligned pair is 2-3, not 0-1 or 1-2.
    expect(counted.placement).toEqual([{ node: 'n-0', gpus: [2, 3], indicesAssigned: true }]);
  });

  it('falls back to the lowest free GPUs when no aligned block is free', () => {
    expect(assignIndices(0b0101_0101, 8, 2)).toEqual([1, 3]);
    expect(assignIndices(0b0000_0001, 8, 4)).toEqual([4, 5, 6, 7]);
    expect(assignIndices(0, 8, 3)).toEqual([0, 1, 2]);
  });

  it('names the assigned-index victims in answers', async () => {
    const s = openSession(
      policy(`  nodes:
    - { name: n-0, gpus: 8, pool: p }
  jobs:
    - { name: borrower, workspace: ws, quota: B, module: DLC, priority: 3, standing: borrowing, resources: { gpu: 8 }, placement: [ { node: n-0, gpuCount: 8 } ] }
`)
        .replace('min: { gpu: 16 }', 'min: { gpu: 8 }')
        .replace('{ name: A, min: { gpu: 8 } }', '{ name: A, min: { gpu: 8 } }')
        .replace('{ name: B, min: { gpu: 8 } }', '{ name: B, min: { gpu: 0 } }'),
    );
    const a = await s.answerJob('q', { ...s.policy.cluster!.jobs[0]!, name: 'mine', quota: 'A', priority: 5, pods: 1 });
    expect(a.decision).toBe('preempt');
    // The text is the behaviour here: the victim's sentence says its GPU indices are Quotient's guess.
    expect(a.victims[0]!.reason).toMatch(/GPU indices were assigned by Quotient/);
    expect(codesOf(a.reasons)).toContain('placement/indices-assigned');
  });

  it('never places new pods on a cordoned node, and keeps its pods counted', async () => {
    const s = openSession(
      policy(`  nodes:
    - { name: n-0, gpus: 8, pool: p, unschedulable: true }
    - { name: n-1, gpus: 8, pool: p }
  jobs:
    - { name: on-cordoned, workspace: ws, quota: B, module: DLC, priority: 3, resources: { gpu: 4 }, placement: [ { node: n-0, gpuCount: 4 } ] }
    - { name: busy, workspace: ws, quota: A, module: DLC, priority: 3, resources: { gpu: 8 }, placement: [ { node: n-1, gpuCount: 8 } ] }
`),
    );
    // B has 4 GPUs left in quota and n-0 has 4 free GPUs, but n-0 is cordoned: the job waits.
    const a = await s.answerJob('q', { ...s.policy.cluster!.jobs[0]!, name: 'more', pods: 1, resources: { gpu: 4 } });
    expect(a.decision).toBe('wait');
    // The cordoned node's pod still counts against B: a 5-GPU job is over B's min of 8.
    const over = await s.answerJob('q', { ...s.policy.cluster!.jobs[0]!, name: 'over', pods: 1, resources: { gpu: 5 } });
    // The text is the behaviour here: the usage the overrun reports counts the cordoned node's pod.
    expect(over.reasons.find((r) => r.code === 'quota/over-min')?.message).toMatch(/B guarantees 8 GPUs and its jobs use 4/);
  });
});
