/**
 * Generated promise states reach the boundaries where promises break (issue 7 item 8):
 * quotas exactly at their guarantee, small states, idle jobs, fragmented nodes, and the
 * rules' edge priorities.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/engine/session.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { edgePriorities, promiseStates } from '../../../src/verify/promise-states.js';

const [bundle] = readBundles(['policies/inference-preempts-training']);
if (!bundle) throw new Error('no bundle');
const { session } = Session.open(bundle.files);
if (!session) throw new Error('shipped policy does not load');
const promise = session.policy.promises.find((p) => p.name === 'team-a-service-always-runs');
if (!promise) throw new Error('no promise');

describe('promise states', () => {
  it("lists each clause's edge priorities and their neighbours, within what the promise allows", () => {
    // childPreemption 1-3: the ends 1 and 3, and 4 just outside (0 is no priority).
    expect(edgePriorities(session.policy, [1, 2, 3, 4, 5, 6, 7, 8, 9])).toEqual([1, 3, 4]);
    expect(edgePriorities(session.policy, [1, 2, 3])).toEqual([1, 3]);
  });

  it('reaches quotas at their guarantee, small states, idle jobs, fragmented nodes and edge priorities', () => {
    const states = fc.sample(promiseStates(session.policy, [], promise), { numRuns: 200, seed: 3 });
    const min = new Map(session.policy.quotas.map((q) => [q.name, q.min.gpu]));
    const counted = (s: (typeof states)[number], quota: string) => s.cluster.jobs.filter((j) => j.quota === quota && j.standing === 'in-quota').reduce((n, j) => n + j.pods * j.resources.gpu, 0);
    const atGuarantee = states.filter((s) => ['Quota1.1', 'Quota1.2'].some((q) => counted(s, q) === min.get(q)));
    const small = states.filter((s) => s.added.length <= 3);
    const idle = states.filter((s) => s.cluster.jobs.some((j) => j.standing === 'idle'));
    // A node is fragmented when its free GPUs are not one aligned block: some 8-GPU pod cannot use them.
    const fragmented = states.filter((s) =>
      s.cluster.nodes.some((n) => {
        const used = s.cluster.jobs.flatMap((j) => j.placement.filter((p) => p.node === n.name).flatMap((p) => p.gpus));
        return used.length > 0 && used.length < n.gpus && Math.max(...used) !== used.length - 1;
      }),
    );
    const edgeSubmissions = states.filter((s) => s.submit.priority === 9);
    const counts = { atGuarantee: atGuarantee.length, small: small.length, idle: idle.length, fragmented: fragmented.length };
    for (const [what, n] of Object.entries(counts)) expect(n, `${what} in ${JSON.stringify(counts)}`).toBeGreaterThanOrEqual(10);
    expect(edgeSubmissions.length).toBe(states.length);
    // Jobs at the clause's ends (1 and 3) are drawn about 5 times in 6 (uniform over 1-3 would give 2 in 3).
    const priorities = states.flatMap((s) => s.added.map((j) => j.priority));
    expect(priorities.filter((p) => p === 1 || p === 3).length / priorities.length).toBeGreaterThan(0.75);
  });

  it('submits only to quotas a workspace may use, overflows the free GPUs in a share of states, and adds the protected kind of job', () => {
    const [own] = readBundles(['policies/self-level-preemption']);
    const opened = own && Session.open(own.files).session;
    const guard = opened?.policy.promises.find((p) => p.name === 'inference-never-preempted');
    if (!opened || !guard) throw new Error('shipped policy or promise missing');
    const states = fc.sample(promiseStates(opened.policy, [], guard), { numRuns: 200, seed: 5 });
    // Research, the parent, has no workspace: a submission there is refused before any rule runs.
    expect(new Set(states.map((s) => s.submit.quota))).toEqual(new Set(['QuotaA', 'QuotaB']));
    const free = (s: (typeof states)[number]) => s.cluster.nodes.reduce((n, node) => n + node.gpus, 0) - s.cluster.jobs.reduce((n, j) => n + j.pods * j.resources.gpu, 0);
    const overflowing = states.filter((s) => s.submit.pods * s.submit.resources.gpu > free(s));
    // The promise protects in-quota EAS jobs: a state without one cannot break it.
    const guarded = states.filter((s) => s.cluster.jobs.some((j) => j.module === 'EAS' && j.standing === 'in-quota'));
    // Seed 5 gives 65 overflowing and 58 guarded states of 200 with the biases, 50 and 36 without.
    expect(overflowing.length, 'states whose submission exceeds the free GPUs').toBeGreaterThanOrEqual(60);
    expect(guarded.length, 'states running a protected job').toBeGreaterThanOrEqual(45);
  });
});
