/**
 * Snapshot.build holds the policy's own RunningJob objects instead of copies (a copy of
 * each was a third per-job object at load time), so it must never write to them: a job
 * whose placement it completes (pods given by GPU count, a job without a placement) is
 * copied first, and a LiveSnapshot changes a standing on a copy. The policy's model keeps
 * exactly what its files say, however many snapshots are built from it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LiveSnapshot } from '../../../src/engine/live-snapshot.js';
import { Snapshot } from '../../../src/engine/snapshot.js';
import { createKernel } from '../../../src/kernel/create-kernel.js';
import type { Policy } from '../../../src/model/policy.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';

const DIR = 'policies/inference-preempts-training';
// The seeds' cluster: dsw-c-research has no placement (the engine places it); one pod of
// dsw-c-finetune is given here by its GPU count only (the engine assigns its indices).
const files = readdirSync(DIR)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .map((f) => {
    const text = readFileSync(join(DIR, f), 'utf8');
    return { path: join(DIR, f), text: f === 'cluster.yaml' ? text.replace('- { node: gn7-9, gpus: [0, 1, 2, 3, 4, 5, 6, 7] }', '- { node: gn7-9, gpuCount: 8 }') : text };
  });

function load(): Policy {
  const { policy, findings } = loadPolicy(files, { now: Date.parse('2026-11-20T12:00:00Z') });
  if (!policy) throw new Error(findings.map((f) => `${f.code} ${f.message}`).join('\n'));
  return policy;
}

/** Every field of the jobs, positions included (a LazySource prints them through toJSON). */
const text = (p: Policy): string => JSON.stringify(p.cluster!.jobs);

describe('Snapshot.build and the policy’s running jobs', () => {
  it('shares the jobs it leaves as they are and copies those whose placement it completes', () => {
    const policy = load();
    const cluster = policy.cluster!;
    expect(cluster.jobs.find((j) => j.name === 'dsw-c-finetune')!.placement[2]).toMatchObject({ node: 'gn7-9', gpus: [], indicesAssigned: true });
    const before = text(policy);
    const snap = Snapshot.build(policy, cluster, createKernel('reference')).snapshot!;
    expect(text(policy)).toBe(before);
    const at = (name: string) => snap.jobIndex.get(name)!;
    const own = (name: string) => cluster.jobs.find((j) => j.name === name)!;
    expect(snap.jobs[at('train-b-llm')]).toBe(own('train-b-llm'));
    expect(snap.jobs[at('dsw-c-finetune')]).not.toBe(own('dsw-c-finetune'));
    expect(snap.jobs[at('dsw-c-finetune')]!.placement[2]!.gpus).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(snap.jobs[at('dsw-c-research')]).not.toBe(own('dsw-c-research'));
    expect(snap.jobs[at('dsw-c-research')]!.placedByEngine).toBe(true);
    expect(snap.jobs[at('dsw-c-research')]!.placement).toHaveLength(6);
    expect(own('dsw-c-research')).toMatchObject({ placement: [], placedByEngine: false });
    // A second build from the same model sees what the first did.
    const again = Snapshot.build(policy, cluster, createKernel('reference')).snapshot!;
    expect(again.state.nodes).toEqual(snap.state.nodes);
    expect(again.state.jobs).toEqual(snap.state.jobs);
  });

  it('changes a standing on the live snapshot’s copy, not on the policy’s job', () => {
    const policy = load();
    const before = text(policy);
    const snap = Snapshot.build(policy, policy.cluster!, createKernel('reference')).snapshot!;
    const live = new LiveSnapshot(snap);
    const i = snap.jobIndex.get('train-b-llm')!;
    expect(snap.jobs[i]!.standing).toBe('in-quota');
    live.setStanding(i, 'borrowing');
    expect(snap.jobs[i]!.standing).toBe('borrowing');
    expect(text(policy)).toBe(before);
  });
});
