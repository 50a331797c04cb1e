/**
 * A seeded `kubectl get nodes,pods -A -o json` List of any size, as a real GPU cluster
 * prints it (4-space JSON, kubectl's field order): GPU nodes of two models with
 * `nvidia.com/gpu` allocatable, a few cpu-only nodes, and pods in many namespaces —
 * gangs of Jobs, PyTorchJobs, ReplicaSets and StatefulSets (a controlling owner
 * reference each), bare pods, system daemons without GPUs, pending and finished pods —
 * with priorities from PriorityClasses, Kueue or Koordinator labels and start times.
 * Every GPU pod fits its node, so an import keeps them all. bench/load.ts times
 * `import kubectl` on it; the same seed and size give the same bytes.
 */
import { seededRandom } from './synthetic-cluster.js';

/** What was generated: the text, and its counts. */
export interface KubectlState {
  text: string;
  nodes: number;
  pods: number;
  gpuPods: number;
}

const PRIORITY_CLASSES = [0, 100, 1000, 10000, 100000, 1000000];
const OWNER_KINDS = [
  { apiVersion: 'batch/v1', kind: 'Job' },
  { apiVersion: 'kubeflow.org/v1', kind: 'PyTorchJob' },
  { apiVersion: 'apps/v1', kind: 'ReplicaSet' },
  { apiVersion: 'apps/v1', kind: 'StatefulSet' },
];

/**
 * A List of about `pods` pods (GPU pods and the daemons beside them) on as many 8-GPU
 * nodes as the GPU pods need, plus a cpu-only node per 50 GPU nodes.
 */
export function kubectlState(pods: number, seed = 1): KubectlState {
  const rnd = seededRandom(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const t0 = Date.parse('2026-11-23T00:00:00Z');
  const items: unknown[] = [];
  const nodeItems: unknown[] = [];
  let uid = 0;
  const id = (): string => `${(uid++).toString(16).padStart(8, '0')}-5c1e-4c8a-9f3e-0242ac120002`;
  let nodeCount = 0;
  let freeOnNode = 0;
  let gpuPods = 0;
  const gpuNode = (): string => {
    const i = nodeCount++;
    const name = `gpu-node-${String(i).padStart(5, '0')}`;
    const h100 = i % 3 === 0;
    nodeItems.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: {
        creationTimestamp: '2026-10-01T08:00:00Z',
        labels: {
          'kubernetes.io/arch': 'amd64',
          'kubernetes.io/hostname': name,
          'kubernetes.io/os': 'linux',
          'node.kubernetes.io/instance-type': h100 ? 'ecs.gn8v-8x.48xlarge' : 'ecs.gn7e-c16g1.32xlarge',
          'nvidia.com/gpu.count': '8',
          'nvidia.com/gpu.product': h100 ? 'NVIDIA-H100-80GB-HBM3' : 'NVIDIA-A100-SXM4-80GB',
          'topology.kubernetes.io/zone': i % 2 ? 'cn-beijing-h' : 'cn-beijing-g',
        },
        name,
        resourceVersion: String(100000 + i),
        uid: id(),
      },
      spec: i % 97 === 96 ? { taints: [{ effect: 'NoSchedule', key: 'node.kubernetes.io/unschedulable' }], unschedulable: true } : { podCIDR: `10.${(i >> 8) & 255}.${i & 255}.0/24` },
      status: {
        allocatable: { cpu: '127500m', 'ephemeral-storage': '846624789946', memory: '1031798Mi', 'nvidia.com/gpu': '8', pods: '110' },
        capacity: { cpu: '128', 'ephemeral-storage': '918638128Ki', memory: '1056Gi', 'nvidia.com/gpu': '8', pods: '110' },
        conditions: [
          { lastHeartbeatTime: '2026-11-23T05:59:00Z', lastTransitionTime: '2026-10-01T08:01:00Z', message: 'kubelet is posting ready status', reason: 'KubeletReady', status: 'True', type: 'Ready' },
        ],
        nodeInfo: { containerRuntimeVersion: 'containerd://1.7.22', kubeletVersion: 'v1.31.2', osImage: 'Alibaba Cloud Linux 3' },
      },
    });
    freeOnNode = 8;
    // The daemons every GPU node runs, without GPUs (the import lists them as skipped).
    daemons.push(name);
    return name;
  };
  const daemons: string[] = [];
  let current = '';
  const place = (gpu: number): string => {
    if (current === '' || freeOnNode < gpu) current = gpuNode();
    freeOnNode -= gpu;
    return current;
  };
  const pod = (p: {
    ns: string;
    name: string;
    node?: string;
    gpu?: number;
    cpu: string;
    memory: string;
    owner?: { apiVersion: string; kind: string; name: string };
    labels: Record<string, string>;
    priority?: number;
    phase: string;
    start: number;
  }): void => {
    const limits: Record<string, string> = { cpu: p.cpu, memory: p.memory };
    if (p.gpu !== undefined) limits['nvidia.com/gpu'] = String(p.gpu);
    items.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        creationTimestamp: new Date(t0 + p.start * 60_000).toISOString().replace('.000', ''),
        labels: p.labels,
        name: p.name,
        namespace: p.ns,
        ...(p.owner
          ? { ownerReferences: [{ apiVersion: p.owner.apiVersion, blockOwnerDeletion: true, controller: true, kind: p.owner.kind, name: p.owner.name, uid: `o-${p.ns}-${p.owner.name}` }] }
          : {}),
        resourceVersion: String(200000 + uid),
        uid: id(),
      },
      spec: {
        containers: [{ image: 'registry.example.com/train:2.4.1', name: 'main', resources: { limits, requests: { cpu: p.cpu, memory: p.memory } } }],
        ...(p.node ? { nodeName: p.node } : {}),
        ...(p.priority !== undefined ? { priority: p.priority } : {}),
        restartPolicy: 'Never',
        schedulerName: 'default-scheduler',
      },
      status: { phase: p.phase, ...(p.phase === 'Running' ? { podIP: `10.1.${uid & 255}.${(uid >> 8) & 255}`, startTime: new Date(t0 + p.start * 60_000).toISOString().replace('.000', '') } : {}) },
    });
  };
  const namespaces = Array.from({ length: Math.max(4, Math.ceil(pods / 400)) }, (_, i) => `team-${i}`);
  let made = 0;
  let job = 0;
  while (made + daemons.length * 2 < pods) {
    const ns = pick(namespaces);
    const r = rnd();
    const labels: Record<string, string> = r < 0.4 ? { 'kueue.x-k8s.io/queue-name': ns } : r < 0.7 ? { 'quota.scheduling.koordinator.sh/name': ns } : {};
    const start = Math.floor(rnd() * 600);
    const priority = rnd() < 0.2 ? undefined : pick(PRIORITY_CLASSES);
    if (rnd() < 0.08) {
      // A pod not running: pending (no node yet) or finished.
      const phase = rnd() < 0.5 ? 'Pending' : 'Succeeded';
      pod({ ns, name: `batch-${job++}`, gpu: 1, cpu: '4', memory: '16Gi', labels, phase, start, ...(phase === 'Succeeded' ? { node: current || place(0) } : {}) });
      made++;
      continue;
    }
    if (rnd() < 0.1) {
      pod({
        ns,
        name: `notebook-${job++}`,
        node: place(1),
        gpu: 1,
        cpu: '4',
        memory: '32Gi',
        labels: { ...labels, 'quotient.dev/module': 'DSW' },
        phase: 'Running',
        start,
        ...(priority !== undefined ? { priority } : {}),
      });
      gpuPods++;
      made++;
      continue;
    }
    const owner = { ...pick(OWNER_KINDS), name: `job-${job++}-${Math.floor(rnd() * 0xfffff).toString(16)}` };
    const gpu = pick([1, 1, 2, 4, 8]);
    const size = Math.max(1, Math.min(pods - made - daemons.length * 2, pick([1, 2, 4, 4, 8, 16])));
    for (let k = 0; k < size; k++) {
      pod({
        ns,
        name: `${owner.name}-worker-${k}`,
        node: place(gpu),
        gpu,
        cpu: String(gpu * 12),
        memory: `${gpu * 96}Gi`,
        owner,
        labels: { ...labels, 'app.kubernetes.io/name': owner.name },
        phase: 'Running',
        start,
        ...(priority !== undefined ? { priority } : {}),
      });
    }
    gpuPods += size;
    made += size;
  }
  for (const node of daemons) {
    for (const name of ['kube-proxy', 'nvidia-device-plugin']) {
      pod({
        ns: 'kube-system',
        name: `${name}-${node.slice(-5)}`,
        node,
        cpu: '100m',
        memory: '128Mi',
        owner: { apiVersion: 'apps/v1', kind: 'DaemonSet', name },
        labels: { 'k8s-app': name },
        priority: 2000001000,
        phase: 'Running',
        start: 0,
      });
    }
  }
  for (let i = 0; i <= nodeCount / 50; i++) {
    const name = `cpu-node-${i}`;
    nodeItems.push({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { labels: { 'kubernetes.io/hostname': name }, name, uid: id() },
      spec: {},
      status: { allocatable: { cpu: '64', memory: '256Gi', pods: '110' } },
    });
    nodeCount++;
  }
  const text = `${JSON.stringify({ apiVersion: 'v1', items: [...nodeItems, ...items], kind: 'List', metadata: { resourceVersion: '' } }, null, 4)}\n`;
  return { text, nodes: nodeCount, pods: items.length, gpuPods };
}
