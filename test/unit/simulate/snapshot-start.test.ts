/**
 * `quotient simulate` starts from the Cluster snapshot's running jobs (simulate/snapshot-start.ts):
 * they hold their nodes from time 0, count in their quotas, end at their expected end,
 * and are victims by the policy's rules, losing work since their last checkpoint as it
 * moves on from the snapshot's `checkpoint.last`. The report counts them and still ties out.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { JobSpec, Policy } from '../../../src/model/policy.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { simulate, type SimInput } from '../../../src/simulate/simulator.js';
import { queuedAtStart, runningAtStart } from '../../../src/simulate/snapshot-start.js';
import type { SimJob } from '../../../src/simulate/workload.js';
import { spotClusterYaml } from '../../helpers/spot-example.js';

const MIN = 60_000;
const HOUR = 60 * MIN;

function job(name: string, quota: string, workspace: string, priority: number, gpu: number, submit: number, duration: number): SimJob {
  const spec: JobSpec = { name, workspace, quota, module: 'DLC', priority, pods: 1, resources: { gpu }, idleResources: 'none', src: { file: 'test', line: 1, column: 1, path: '' } };
  return { spec, submit, duration };
}

function input(policy: Policy, jobs: SimJob[], withSnapshot = true): SimInput {
  const cluster = policy.cluster!;
  return {
    policy,
    label: 'test',
    nodes: cluster.nodes,
    workload: { source: 'test', synthetic: false, jobs, rejected: [], notes: [] },
    market: [],
    ...(withSnapshot ? { running: runningAtStart(cluster) } : {}),
  };
}

describe('a simulation starts from the snapshot', () => {
  // policies/when-will-it-start at 12:00: a-serve holds TeamA's 16 GPUs with no end,
  // b-train (8 GPUs on lab-2) ends at 13:00, b-eval (8 on lab-3) at 15:00.
  const policy = loadPolicy(readBundles(['policies/when-will-it-start'])[0]!.files, { now: 0 }).policy!;

  it("holds the snapshot's nodes and quotas until the jobs' expected ends", async () => {
    // b1 (TeamB, 8 GPUs, 2 h) arrives at 0: TeamB is full until b-train ends at 1 h, then
    // it runs 1 h-3 h. a1 (TeamA) arrives at 30 min and never runs: a-serve gives no end.
    const r = await simulate(input(policy, [job('b1', 'TeamB', 'team-b', 3, 8, 0, 2 * HOUR), job('a1', 'TeamA', 'team-a', 3, 8, 30 * MIN, HOUR)]), { seed: 1, backend: 'wasm' });
    expect(r.cluster.runningAtStart).toBe(3);
    expect(r.quotas.find((q) => q.name === 'TeamB')!.wait).toMatchObject({ started: 1, max: 1 });
    expect(r.totals).toMatchObject({ jobs: 5, completed: 3, unfinished: 2, capacityGpuHours: 96, usedGpuHours: 96, idleGpuHours: 0 });
    // 0-3 h: a-serve 16 GPUs, b-eval 8, b-train 8 then b1 8.
    expect(r.quotas.find((q) => q.name === 'TeamA')!.gpuHours.inQuota).toBe(48);
    expect(r.quotas.find((q) => q.name === 'TeamB')!.gpuHours.inQuota).toBe(48);
    expect(r.notes.join(' ')).toContain('1 of the snapshot');
    // Without the snapshot the same workload starts at once on an empty cluster.
    const empty = await simulate(input(policy, [job('b1', 'TeamB', 'team-b', 3, 8, 0, 2 * HOUR)], false), { seed: 1, backend: 'wasm' });
    expect(empty.quotas.find((q) => q.name === 'TeamB')!.wait.max).toBe(0);
  });

  it("preempts a snapshot job by the policy's rules, counting lost work from its checkpoint.last on", async () => {
    // The spot example's tree: TeamA selfPreemption 7-9 over 1-3 [DLC]. At 00:00 a-low
    // (TeamA, p2, 16 GPUs) started 3 h ago, checkpoints every 1 h, last at 23:40 the day before;
    // b-run (TeamB, p5, 16 GPUs) ends at 02:00. A p8 TeamA job arrives at 50 min: TeamA is
    // full, so it preempts a-low. a-low's checkpoints run 23:40, 00:40, ...: at 00:50 it loses
    // 16 GPUs x 10 min = 2.67 GPU-h (counted from startedAt's grid it would be 13.33; from a
    // fixed 23:40, 18.67).
    const quotas = { path: 'quotas.yaml', text: readFileSync('policies/spot-market/quotas.yaml', 'utf8') };
    const cluster = {
      path: 'cluster.yaml',
      text: spotClusterYaml([
        '{ name: a-low, workspace: team-a, quota: TeamA, module: DLC, priority: 2, pods: 2, resources: { gpu: 8 }, startedAt: 2026-11-19T21:00:00Z, checkpoint: { every: 1h, last: 2026-11-19T23:40:00Z }, expectedEnd: 2026-11-20T10:00:00Z }',
        '{ name: b-run, workspace: team-b, quota: TeamB, module: DLC, priority: 5, pods: 2, resources: { gpu: 8 }, duration: 3h, startedAt: 2026-11-19T23:00:00Z }',
      ]),
    };
    const loaded = loadPolicy([quotas, cluster], { now: 0 });
    expect(loaded.findings.filter((f) => f.severity === 'error')).toEqual([]);
    const p = loaded.policy!;
    const r = await simulate(input(p, [job('urgent', 'TeamA', 'team-a', 8, 8, 50 * MIN, HOUR)]), { seed: 1, backend: 'wasm' });
    expect(r.preemptions.first).toHaveLength(1);
    expect(r.preemptions.first[0]).toMatchObject({ job: 'a-low', rule: 'TeamA/selfPreemption', by: 'urgent', lostGpuHours: 2.67, hour: 0.8333 });
    expect(r.totals).toMatchObject({ jobs: 3, completed: 2, endedPreempted: 1, lostGpuHours: 2.67 });
    // Runs to b-run's end at 2 h: a-low 16 GPUs 0-50 min, b-run 16 GPUs 0-2 h, urgent 8 GPUs 50 min-1 h 50 min.
    expect(r.totals.usedGpuHours).toBeCloseTo(16 * (50 / 60) + 16 * 2 + 8, 2);
    expect(Math.abs(r.totals.usedGpuHours + r.totals.idleGpuHours - r.totals.capacityGpuHours)).toBeLessThanOrEqual(0.02);
  });

  it("starts with the snapshot's queue waiting (SEMANTICS 8): queued jobs arrive first, keeping their submission for their place and their wait", async () => {
    // policies/queued-jobs at 12:00: a-serve (TeamA, 8 GPUs, no end) on lab-0, b-train
    // (TeamB, 8 GPUs) ends at 13:00. Queued: b-sweep (TeamB, 16 GPUs, 2 h, since 11:00) and
    // a-eval (TeamA, 8 GPUs, 1 h, since 11:30). A workload job w (TeamB, p5, 8 GPUs, 1 h)
    // arrives at hour 0 too, after them in TeamB's fifo queue (same priority, submitted later).
    //   0 h: a-eval starts (TeamA 16 of 16) — waited 0.5 h; b-sweep cannot (TeamB 24 of 16)
    //        and holds w.
    //   1 h: b-train and a-eval end; b-sweep starts (TeamB 16 of 16) — waited 2 h.
    //   3 h: b-sweep ends; w starts — waited 3 h; ends at 4 h.
    const p = loadPolicy(readBundles(['policies/queued-jobs'])[0]!.files, { now: 0 }).policy!;
    const queued = queuedAtStart(p.cluster!);
    expect(queued.map((j) => [j.spec.name, j.submit / HOUR, j.duration / HOUR])).toEqual([
      ['b-sweep', -1, 2],
      ['a-eval', -0.5, 1],
    ]);
    const starts: Array<[string, number]> = [];
    const r = await simulate({ ...input(p, [job('w', 'TeamB', 'team-b', 5, 8, 0, HOUR)]), queued }, { seed: 1, backend: 'wasm', onStart: (s) => starts.push([s.job, s.t / HOUR]) });
    expect(starts).toEqual([
      ['a-eval', 0],
      ['b-sweep', 1],
      ['w', 3],
    ]);
    expect(r.cluster).toMatchObject({ runningAtStart: 2, queuedAtStart: 2 });
    expect(r.totals).toMatchObject({ jobs: 5, completed: 4, unfinished: 1 });
    expect(r.quotas.find((q) => q.name === 'TeamB')!.wait).toMatchObject({ started: 2, max: 3 });
    expect(r.quotas.find((q) => q.name === 'TeamA')!.wait).toMatchObject({ started: 1, max: 0.5 });
    // Without the queue, w starts at once: TeamB uses 8 of 16.
    const alone = await simulate(input(p, [job('w', 'TeamB', 'team-b', 5, 8, 0, HOUR)]), { seed: 1, backend: 'wasm' });
    expect(alone.quotas.find((q) => q.name === 'TeamB')!.wait.max).toBe(0);
    expect(alone.cluster.queuedAtStart).toBeUndefined();
  });

  it("counts a queued job's wait from its submission: balance's window at hour 0 is the one a what-if sees", async () => {
    // test/golden/queue/balance-within-and-beyond-window.yaml: A (balance, widening every
    // 30 min) runs 8 of 16; h1 (since 11:00), h2, h3 each need 16 and wait. At 12:00 h1 has
    // waited 1 h: the window is 3 jobs, so `within` (p5, third) is tried and starts at hour
    // 0, as the what-if admits it. Counted from hour 0 the window would be 1: held.
    const text = readFileSync('test/golden/queue/balance-within-and-beyond-window.yaml', 'utf8');
    const p = loadPolicy([{ path: 'b.yaml', text: text.slice(0, text.indexOf('---\nkind: Expect')) }], { now: 0 }).policy!;
    const starts: Array<[string, number]> = [];
    await simulate(
      { ...input(p, [job('within', 'A', 'ws', 5, 8, 0, HOUR)]), queued: queuedAtStart(p.cluster!) },
      { seed: 1, backend: 'wasm', until: 2 * HOUR, onStart: (s) => starts.push([s.job, s.t]) },
    );
    expect(starts).toEqual([['within', 0]]);
  });
});
