/**
 * `import kubectl` as a Kueue cluster needs it: a pod's module from its owner's kind when
 * no label says it (--module-map), a pod's LocalQueue mapped to its ClusterQueue
 * (--kueue), and pending pods that name a queue as the snapshot's queue with their
 * creation time. Each rule on small Lists written here.
 */
import { describe, expect, it } from 'vitest';
import { importKubectl, type KubectlOptions } from '../../../src/interop/import-kubectl.js';
import { localQueuesOfFiles } from '../../../src/interop/kueue-local-queues.js';
import { DEFAULT_OWNER_MODULES, parseModuleMap } from '../../../src/interop/owner-module.js';
import { clusterYaml } from '../../../src/interop/write-cluster.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { KUBECTL_DEFAULTS } from '../../helpers/kubectl-options.js';

const node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n0' }, status: { allocatable: { 'nvidia.com/gpu': '32' } } };
interface PodArgs {
  ns?: string;
  name: string;
  owner?: string;
  labels?: Record<string, string>;
  gpu?: number;
  pending?: boolean;
  created?: string;
  nodeName?: string;
}
function pod(a: PodArgs): unknown {
  const [kind, ownerName] = (a.owner ?? '').split('/');
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: a.name,
      namespace: a.ns ?? 'team',
      labels: a.labels ?? {},
      ...(a.created ? { creationTimestamp: a.created } : {}),
      ...(a.owner ? { ownerReferences: [{ apiVersion: 'x/v1', kind, name: ownerName, controller: true }] } : {}),
    },
    spec: { ...(a.pending && !a.nodeName ? {} : { nodeName: a.nodeName ?? 'n0' }), containers: [{ name: 'c', resources: { limits: { 'nvidia.com/gpu': String(a.gpu ?? 1) } } }] },
    status: { phase: a.pending ? 'Pending' : 'Running' },
  };
}
const list = (...pods: unknown[]) => ({ path: 'state.json', text: JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [node, ...pods] }) });
const run = (opts: Partial<KubectlOptions>, ...pods: unknown[]) => importKubectl(list(...pods), { ...KUBECTL_DEFAULTS, ...opts });

describe('modules by owner kind', () => {
  const owners = ['Deployment', 'ReplicaSet', 'InferenceService', 'LeaderWorkerSet', 'Job', 'PyTorchJob', 'MPIJob', 'TFJob', 'RayJob', 'JobSet', 'Notebook', 'StatefulSet'];
  const pods = owners.map((k, i) => pod({ name: `p${i}`, owner: `${k}/o${i}` }));

  it('serving owners are EAS, batch and training owners DLC, notebooks DSW; each choice is in the job comment', () => {
    const r = run({}, ...pods);
    expect(r.jobs.map((j) => j.module)).toEqual(['EAS', 'EAS', 'EAS', 'EAS', 'DLC', 'DLC', 'DLC', 'DLC', 'DLC', 'DLC', 'DSW', 'DSW']);
    expect(r.jobs[0]!.notes.join(' ')).toContain('module EAS from owner kind Deployment');
  });

  it('the module label wins; an unknown kind or no owner gets --module', () => {
    const r = run({ module: 'DSW' }, pod({ name: 'a', owner: 'Deployment/web', labels: { 'quotient.dev/module': 'DLC' } }), pod({ name: 'b', owner: 'Widget/w' }), pod({ name: 'c' }));
    expect(r.jobs.map((j) => [j.name, j.module])).toEqual([
      ['team/web', 'DLC'],
      ['team/w', 'DSW'],
      ['team/c', 'DSW'],
    ]);
    expect(r.jobs[0]!.notes.join(' ')).toContain('module DLC from label quotient.dev/module');
  });

  it('--module-map overrides and adds kinds, and refuses what is not KIND=MODULE', () => {
    const m = parseModuleMap('StatefulSet=EAS,RayCluster=DLC');
    expect('map' in m && [m.map.get('StatefulSet'), m.map.get('RayCluster'), m.map.get('Job')]).toEqual(['EAS', 'DLC', 'DLC']);
    expect(run({ moduleMap: 'map' in m ? m.map : DEFAULT_OWNER_MODULES }, pod({ name: 'a', owner: 'StatefulSet/s' })).jobs[0]!.module).toBe('EAS');
    for (const bad of ['StatefulSet', 'StatefulSet=GPU', '=DLC', ' , ']) expect('error' in parseModuleMap(bad), bad).toBe(true);
  });
});

describe('Kueue LocalQueues (--kueue)', () => {
  const kueue = localQueuesOfFiles([
    {
      path: 'kueue.yaml',
      text: [
        'apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: team-cq, annotations: {quotient.dev/name: Team.CQ}}\nspec: {}',
        'apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: {namespace: team, name: team-queue}\nspec: {clusterQueue: team-cq}',
      ].join('\n---\n'),
    },
  ]);

  it("maps a pod's queue-name to the ClusterQueue its LocalQueue feeds (by the quota's name), and warns at a LocalQueue it does not know", () => {
    expect(kueue.report.failed).toBe(false);
    const r = run(
      { localQueues: kueue.index },
      pod({ name: 'a', owner: 'Job/a', labels: { 'kueue.x-k8s.io/queue-name': 'team-queue' } }),
      pod({ name: 'b', owner: 'Job/b', labels: { 'kueue.x-k8s.io/queue-name': 'other' } }),
    );
    expect(r.jobs.map((j) => [j.name, j.quota])).toEqual([
      ['team/a', 'Team.CQ'],
      ['team/b', 'other'],
    ]);
    expect(r.jobs[0]!.notes.join(' ')).toContain('LocalQueue team/team-queue → ClusterQueue Team.CQ');
    expect(r.report.findings).toMatchObject([{ code: 'interop/unknown-local-queue', path: 'items[2].metadata.labels.kueue.x-k8s.io/queue-name' }]);
  });

  it('refuses --kueue files without a LocalQueue', () => {
    const none = localQueuesOfFiles([{ path: 'k.yaml', text: 'apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: {name: x}\nspec: {}\n' }]);
    expect(none.report.findings).toMatchObject([{ code: 'interop/no-local-queues', severity: 'error' }]);
  });
});

describe('pending pods as the queue', () => {
  const q = { 'kueue.x-k8s.io/queue-name': 'team' };

  it('a pending gang that names a queue is one queued job, submitted at its first pod creation; the queue is in submission order', () => {
    const r = run(
      {},
      pod({ name: 'late-0', owner: 'Job/late', labels: q, gpu: 8, pending: true, created: '2026-11-27T11:00:00Z' }),
      pod({ name: 'sweep-0', owner: 'PyTorchJob/sweep', labels: q, gpu: 8, pending: true, created: '2026-11-27T10:05:00Z' }),
      pod({ name: 'sweep-1', owner: 'PyTorchJob/sweep', labels: q, gpu: 8, pending: true, created: '2026-11-27T10:00:00Z' }),
    );
    expect(r.queue.map((j) => [j.name, j.quota, j.module, j.pods, j.resources.gpu, new Date(j.submittedAt).toISOString()])).toEqual([
      ['team/sweep', 'team', 'DLC', 2, 8, '2026-11-27T10:00:00.000Z'],
      ['team/late', 'team', 'DLC', 1, 8, '2026-11-27T11:00:00.000Z'],
    ]);
    expect(r.jobs).toEqual([]);
  });

  it('skips pending pods without a queue label, without a creation time, or bound to a node; a bad time is a located warning', () => {
    const r = run(
      {},
      pod({ name: 'noq', owner: 'Job/noq', pending: true, created: '2026-11-27T10:00:00Z' }),
      pod({ name: 'notime', owner: 'Job/notime', labels: q, pending: true }),
      pod({ name: 'bound', owner: 'Job/bound', labels: q, pending: true, nodeName: 'n0', created: '2026-11-27T10:00:00Z' }),
      pod({ name: 'badtime', owner: 'Job/badtime', labels: q, pending: true, created: 'yesterday' }),
    );
    expect(r.queue).toEqual([]);
    expect(r.skipped.map((s) => s.name)).toEqual(['team/noq', 'team/notime', 'team/bound', 'team/badtime']);
    expect(r.report.findings).toMatchObject([{ code: 'interop/bad-time', path: 'items[4].metadata.creationTimestamp' }]);
  });

  it('names a pending gang of an owner that also runs pods owner#pending, and writes a queue the loader accepts; one submitted after --at is left out', () => {
    const r = run(
      {},
      pod({ name: 'web-0', owner: 'ReplicaSet/web', labels: q, gpu: 2 }),
      pod({ name: 'web-1', owner: 'ReplicaSet/web', labels: q, gpu: 2, pending: true, created: '2026-11-27T10:00:00Z' }),
      pod({ name: 'next', owner: 'Job/next', labels: q, pending: true, created: '2026-11-27T13:00:00Z' }),
    );
    expect(r.queue.map((j) => [j.name, j.module])).toEqual([
      ['team/web#pending', 'EAS'],
      ['team/next', 'DLC'],
    ]);
    const at = Date.parse('2026-11-27T12:00:00Z');
    const text = clusterYaml('c', at, 'state.json', r.nodes, r.jobs, r.queue);
    expect(text).toContain('1 waiting job(s) submitted after at are left out of the queue: team/next');
    const tree =
      'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: {name: t}\nspec:\n  pool: {name: gpu-pool}\n  quotas: [{name: team, min: {gpu: 32}}]\n---\napiVersion: quotient.dev/v1\nkind: Workspace\nmetadata: {name: team}\nspec: {quotas: [team]}\n';
    const { policy, findings } = loadPolicy([
      { path: 'tree.yaml', text: tree },
      { path: 'cluster.yaml', text },
    ]);
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect((policy!.cluster!.queue ?? []).map((j) => [j.name, j.submittedAt])).toEqual([['team/web#pending', Date.parse('2026-11-27T10:00:00Z')]]);
  });
});
