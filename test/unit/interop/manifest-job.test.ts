/**
 * Kubernetes manifests as what-if submissions (manifest-job.ts, manifest-pod-sets.ts,
 * manifest-submission.ts): each kind's pod sets counted as Kueue's integrations count
 * them, shapes read as `import kubectl` reads a Workload's podSets, the queue label →
 * LocalQueue → ClusterQueue, namespace → workspace, priority class → priority by the
 * bands, owner kind → module; bad manifests are located errors. Each on a manifest
 * written here.
 */
import { describe, expect, it } from 'vitest';
import type { Finding } from '../../../src/errors.js';
import { Report } from '../../../src/interop/located-json.js';
import { readManifest } from '../../../src/interop/manifest-job.js';
import { manifestSubmission, type ManifestMapping } from '../../../src/interop/manifest-submission.js';
import { DEFAULT_PRIORITY_MAP, parsePriorityMap } from '../../../src/interop/priority-map.js';
import type { Policy } from '../../../src/model/policy.js';

const MAPPING: ManifestMapping = {
  quotaFrom: ['kueue', 'koordinator', 'namespace'],
  workspaceFrom: ['namespace'],
  moduleLabel: 'quotient.dev/module',
  module: 'DLC',
  priorityMap: parsePriorityMap(DEFAULT_PRIORITY_MAP).bands!,
};

/** A policy as import kueue writes one: a Workspace per namespace with the ClusterQueues its LocalQueues feed. */
const POLICY = {
  pools: [{ name: 'gpu-pool' }, { name: 'kueue-pool', rules: 'kueue' }],
  quotas: [
    { name: 'research-cq', pool: 'gpu-pool' },
    { name: 'prod-cq', pool: 'gpu-pool' },
    { name: 'shared-a', pool: 'gpu-pool' },
    { name: 'shared-b', pool: 'gpu-pool' },
    { name: 'kueue-cq', pool: 'kueue-pool' },
  ],
  workspaces: [
    { name: 'research', quotas: ['research-cq'] },
    { name: 'prod', quotas: ['prod-cq'] },
    { name: 'shared', quotas: ['shared-a', 'shared-b'] },
  ],
} as unknown as Pick<Policy, 'quotas' | 'workspaces' | 'pools'>;

const pod = (gpu: number | string, extra = '', indent = '      '): string =>
  [
    `${indent}spec:`,
    `${indent}  containers:`,
    `${indent}    - name: c`,
    `${indent}      resources:`,
    `${indent}        requests: { cpu: "8", memory: 64Gi }`,
    `${indent}        limits: { nvidia.com/gpu: ${JSON.stringify(gpu)} }`,
    ...(extra ? [`${indent}  ${extra}`] : []),
  ].join('\n');

const meta = (kind: string, api: string, labels = 'kueue.x-k8s.io/queue-name: research-queue', ns = 'research'): string =>
  `apiVersion: ${api}\nkind: ${kind}\nmetadata:\n  name: j\n${ns ? `  namespace: ${ns}\n` : ''}  labels: { ${labels} }\n`;

function ask(text: string, extra = '') {
  const { job, context, report } = readManifest({ path: 'job.yaml', text }, { extra: extra ? [{ path: 'kueue.yaml', text: extra }] : [] });
  if (!job) return { findings: report.findings };
  const r = new Report();
  const sub = manifestSubmission(job, context, POLICY, MAPPING, r);
  return { sub, findings: [...report.findings, ...r.findings] };
}

const errors = (fs: Finding[]) => fs.filter((f) => f.severity === 'error').map((f) => [f.code, `${f.file}:${f.line}:${f.column}`, f.path]);

describe('manifest kinds', () => {
  it("a batch/v1 Job: parallelism pods (fewer when completions is smaller), namespace → workspace, LocalQueue → the workspace's one ClusterQueue, owner kind Job → DLC, suspend ignored", () => {
    const { sub } = ask(`${meta('Job', 'batch/v1')}spec:\n  suspend: true\n  parallelism: 4\n  completions: 3\n  template:\n${pod(8)}\n`);
    expect(sub!.job).toEqual({ name: 'research/j', workspace: 'research', quota: 'research-cq', module: 'DLC', priority: 1, pods: 3, resources: { gpu: 8, cpu: '8', memory: '64Gi' } });
    expect(sub!.notes.join('\n')).toMatch(/spec\.suspend: true is ignored/);
    expect(sub!.notes.join('\n')).toMatch(/LocalQueue research\/research-queue → research-cq, the one quota of the policy's workspace research/);
  });

  it("a JobSet: each replicatedJob is replicas × its Job's pods, the pod sets summed when of one shape", () => {
    const rj = (name: string, replicas: number, parallelism: number) =>
      `    - name: ${name}\n      replicas: ${replicas}\n      template:\n        spec:\n          parallelism: ${parallelism}\n          template:\n${pod(4, '', '            ')}`;
    const { sub } = ask(`${meta('JobSet', 'jobset.x-k8s.io/v1alpha2')}spec:\n  replicatedJobs:\n${rj('driver', 1, 1)}\n${rj('workers', 2, 3)}\n`);
    expect(sub!.job).toMatchObject({ pods: 7, resources: { gpu: 4 }, module: 'DLC' });
    expect(sub!.notes[0]).toMatch(/workers × 6 \(spec\.replicatedJobs\[1\]\.replicas 2 × spec\.replicatedJobs\[1\]\.template\.spec\.parallelism 3\)/);
  });

  it('a PyTorchJob, TFJob and MPIJob: one pod set per role (replicas, default 1); a launcher without GPUs is left out and said', () => {
    const role = (name: string, replicas: number | undefined, gpu: number) =>
      `    ${name}:\n${replicas === undefined ? '' : `      replicas: ${replicas}\n`}      template:\n${pod(gpu, '', '        ')}`;
    const py = ask(`${meta('PyTorchJob', 'kubeflow.org/v1')}spec:\n  pytorchReplicaSpecs:\n${role('Master', undefined, 8)}\n${role('Worker', 3, 8)}\n`);
    expect(py.sub!.job).toMatchObject({ pods: 4, resources: { gpu: 8 }, module: 'DLC' });
    expect(py.sub!.notes[0]).toMatch(/master × 1, worker × 3/);
    const tf = ask(`${meta('TFJob', 'kubeflow.org/v1')}spec:\n  tfReplicaSpecs:\n${role('Chief', 1, 2)}\n${role('Worker', 2, 2)}\n`);
    expect(tf.sub!.job).toMatchObject({ pods: 3, resources: { gpu: 2 } });
    const mpi = ask(`${meta('MPIJob', 'kubeflow.org/v2beta1')}spec:\n  mpiReplicaSpecs:\n${role('Launcher', 1, 0)}\n${role('Worker', 2, 8)}\n`);
    expect(mpi.sub!.job).toMatchObject({ pods: 2, resources: { gpu: 8 } });
    expect(mpi.sub!.notes[0]).toMatch(/pod sets without GPUs left out of the GPU gang: launcher \(1 pod\(s\)\)/);
  });

  it('a RayJob and a RayCluster: the head (1 pod) and each worker group, replicas × numOfHosts', () => {
    const cluster = (indent: string) =>
      `${indent}headGroupSpec:\n${indent}  template:\n${pod(0, '', `${indent}    `)}\n${indent}workerGroupSpecs:\n${indent}  - groupName: gpu\n${indent}    replicas: 2\n${indent}    numOfHosts: 2\n${indent}    template:\n${pod(8, '', `${indent}      `)}`;
    const job = ask(`${meta('RayJob', 'ray.io/v1')}spec:\n  rayClusterSpec:\n${cluster('    ')}\n`);
    expect(job.sub!.job).toMatchObject({ pods: 4, resources: { gpu: 8 }, module: 'DLC' });
    expect(job.sub!.notes[0]).toMatch(/head \(1 pod\(s\)\)/);
    const rc = ask(`${meta('RayCluster', 'ray.io/v1')}spec:\n${cluster('  ')}\n`);
    expect(rc.sub!.job).toMatchObject({ pods: 4, resources: { gpu: 8 } });
  });

  it('a Pod is one pod without an owner (the default module); a Deployment is EAS and a StatefulSet DSW, replicas pods', () => {
    const p = ask(`${meta('Pod', 'v1')}${pod(1, '', '').replace(/^/gm, '')}\n`);
    expect(p.sub!.job).toMatchObject({ pods: 1, resources: { gpu: 1 }, module: 'DLC' });
    expect(p.sub!.notes[1]).toMatch(/module DLC from no owner/);
    const d = ask(`${meta('Deployment', 'apps/v1')}spec:\n  replicas: 3\n  template:\n${pod(1)}\n`);
    expect(d.sub!.job).toMatchObject({ pods: 3, module: 'EAS' });
    const s = ask(`${meta('StatefulSet', 'apps/v1')}spec:\n  template:\n${pod(1)}\n`);
    expect(s.sub!.job).toMatchObject({ pods: 1, module: 'DSW' });
  });

  it('a LeaderWorkerSet: replicas groups of size pods (a leader and size - 1 workers), EAS', () => {
    const { sub } = ask(
      `${meta('LeaderWorkerSet', 'leaderworkerset.x-k8s.io/v1')}spec:\n  replicas: 2\n  leaderWorkerTemplate:\n    size: 4\n    leaderTemplate:\n${pod(8, '', '      ')}\n    workerTemplate:\n${pod(8, '', '      ')}\n`,
    );
    expect(sub!.job).toMatchObject({ pods: 8, resources: { gpu: 8 }, module: 'EAS' });
    expect(sub!.notes[0]).toMatch(/leader × 2.*worker × 6/);
  });

  it("a Kueue Workload: its podSets, spec.queueName, spec.priority, and its owner's kind", () => {
    const { sub } = ask(
      `apiVersion: kueue.x-k8s.io/v1beta1\nkind: Workload\nmetadata:\n  name: job-x-1a2b\n  namespace: prod\n  ownerReferences: [{ apiVersion: batch/v1, kind: Job, name: x, controller: true, uid: u }]\nspec:\n  queueName: serving-queue\n  priority: 100000\n  podSets:\n    - name: main\n      count: 2\n      template:\n${pod(4, '', '        ')}\n`,
    );
    expect(sub!.job).toMatchObject({ name: 'prod/job-x-1a2b', quota: 'prod-cq', workspace: 'prod', priority: 5, pods: 2, module: 'DLC' });
  });
});

describe('the GPU resource', () => {
  it('counts the resource given (as import kubectl --gpu-resource), and only it', () => {
    const text = `${meta('Job', 'batch/v1')}spec:\n  template:\n${pod(2).replace('nvidia.com/gpu', 'amd.com/gpu')}\n`;
    const amd = readManifest({ path: 'job.yaml', text }, { gpuResource: 'amd.com/gpu' });
    expect(amd.job?.shapes).toMatchObject([{ gpu: 2, count: 1 }]);
    expect(errors(readManifest({ path: 'job.yaml', text }).report.findings)).toEqual([['interop/manifest-no-gpu', 'job.yaml:1:1', '']]);
  });
});

describe('queues and priorities', () => {
  it("a LocalQueue beside the job leads to its ClusterQueue (by its quotient.dev/name), through import kubectl's clusterQueueOf", () => {
    const kueue = `apiVersion: kueue.x-k8s.io/v1beta1\nkind: LocalQueue\nmetadata: { name: q, namespace: shared }\nspec: { clusterQueue: cq-b }\n---\napiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: { name: cq-b, annotations: { quotient.dev/name: shared-b } }\nspec: {}\n`;
    const { sub } = ask(`${meta('Job', 'batch/v1', 'kueue.x-k8s.io/queue-name: q', 'shared')}spec:\n  template:\n${pod(8)}\n`, kueue);
    expect(sub!.job.quota).toBe('shared-b');
    expect(sub!.notes[1]).toMatch(/LocalQueue shared\/q → ClusterQueue shared-b \(kueue\.yaml:1:1\)/);
  });

  it('a LocalQueue the policy cannot lead anywhere (a workspace of two quotas) is an error at the label', () => {
    const { findings } = ask(`${meta('Job', 'batch/v1', 'kueue.x-k8s.io/queue-name: q', 'shared')}spec:\n  template:\n${pod(8)}\n`);
    expect(errors(findings)).toEqual([['interop/unknown-local-queue', 'job.yaml:6:40', 'metadata.labels.kueue.x-k8s.io/queue-name']]);
    expect(findings[0]!.message).toMatch(/workspace shared may submit to shared-a, shared-b/);
  });

  it("without a queue label the namespace is the quota, as import kubectl takes a pod's", () => {
    const { sub } = ask(`${meta('Job', 'batch/v1', 'app: x', 'prod-cq')}spec:\n  template:\n${pod(8)}\n`);
    expect(sub!.job).toMatchObject({ quota: 'prod-cq', workspace: 'prod-cq' });
  });

  it("a WorkloadPriorityClass label wins over the pods' PriorityClass; values map by the bands; an unknown class is an error at its name", () => {
    const classes = `apiVersion: kueue.x-k8s.io/v1beta1\nkind: WorkloadPriorityClass\nmetadata: { name: high }\nvalue: 10000\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: { name: low }\nvalue: 100\n`;
    const both = ask(`${meta('Job', 'batch/v1', 'kueue.x-k8s.io/queue-name: research-queue, kueue.x-k8s.io/priority-class: high')}spec:\n  template:\n${pod(8, 'priorityClassName: low')}\n`, classes);
    expect(both.sub!.job.priority).toBe(4);
    const pods = ask(`${meta('Job', 'batch/v1')}spec:\n  template:\n${pod(8, 'priorityClassName: low')}\n`, classes);
    expect(pods.sub!.job.priority).toBe(2);
    const system = ask(`${meta('Job', 'batch/v1')}spec:\n  template:\n${pod(8, 'priorityClassName: system-cluster-critical')}\n`);
    expect(system.sub!.job.priority).toBe(9);
    // A quota whose pool follows Kueue's rules takes the number as Kueue has it, never banded.
    const kueue = ask(`${meta('Job', 'batch/v1', 'kueue.x-k8s.io/queue-name: kueue-cq, kueue.x-k8s.io/priority-class: high')}spec:\n  template:\n${pod(8)}\n`, classes);
    expect(kueue.sub!.job).toMatchObject({ quota: 'kueue-cq', priority: 10000 });
    expect(kueue.sub!.notes[1]).toMatch(/priority 10000 from WorkloadPriorityClass high .* as Kueue's own number/);
    const unknown = ask(`${meta('Job', 'batch/v1')}spec:\n  template:\n${pod(8, 'priorityClassName: nope')}\n`);
    expect(errors(unknown.findings)).toEqual([['interop/unknown-priority-class', 'job.yaml:15:28', 'spec.template.spec.priorityClassName']]);
  });
});

describe('bad manifests are located errors', () => {
  it('pod sets of different shapes are refused, naming the pod sets (never merged)', () => {
    const role = (name: string, gpu: number) => `    ${name}:\n      template:\n${pod(gpu, '', '        ')}`;
    const { findings } = ask(`${meta('PyTorchJob', 'kubeflow.org/v1')}spec:\n  pytorchReplicaSpecs:\n${role('Master', 8)}\n${role('Worker', 4)}\n`);
    expect(errors(findings)).toEqual([['interop/manifest-shapes', 'job.yaml:19:9', 'spec.pytorchReplicaSpecs.Worker.template']]);
    expect(findings[0]!.message).toMatch(/pod set worker \(per pod 4 GPU\(s\), cpu 8, memory 64Gi\) differs from pod set master .*master, worker/);
  });

  it('a count, a GPU quantity, a cpu quantity that cannot be read; no template; no GPUs; two jobs; no job', () => {
    expect(errors(ask(`${meta('Job', 'batch/v1')}spec:\n  parallelism: two\n  template:\n${pod(8)}\n`).findings)).toEqual([['interop/bad-manifest', 'job.yaml:8:16', 'spec.parallelism']]);
    expect(errors(ask(`${meta('Job', 'batch/v1')}spec:\n  template:\n${pod('0.5')}\n`).findings)).toEqual([
      ['interop/bad-quantity', 'job.yaml:14:41', 'spec.template.spec.containers[0].resources.limits.nvidia.com/gpu'],
    ]);
    expect(errors(ask(`${meta('Job', 'batch/v1')}spec:\n  template:\n${pod(8).replace('cpu: "8"', 'cpu: eight')}\n`).findings)).toEqual([
      ['interop/bad-quantity', 'job.yaml:13:32', 'spec.template.spec.containers[0].resources.requests.cpu'],
    ]);
    expect(errors(ask(`${meta('Deployment', 'apps/v1')}spec:\n  replicas: 1\n`).findings)).toEqual([['interop/bad-manifest', 'job.yaml:8:3', 'spec.template']]);
    expect(errors(ask(`${meta('Job', 'batch/v1')}spec:\n  template:\n${pod(0)}\n`).findings)).toEqual([['interop/manifest-no-gpu', 'job.yaml:1:1', '']]);
    const job = `${meta('Job', 'batch/v1')}spec:\n  template:\n${pod(8)}\n`;
    expect(errors(ask(`${job}---\n${job}`).findings)).toEqual([['interop/manifest-several-jobs', 'job.yaml:17:7', 'kind']]);
    expect(errors(ask('apiVersion: v1\nkind: Service\nmetadata: { name: s }\n').findings)).toEqual([['interop/manifest-no-job', 'job.yaml:2:7', 'kind']]);
  });
});
