/**
 * `import kubectl` reading Kueue's Workloads (kubectl-workload.ts): a pending Workload is
 * one queued job (quota from spec.queueName through the --kueue LocalQueues, priority by
 * the bands, module from its owner, pods and resources from its podSets, submitted at its
 * creation); an admitted, finished or inactive one is counted, not queued; podSets of
 * different shapes are a located warning and the Workload is skipped; a pending pod of a
 * Workload's job is never queued twice. Each rule on small Lists written here.
 */
import { describe, expect, it } from 'vitest';
import { importKubectl, type KubectlOptions } from '../../../src/interop/import-kubectl.js';
import { localQueuesOfFiles } from '../../../src/interop/kueue-local-queues.js';
import { clusterYaml } from '../../../src/interop/write-cluster.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { KUBECTL_DEFAULTS } from '../../helpers/kubectl-options.js';

const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n0' }, status: { allocatable: { 'nvidia.com/gpu': '32' } } };
const container = (gpu: number, cpu = '8', memory = '64Gi') => ({ name: 'c', resources: { requests: { cpu, memory }, limits: { 'nvidia.com/gpu': String(gpu) } } });

interface PodSetArgs {
  name?: string;
  count?: unknown;
  gpu?: number;
  cpu?: string;
  labels?: Record<string, string>;
}
interface WorkloadArgs {
  name: string;
  ns?: string;
  queue?: string;
  owner?: string;
  priority?: unknown;
  created?: string;
  podSets?: PodSetArgs[];
  conditions?: Array<{ type: string; status: string; reason?: string }>;
  admission?: unknown;
  active?: boolean;
  api?: string;
  spec?: Record<string, unknown>;
}
function workload(a: WorkloadArgs): unknown {
  const [kind, ownerName] = (a.owner ?? '').split('/');
  return {
    apiVersion: a.api ?? 'kueue.x-k8s.io/v1beta1',
    kind: 'Workload',
    metadata: {
      name: a.name,
      namespace: a.ns ?? 'team',
      ...(a.created === '' ? {} : { creationTimestamp: a.created ?? '2026-11-27T10:00:00Z' }),
      ...(a.owner ? { ownerReferences: [{ apiVersion: 'batch/v1', kind, name: ownerName, controller: true }] } : {}),
    },
    spec: {
      ...(a.queue === '' ? {} : { queueName: a.queue ?? 'team-queue' }),
      ...(a.priority === undefined ? {} : { priority: a.priority }),
      ...(a.active === undefined ? {} : { active: a.active }),
      podSets: (a.podSets ?? [{}]).map((p) => ({
        name: p.name ?? 'main',
        ...(p.count === undefined ? {} : { count: p.count }),
        template: { ...(p.labels ? { metadata: { labels: p.labels } } : {}), spec: { containers: [container(p.gpu ?? 8, p.cpu)] } },
      })),
      ...a.spec,
    },
    ...(a.conditions || a.admission ? { status: { ...(a.conditions ? { conditions: a.conditions } : {}), ...(a.admission ? { admission: a.admission } : {}) } } : {}),
  };
}
function pod(name: string, owner: string | undefined, pending: boolean, gpu = 8): unknown {
  const [kind, ownerName] = (owner ?? '').split('/');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'team',
      labels: { 'kueue.x-k8s.io/queue-name': 'team-queue' },
      creationTimestamp: '2026-11-27T09:00:00Z',
      ...(owner ? { ownerReferences: [{ apiVersion: 'batch/v1', kind, name: ownerName, controller: true }] } : {}),
    },
    spec: { ...(pending ? {} : { nodeName: 'n0' }), containers: [container(gpu)] },
    status: { phase: pending ? 'Pending' : 'Running' },
  };
}
const kueue = localQueuesOfFiles([
  {
    path: 'kueue.yaml',
    text: [
      'apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: team-cq}\nspec: {}',
      'apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {namespace: team, name: team-queue}\nspec: {clusterQueue: team-cq}',
    ].join('\n---\n'),
  },
]);
const list = (...items: unknown[]) => ({ path: 'state.json', text: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [node, ...items] }, null, 2) });
const run = (opts: Partial<KubectlOptions>, ...items: unknown[]) => importKubectl(list(...items), { ...KUBECTL_DEFAULTS, localQueues: kueue.index, ...opts });
const pendingConditions = [{ type: 'QuotaReserved', status: 'False', reason: 'Pending' }];

describe('pending Workloads as the queue', () => {
  it('one queued job per pending Workload: quota through the LocalQueue, workspace from the namespace, priority by the bands, module from the owner, submitted at its creation', () => {
    const r = run(
      {},
      workload({ name: 'job-late-1', owner: 'Job/late', priority: 100000, created: '2026-11-27T11:00:00Z', conditions: pendingConditions }),
      workload({ name: 'pytorchjob-sweep-2', owner: 'PyTorchJob/sweep', priority: 1000, created: '2026-11-27T10:00:00Z', podSets: [{ name: 'master', gpu: 4 }], api: 'kueue.x-k8s.io/v1beta2' }),
      workload({ name: 'lws-serve-3', owner: 'LeaderWorkerSet/serve', created: '2026-11-27T10:30:00Z', podSets: [{ gpu: 2, labels: { 'quotient.dev/module': 'DSW' } }] }),
    );
    expect(r.report.findings).toEqual([]);
    expect(r.queue.map((j) => [j.name, j.workspace, j.quota, j.module, j.priority, j.pods, j.resources.gpu, new Date(j.submittedAt).toISOString()])).toEqual([
      ['team/sweep', 'team', 'team-cq', 'DLC', 3, 1, 4, '2026-11-27T10:00:00.000Z'],
      ['team/serve', 'team', 'team-cq', 'DSW', 1, 1, 2, '2026-11-27T10:30:00.000Z'],
      ['team/late', 'team', 'team-cq', 'DLC', 5, 1, 8, '2026-11-27T11:00:00.000Z'],
    ]);
    const notes = r.queue.map((j) => j.notes.join(' | '));
    expect(notes[0]).toContain('LocalQueue team/team-queue → ClusterQueue team-cq');
    expect(notes[0]).toContain('module DLC from owner kind PyTorchJob');
    expect(notes[1]).toContain('module DSW from label quotient.dev/module');
    expect(notes[1]).toContain('no spec.priority (counted as 0)');
    expect(r.queue[0]!.origin).toMatch(/^state\.json:\d+:\d+$/);
    expect(r.workloads).toMatchObject({ read: 3, queued: 3, admitted: 0, finished: 0, skipped: 0 });
    expect(r.jobs).toEqual([]);
  });

  it('sums the pods of podSets of one shape; leaves podSets without GPUs out, said in the comment; a podSet of count 0 adds nothing', () => {
    const r = run(
      {},
      workload({
        name: 'mpi',
        owner: 'MPIJob/mpi',
        podSets: [
          { name: 'launcher', gpu: 0, cpu: '1' },
          { name: 'worker', count: 3, gpu: 8 },
          { name: 'extra', count: 1, gpu: 8 },
          { name: 'spare', count: 0, gpu: 2 },
        ],
      }),
    );
    expect(r.queue.map((j) => [j.name, j.pods, j.resources])).toEqual([['team/mpi', 4, { gpu: 8, cpu: 8000, memory: 65536 }]]);
    expect(r.queue[0]!.notes.join(' ')).toContain('podSets without GPUs left out: launcher (1 pod(s))');
  });

  it('without --kueue the LocalQueue is taken as the quota; a LocalQueue the files do not hold is a warning at spec.queueName', () => {
    expect(run({ localQueues: undefined }, workload({ name: 'a', owner: 'Job/a' })).queue[0]!.quota).toBe('team-queue');
    const r = run({}, workload({ name: 'b', owner: 'Job/b', queue: 'other' }));
    expect(r.queue[0]!.quota).toBe('other');
    expect(r.report.findings).toMatchObject([{ code: 'interop/unknown-local-queue', severity: 'warning', path: 'items[1].spec.queueName' }]);
  });

  it('names a Workload of an owner that runs pods owner#pending, and writes a queue the loader accepts', () => {
    const r = run({}, pod('web-0', 'Job/web', false), workload({ name: 'job-web-9', owner: 'Job/web', podSets: [{ gpu: 2 }] }));
    expect(r.jobs.map((j) => j.name)).toEqual(['team/web']);
    expect(r.queue.map((j) => j.name)).toEqual(['team/web#pending']);
    const text = clusterYaml('c', Date.parse('2026-11-27T12:00:00Z'), 'state.json', r.nodes, r.jobs, r.queue);
    const tree =
      'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: {name: t}\nspec:\n  pool: {name: gpu-pool}\n  quotas: [{name: team-cq, min: {gpu: 32}}]\n---\napiVersion: quotient.dev/v1\nkind: Workspace\nmetadata: {name: team}\nspec: {quotas: [team-cq]}\n';
    const { policy, findings } = loadPolicy([
      { path: 'tree.yaml', text: tree },
      { path: 'cluster.yaml', text },
    ]);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect((policy!.cluster!.queue ?? []).map((j) => [j.name, j.pods, j.resources.gpu])).toEqual([['team/web#pending', 1, 2]]);
  });
});

describe('Workloads that are not queued', () => {
  it('admitted (QuotaReserved or Admitted True, or an admission without a False QuotaReserved), finished and inactive Workloads are counted, not queued, and not listed one by one', () => {
    const r = run(
      {},
      workload({ name: 'reserved', owner: 'Job/a', conditions: [{ type: 'QuotaReserved', status: 'True' }] }),
      workload({ name: 'admitted', owner: 'Job/b', conditions: [{ type: 'Admitted', status: 'True' }] }),
      workload({
        name: 'finished',
        owner: 'Job/c',
        conditions: [
          { type: 'QuotaReserved', status: 'False' },
          { type: 'Finished', status: 'True', reason: 'Succeeded' },
        ],
      }),
      workload({ name: 'off', owner: 'Job/d', active: false }),
      workload({
        name: 'evicted',
        owner: 'Job/e',
        conditions: [
          { type: 'Evicted', status: 'True', reason: 'Preempted' },
          { type: 'QuotaReserved', status: 'False' },
        ],
      }),
      workload({ name: 'admission', owner: 'Job/f', admission: { clusterQueue: 'team-cq', podSetAssignments: [] } }),
      workload({ name: 'stale', owner: 'Job/g', admission: { clusterQueue: 'team-cq' }, conditions: [{ type: 'QuotaReserved', status: 'False' }] }),
    );
    expect(r.queue.map((j) => j.name)).toEqual(['team/e', 'team/g']);
    expect(r.queue[0]!.notes[0]).toContain('evicted before: Preempted; requeued');
    expect(r.workloads).toMatchObject({ read: 7, queued: 2, admitted: 3, finished: 1, inactive: 1, skipped: 0 });
    expect(r.skipped).toEqual([]);
    expect(r.mapped.join('\n')).toMatch(/^workloads: 7 Kueue Workload\(s\) read, 2 queued .*, 3 admitted or holding quota .*, 1 finished, 1 inactive/m);
  });

  it('podSets of different shapes: a warning at the podSet that differs, and the Workload skipped with the reason', () => {
    const r = run(
      {},
      workload({
        name: 'ray',
        owner: 'RayJob/ray',
        podSets: [
          { name: 'head', gpu: 1 },
          { name: 'workers', count: 2, gpu: 8 },
        ],
      }),
    );
    expect(r.queue).toEqual([]);
    expect(r.report.findings).toMatchObject([{ code: 'interop/workload-shapes', severity: 'warning', path: 'items[1].spec.podSets[1]' }]);
    expect(r.report.findings[0]!.line).toBeGreaterThan(1);
    expect(r.skipped).toMatchObject([{ kind: 'Workload', name: 'team/ray', reason: expect.stringContaining('podSets of different shapes') }]);
    expect(r.workloads).toMatchObject({ read: 1, queued: 0, skipped: 1 });
  });

  it('locates what it cannot read at the field: spec.priority, creationTimestamp, podSets[].count, a GPU quantity; each Workload skipped and listed', () => {
    const r = run(
      {},
      workload({ name: 'p', owner: 'Job/p', priority: 'high' }),
      workload({ name: 't', owner: 'Job/t', created: 'yesterday' }),
      workload({ name: 'c', owner: 'Job/c', podSets: [{ count: 1.5 }] }),
      workload({ name: 'n', owner: 'Job/n', created: '' }),
      workload({ name: 'q', owner: 'Job/q', queue: '' }),
      workload({ name: 'none', owner: 'Job/none', spec: { podSets: [] } }),
      workload({ name: 'g', owner: 'Job/g', podSets: [{ gpu: 0 }] }),
    );
    expect(r.queue).toEqual([]);
    expect(r.report.findings.map((f) => [f.code, f.path])).toEqual([
      ['interop/bad-priority', 'items[1].spec.priority'],
      ['interop/bad-time', 'items[2].metadata.creationTimestamp'],
      ['interop/bad-workload', 'items[3].spec.podSets[0].count'],
      ['interop/bad-workload', 'items[6].spec.podSets'],
    ]);
    expect(r.skipped.map((s) => s.name)).toEqual(['team/p', 'team/t', 'team/c', 'team/n', 'team/q', 'team/none', 'team/g']);
    expect(r.workloads).toMatchObject({ read: 7, skipped: 7 });
  });

  it('reads a single Workload object as a List of one (kubectl get workload NAME -o json)', () => {
    const one = workload({ name: 'job-one-1', owner: 'Job/one', conditions: pendingConditions });
    const r = importKubectl({ path: 'one.json', text: JSON.stringify(one, null, 2) }, { ...KUBECTL_DEFAULTS, localQueues: kueue.index });
    expect(r.report.findings).toEqual([]);
    expect(r.queue.map((j) => [j.name, j.quota])).toEqual([['team/one', 'team-cq']]);
  });

  it("lists a Workload of another API group as skipped, not read as Kueue's", () => {
    const r = run({}, workload({ name: 'x', owner: 'Job/x', api: 'example.com/v1' }));
    expect(r.queue).toEqual([]);
    expect(r.skipped).toMatchObject([{ kind: 'Workload', reason: expect.stringContaining('apiVersion example.com/v1 is not read') }]);
    expect(r.workloads).toBeUndefined();
  });
});

describe('a pending pod of a Workload is not queued twice', () => {
  it("a Job's pending pods and its pending Workload: one queued job, from the Workload; the pods listed as the Workload's", () => {
    const r = run({}, pod('train-0', 'Job/train', true), pod('train-1', 'Job/train', true), workload({ name: 'job-train-1', owner: 'Job/train', podSets: [{ count: 2 }] }));
    expect(r.queue.map((j) => [j.name, j.pods, j.kueueWorkload])).toEqual([['team/train', 2, 'team/job-train-1']]);
    expect(r.skipped.map((s) => [s.kind, s.name])).toEqual([
      ['Pod', 'team/train-0'],
      ['Pod', 'team/train-1'],
    ]);
    expect(r.workloads).toMatchObject({ queued: 1, podsOfWorkloads: 2 });
    // The same pods without the Workload are the queue themselves.
    expect(run({}, pod('train-0', 'Job/train', true), pod('train-1', 'Job/train', true)).queue.map((j) => [j.name, j.pods])).toEqual([['team/train', 2]]);
  });

  it("Kueue's pod integration (the Workload owned by the gated pod) and a pending pod of an admitted Workload: neither queued from the pod", () => {
    const r = run(
      {},
      pod('solo', undefined, true),
      workload({ name: 'pod-solo-1', owner: 'Pod/solo' }),
      pod('big-0', 'Job/big', true),
      workload({ name: 'job-big-1', owner: 'Job/big', conditions: [{ type: 'QuotaReserved', status: 'True' }] }),
      pod('free-0', 'Job/free', true),
    );
    expect(r.queue.map((j) => [j.name, j.kueueWorkload ?? 'pods'])).toEqual([
      ['team/free', 'pods'],
      ['team/solo', 'team/pod-solo-1'],
    ]);
    expect(r.queue[1]!.notes.join(' ')).toContain('no owner: the default (--module)');
    expect(r.skipped.map((s) => [s.name, s.reason])).toEqual([
      ['team/solo', "pending pod of a queued Kueue Workload's job: the Workload is the queued job"],
      ['team/big-0', expect.stringContaining('Workload that is admitted')],
    ]);
  });
});

describe('a Workload twice (issue 27 item 6)', () => {
  it('is a located error at the second, naming the first, and is never queued twice', () => {
    const w = workload({ name: 'job-a-1', owner: 'Job/a', conditions: pendingConditions });
    const r = run({}, w, workload({ name: 'other-2', owner: 'Job/b', conditions: pendingConditions }), w);
    expect(r.report.findings.map((f) => [f.code, f.severity, f.path])).toEqual([['interop/duplicate-workload', 'error', 'items[3].metadata.name']]);
    expect(r.report.findings[0]!.message).toMatch(/the first at state\.json:\d+:\d+/);
    expect(r.report.failed).toBe(true);
    expect(r.queue.filter((j) => j.name === 'team/a').length).toBeLessThanOrEqual(1);
  });
});
