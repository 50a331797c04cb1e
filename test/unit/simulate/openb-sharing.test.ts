/**
 * The openb replay honours the trace's GPU sharing and GPU models (issue 23 item 3,
 * docs/simulate.md "The openb replay"): a pod of `gpu_milli` 500 asks half a GPU, so two
 * of them run at once on a one-GPU node; a pod's `gpu_spec` is its `gpuModels`, matched
 * against the node list's `model`, so a V100 pod waits for the V100 while a T4 is free
 * and a pod of the same shape without a model takes the T4. With shares, the report's
 * GPU-hours still tie out: used (the shares held) + idle (free GPUs and the room beside
 * the shares) = capacity, the room said apart (docs/simulate.md "GPU sharing in the report").
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { readBundles } from '../../../src/policy/parse/read-files.js';
import { loadCluster } from '../../../src/simulate/cluster-loaders.js';
import { DEFAULT_QOS, defaultTeams, readOpenb } from '../../../src/simulate/openb-trace.js';
import type { Report } from '../../../src/simulate/report.js';
import { simulate, type SimStart } from '../../../src/simulate/simulator.js';

const dir = mkdtempSync(join(tmpdir(), 'openb-sharing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// One team on round-robin, so a job that cannot start does not hold back the next one.
writeFileSync(
  join(dir, 'policy.yaml'),
  `apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: t }
spec:
  pool: { name: p }
  quotas:
    - { name: A, min: { gpu: 2 }, queueStrategy: round-robin }
---
apiVersion: quotient.dev/v1
kind: Workspace
metadata: { name: ws }
spec: { quotas: [A], modules: [DLC] }
`,
);
const policy = loadPolicy(readBundles([dir])[0]!.files, { now: 0 }).policy!;

const HEAD = 'name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time';

/** Replays `pods` (openb rows after the header) on `nodes` (sn,cpu_milli,memory_mib,gpu,model rows). */
async function replay(nodes: string[], pods: string[]): Promise<{ report: Report; starts: Map<string, number> }> {
  const cluster = loadCluster('openb', 'nodes.csv', `sn,cpu_milli,memory_mib,gpu,model\n${nodes.join('\n')}\n`, 'p');
  const workload = readOpenb('pods.csv', `${HEAD}\n${pods.join('\n')}\n`, { qos: DEFAULT_QOS, teams: defaultTeams(policy) });
  expect([...cluster.findings, ...workload.rejected]).toEqual([]);
  const starts = new Map<string, number>();
  const report = await simulate({ policy, label: dir, nodes: cluster.nodes, workload, market: [] }, { seed: 1, backend: 'wasm', onStart: (s: SimStart) => starts.set(s.job, s.t) });
  return { report, starts };
}

/** used + idle = capacity, to the report's rounding. */
function tiesOut(r: Report): void {
  const t = r.totals;
  expect(Math.abs(t.usedGpuHours + t.idleGpuHours - t.capacityGpuHours)).toBeLessThanOrEqual(0.02);
}

describe('the openb replay', () => {
  it('runs two 500-milli pods at once on a one-GPU node, and ties out in milli-GPU-hours', async () => {
    const { report, starts } = await replay(['n0,32000,65536,1,T4'], ['half-a,1000,1024,1,500,,LS,Running,0,3600,0', 'half-b,1000,1024,1,500,,LS,Running,0,3600,0']);
    expect(starts).toEqual(
      new Map([
        ['half-a', 0],
        ['half-b', 0],
      ]),
    );
    expect(report.totals.wait.max).toBe(0);
    // One hour of two halves filling the one GPU: no room beside them.
    expect(report.hours).toBe(1);
    expect(report.totals.usedGpuHours).toBe(1);
    expect(report.totals.idleGpuHours).toBe(0);
    expect(report.totals.sharedRoomGpuHours).toBe(0);
    tiesOut(report);
  });

  it('counts the room beside one share as idle, and said apart', async () => {
    const { report } = await replay(['n0,32000,65536,2,T4'], ['third,1000,1024,1,300,,LS,Running,0,3600,0']);
    expect(report.totals.usedGpuHours).toBe(0.3);
    // For the hour: 0.7 GPU of room beside the share, and the other GPU whole.
    expect(report.totals.sharedRoomGpuHours).toBe(0.7);
    expect(report.totals.idleGpuHours).toBe(1.7);
    tiesOut(report);
  });

  it('places a pod only on the GPU models its gpu_spec names; a pod of the same shape without one takes another model', async () => {
    const { starts, report } = await replay(
      ['t4,32000,65536,1,T4', 'v100,32000,65536,1,V100M16'],
      ['v-first,1000,1024,1,1000,V100M16,LS,Running,0,3600,0', 'v-second,1000,1024,1,1000,V100M16|V100M32,LS,Running,0,3600,0', 'z-any-model,1000,1024,1,1000,,LS,Running,0,3600,0'],
    );
    // The second V100 pod waits for the first, although the T4 is free from the start ...
    expect(starts.get('v-first')).toBe(0);
    expect(starts.get('v-second')).toBe(3_600_000);
    // ... which the pod asking any model takes at once (its wait is not the V100 pod's).
    expect(starts.get('z-any-model')).toBe(0);
    expect(report.workload.notes.some((n) => n.includes('gpu_spec'))).toBe(true);
    tiesOut(report);
  });

  it('refuses a pod that shares a GPU while asking several, and a gpu_milli out of range, at their lines', () => {
    const w = readOpenb('pods.csv', `${HEAD}\ntwo,1000,1024,2,500,,LS,Running,0,60,0\nover,1000,1024,1,1500,,LS,Running,0,60,0\nok,1000,1024,1,250,,LS,Running,0,60,0\n`, {
      qos: DEFAULT_QOS,
      teams: defaultTeams(policy),
    });
    expect(w.rejected.map((f) => [f.code, f.line, f.path])).toEqual([
      ['trace/bad-value', 2, 'gpu_milli'],
      ['trace/bad-value', 3, 'gpu_milli'],
    ]);
    expect(w.jobs.map((j) => [j.spec.name, j.spec.resources.gpu])).toEqual([['ok', 0.25]]);
  });
});
