/**
 * The shipped team examples (policies/quota-scaling, team-isolation, resource-policies)
 * answer their WhatIf and ScaleQuota documents as worked out by hand in each case's
 * comment here and in the YAML.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Answer, ReasonCode } from '../../src/engine/answer.js';
import { codesOf } from '../helpers/codes.js';
import { answerAll, openSession } from '../helpers/session.js';

function bundle(name: string) {
  const dir = join('policies', name);
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
}

/** The answer as worked out by hand; where a reason decides it, its code and the words that cite the rule or line. */
type Pin = [decision: Answer['decision'], standing: Answer['standing'], victims: string[], reason?: [code: ReasonCode, has: string]];

const WHATIFS: Record<string, Record<string, Pin>> = {
  // Quota1.1 uses 40 of 48 and has no preemption of its own: 16 more GPUs wait.
  'quota-scaling': { 'team-b-needs-16': ['wait', null, [], ['quota/over-min', 'Quota1.1 guarantees 48 GPUs']] },
  'team-isolation': {
    // Quota1 full; child-level preemption 1-3 [DLC, DSW]; the cheapest victim set for
    // 8 GPUs is the priority-1 labeling notebooks (8 × 1 GPU), below train-b-secret-llm (p2).
    'team-a-service': ['preempt', 'in-quota', ['dsw-c-labeling']],
    // bob is not in workspace-c's members or guests.
    'bob-in-workspace-c': ['reject', null, [], ['admission/access-denied', 'workspace-c/members (policies/team-isolation/quotas.yaml:']],
    // oscar is an operator; Quota1.1 allows admin and developer.
    'operator-on-quota1-1': ['reject', null, [], ['admission/access-denied', 'Quota1.1/allowedRoles (policies/team-isolation/quotas.yaml:20:25)']],
    // gina is a guest of workspace-c, so she may submit; Quota1.2 is full (80/80) → wait.
    'guest-in-workspace-c': ['wait', null, [], ['quota/over-min', 'Quota1.2 guarantees 80 GPUs']],
  },
  'resource-policies': {
    // ann's caps at priority 7: admin 1-7 (100) and hers 7-9 (10); 8 + 2 = 10 fits.
    'ann-p7-fits-her-cap': ['admit', 'in-quota', [], ['admission/cap-room', 'research/resourcePolicies[1]']],
    // 8 + 4 = 12 > 10: her cap is the strictest and bites, though the admin cap allows it.
    'ann-p7-strictest-wins': [
      'wait',
      null,
      [],
      ['admission/cap-full', 'cap research/resourcePolicies[1] is full (user ann at priority 7-9 on Team: at most 10 GPUs, policies/resource-policies/quotas.yaml:26:7)'],
    ],
    // 16 GPUs alone exceed her cap of 10.
    'ann-above-cap-alone': ['reject', null, [], ['admission/cap-never-fits', 'more than cap research/resourcePolicies[1] allows at all']],
    // bob: admin cap only, 16 + 32 = 48 ≤ 100; Team has 80 GPUs of room.
    'bob-within-admin-cap': ['admit', 'in-quota', [], ['admission/cap-room', 'research/resourcePolicies[0]']],
    // pods of 3 GPUs: the DLC templates allow 1, 2, 4, 8.
    'dan-odd-pod-size': ['reject', null, [], ['admission/setting-violated', 'research/admission/DLC/resourceSpecs, policies/resource-policies/quotas.yaml:34:9']],
    // 96h > 72h.
    'dan-too-long': ['reject', null, [], ['admission/setting-violated', 'research/admission/DLC/maxRuntime, policies/resource-policies/quotas.yaml:30:19']],
    // developers' DLC jobs: priority 1-6.
    'dan-priority-too-high': ['reject', null, [], ['admission/setting-violated', 'research/admission/DLC/priorities/developer']],
    // developer cap 32, dan runs 24: 24 + 16 = 40 > 32.
    'dan-developer-cap-full': ['wait', null, [], ['admission/cap-full', "24 GPUs there; with the job's 16 GPUs that is 40 GPUs, 8 GPUs over"]],
  },
};

describe('shipped team policies', () => {
  it.each(Object.keys(WHATIFS))('%s answers its WhatIfs as worked out by hand', async (name) => {
    const answers = await answerAll(openSession(bundle(name)));
    const expected = WHATIFS[name]!;
    expect([...answers.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [query, [decision, standing, victims, reason]] of Object.entries(expected)) {
      const a = answers.get(query)!;
      expect({ decision: a.decision, standing: a.standing, victims: a.victims.map((v) => v.job) }, query).toEqual({ decision, standing, victims });
      if (!reason) continue;
      const [code, has] = reason;
      expect(codesOf(a.reasons), query).toContain(code);
      // The text is the behaviour here: the reason cites the rule, setting or line that decided it.
      expect(
        a.reasons
          .filter((r) => r.code === code)
          .map((r) => r.message)
          .join('\n'),
        query,
      ).toContain(has);
    }
  });

  it("quota-scaling: 48/80 → 56/72 turns Team C's newest lowest-priority job borrowing", () => {
    const s = openSession(bundle('quota-scaling'));
    const a = s.scale(s.policy.scales.find((x) => x.name === 'rebalance-b-c')!);
    // Team C uses 80; at 72 it is 8 over. Its priority-3 jobs go first, newest first:
    // dsw-c-notebooks (8 × 1 GPU, started 11:30) alone covers the 8.
    expect(a.changes.map((c) => [c.job, c.from, c.to])).toEqual([['dsw-c-notebooks', 'in-quota', 'borrowing']]);
    // Quota1.1: 56 − 40 = 16 of its own, but Quota1 still counts the borrower (120 of
    // 128): 8 in quota now, 16 once the notebooks are reclaimed; one free node → 1 × 8.
    const b = a.quotas.find((q) => q.quota === 'Quota1.1')!;
    expect(b).toMatchObject({ min: { before: 48, after: 56 }, used: { before: 40, after: 40 }, room: { before: 8, after: 8 }, roomWithReclaim: 16, largestGang: { gpus: 8, pods: 1, gpuPerPod: 8 } });
    expect(a.quotas.find((q) => q.quota === 'Quota1.2')).toMatchObject({ min: { before: 80, after: 72 }, used: { before: 80, after: 72 }, room: { before: 0, after: 0 } });
  });

  it('quota-scaling: a deeper cut to 56 turns only as many priority-3 jobs borrowing as it needs (SEMANTICS 9)', () => {
    const s = openSession(bundle('quota-scaling'));
    const a = s.scale(s.policy.scales.find((x) => x.name === 'shrink-c-to-56')!);
    // 80 − 56 = 24 over. Newest lowest-priority first: notebooks (8, 11:30), then
    // finetune (24, 09:00) covers it; with finetune turned, the notebooks are not needed
    // (80 − 24 = 56) and stay in quota: one job, not two.
    expect(a.changes.map((c) => [c.job, c.to])).toEqual([['dsw-c-finetune', 'borrowing']]);
    expect(a.quotas.find((q) => q.quota === 'Quota1.2')!.used).toEqual({ before: 80, after: 56 });
    const turned = a.reasons.find((r) => r.code === 'scale/jobs-turn-borrowing');
    // The text is the behaviour here: the worked-out numbers and the job chosen.
    expect(turned?.message).toContain(
      'Quota1.2: its jobs use 80 GPUs, 24 over the new min of 56: 1 of its 3 in-quota job(s) turn borrowing, the fewest of its newest lowest-priority jobs that cover the 24: dsw-c-finetune (24 GPUs)',
    );
    expect(a.changes.map((c) => c.code)).toEqual(['scale/job-turns-borrowing']);
  });

  it('a scaling of a parent lists the effect down the tree', () => {
    const s = openSession(bundle('quota-scaling'));
    const a = s.scale({ name: 'parent', set: [{ quota: 'Quota1', gpu: 128, src: s.policy.quotas[0]!.src }], src: s.policy.quotas[0]!.src });
    expect(a.quotas.map((q) => q.quota)).toEqual(['Quota1', 'Quota1.1', 'Quota1.2']);
    expect(a.changes).toEqual([]);
  });
});
