/**
 * The shipped examples (policies/) answer the seeds' scenarios as worked out by hand
 * in each case's comment. These are the answers the README shows.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Answer } from '../../src/engine/answer.js';
import { answerAll, openSession } from '../helpers/session.js';

function bundle(dir: string) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
}

interface Pin {
  decision: Answer['decision'];
  standing: Answer['standing'];
  victims: Array<[job: string, rule: string, lostGpuHours?: number]>;
  nodes?: string[];
}

const EXPECTED: Record<string, Record<string, Pin>> = {
  // Quota1 is full (128/128). Child-level preemption 1-3 [DLC, DSW]: candidates are
  // dsw-c-notebooks (p1, 8 GPUs), train-b-llm (p2, 32) and dsw-c-finetune (p3, 24).
  // 16 GPUs: the notebooks alone free 8, so the lowest possible top priority is 2:
  // train-b-llm alone (its hourly checkpoint was at 12:00, so 0 GPU-hours lost).
  // 48 GPUs: sets topped at priority 2 free at most 40, so priority 3 is needed;
  // reprieve drops the notebooks (llm + finetune = 56 ≥ 48); finetune loses
  // 24 GPUs × 15 min = 6 GPU-hours since its 11:45 checkpoint.
  'inference-preempts-training': {
    'team-a-inference': { decision: 'preempt', standing: 'in-quota', victims: [['train-b-llm', 'Quota1/childPreemption', 0]], nodes: ['gn7-0', 'gn7-1'] },
    'team-a-inference-large': {
      decision: 'preempt',
      standing: 'in-quota',
      victims: [
        ['train-b-llm', 'Quota1/childPreemption', 0],
        ['dsw-c-finetune', 'Quota1/childPreemption', 6],
      ],
      nodes: ['gn7-0', 'gn7-1', 'gn7-2', 'gn7-3', 'gn7-7', 'gn7-8'],
    },
    'team-b-more-training': { decision: 'wait', standing: null, victims: [] },
    'team-b-wrong-module': { decision: 'reject', standing: null, victims: [] },
  },
  // QuotaA and QuotaB each use 32 of 32. A priority-7 DLC job may preempt priority-4
  // DLC/DSW jobs of QuotaA and QuotaB. 16 GPUs: in quota, QuotaA must shrink by 16 and
  // only a-sweep is on QuotaA (16 GPU-hours: started 11:00, no checkpoint); borrowing,
  // Research must shrink by 16: b-notebook (0 lost: hourly checkpoint at 12:00) does it.
  // The sets compete (SEMANTICS 5.3): both have an in-quota priority-4 victim, and the
  // notebook loses less work, so the job borrows.
  // 24 GPUs: QuotaA's own eligible work is only 16, so in quota fails; borrowing needs
  // 24 from Research: b-notebook + a-sweep.
  'self-level-preemption': {
    'urgent-in-own-quota': { decision: 'preempt', standing: 'borrowing', victims: [['b-notebook', 'QuotaA/selfPreemption', 0]], nodes: ['node-4', 'node-5'] },
    'urgent-borrows-from-sibling': {
      decision: 'preempt',
      standing: 'borrowing',
      victims: [
        ['b-notebook', 'QuotaA/selfPreemption', 0],
        ['a-sweep', 'QuotaA/selfPreemption', 16],
      ],
      nodes: ['node-0', 'node-1', 'node-4'],
    },
    'medium-priority-waits': { decision: 'wait', standing: null, victims: [] },
  },
  // TeamY uses nothing; the cluster is full of TeamX's quota job and two idle jobs.
  // Reclaim takes the lower-priority idle job first (x-scavenger, p1, 8 GPU-hours since
  // its 11:00 start) even though x-overflow (p3) would lose nothing: criterion 1 before 2.
  'idle-resources': {
    'owner-reclaims-one-node': { decision: 'preempt', standing: 'in-quota', victims: [['x-scavenger', 'reclaim/idle', 8]], nodes: ['lab-3'] },
    'owner-reclaims-everything': {
      decision: 'preempt',
      standing: 'in-quota',
      victims: [
        ['x-scavenger', 'reclaim/idle', 8],
        ['x-overflow', 'reclaim/idle', 0],
      ],
      nodes: ['lab-2', 'lab-3'],
    },
    'idle-job-waits': { decision: 'wait', standing: null, victims: [] },
    'acceptable-job-waits': { decision: 'wait', standing: null, victims: [] },
  },
};

describe('shipped policies', () => {
  it.each(Object.keys(EXPECTED))('%s answers its WhatIfs as worked out by hand', async (name) => {
    const answers = await answerAll(openSession(bundle(join('policies', name))));
    const expected = EXPECTED[name]!;
    expect([...answers.keys()].sort()).toEqual(Object.keys(expected).sort());
    for (const [query, pin] of Object.entries(expected)) {
      const a = answers.get(query)!;
      expect({ decision: a.decision, standing: a.standing }, query).toEqual({ decision: pin.decision, standing: pin.standing });
      expect(
        a.victims.map((v) => [v.job, v.rule, ...(pin.victims.find((p) => p[0] === v.job)?.length === 3 ? [v.lostGpuHours] : [])]),
        query,
      ).toEqual(pin.victims);
      if (pin.nodes)
        expect(
          a.placement.map((p) => p.node),
          query,
        ).toEqual(pin.nodes);
      for (const v of a.victims) expect(v.source).toMatch(/^(policies\/.+\.yaml:\d+:\d+|built-in)$/);
      if (a.decision === 'wait' || a.decision === 'reject') expect(a.reasons.length).toBeGreaterThan(0);
    }
  });
});
