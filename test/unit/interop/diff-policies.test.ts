/**
 * `diff`: the seeds' quota scaling (Quota1.1 48 → 56, Quota1.2 80 → 72) changes Team B's
 * 16-GPU job from waiting to reclaiming Team C's newest notebooks; a policy compared with
 * itself changes nothing; generated submissions depend only on the seed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/engine/session.js';
import { diffPolicies, sampleJobs, type Side } from '../../../src/interop/diff-policies.js';

const DIR = 'docs/examples/quota-scaling-diff';
const NOW = Date.parse('2026-11-20T12:00:00Z');

function side(folder: string): Side {
  const files = readdirSync(join(DIR, folder))
    .filter((f) => f.endsWith('.yaml'))
    .map((f) => ({ path: join(DIR, folder, f), text: readFileSync(join(DIR, folder, f), 'utf8') }));
  const { session, findings } = Session.open(files, { now: NOW });
  if (!session) throw new Error(findings.map((f) => f.message).join('\n'));
  return { label: folder, session, files };
}

describe('diff', () => {
  it('reports the changed WhatIf with decision, standing, victims and lost work, citing each side', async () => {
    const r = await diffPolicies(side('old'), side('new'), { samples: 0, seed: 1, promiseRuns: 10 });
    expect(r.asked).toEqual({ whatifs: 1, promises: 0, samples: 0 });
    expect(r.changes).toHaveLength(1);
    const c = r.changes[0]!;
    expect(c).toMatchObject({ kind: 'whatif', question: 'team-b-needs-16', changed: ['decision', 'standing', 'victims', 'lostGpuHours'] });
    expect(c.old).toMatchObject({ decision: 'wait', standing: null, victims: [] });
    expect(c.new).toMatchObject({ decision: 'preempt', standing: 'in-quota', victims: ['dsw-c-notebooks'] });
    expect(c.old!.why).toMatch(/old\/quotas.yaml:17:11/);
    expect(c.new!.why).toMatch(/^Quota1.1\/reclaim \(.*new\/quotas.yaml:17:11\)$/);
  });

  it('finds no change between a policy and itself, samples included', async () => {
    const r = await diffPolicies(side('old'), side('old'), { samples: 60, seed: 7, promiseRuns: 10 });
    expect(r.asked.samples).toBe(60);
    expect(r.changes).toEqual([]);
  });

  it('asks the generated submissions of the seed: the same seed, the same jobs', async () => {
    const a = side('old').session.policy;
    const b = side('new').session.policy;
    expect(sampleJobs(a, b, 20, 3)).toEqual(sampleJobs(a, b, 20, 3));
    expect(sampleJobs(a, b, 20, 3)).not.toEqual(sampleJobs(a, b, 20, 4));
    // Every sample is something both policies let its workspace submit.
    for (const j of sampleJobs(a, b, 50, 3)) expect(b.workspaces.find((w) => w.name === j.workspace)!.quotas).toContain(j.quota);
    const r = await diffPolicies(side('old'), side('new'), { samples: 200, seed: 1, promiseRuns: 10 });
    expect(r.changes.filter((c) => c.kind === 'sample').length).toBeGreaterThan(0);
    expect(r.changes.filter((c) => c.kind === 'sample').every((c) => c.new!.victims.includes('dsw-c-notebooks'))).toBe(true);
  });
});
