/**
 * Writes one of Kueue's translated preemption cases (test/unit/rules/kueue/cases/*.json) as a
 * Kueue user would hold it: kueue.yaml (ResourceFlavors with nodeLabels, Cohorts, ClusterQueues,
 * LocalQueues), state.json (what `kubectl get nodes,pods,workloads -A -o json` prints: a node
 * per admitted pod and a spare per flavor, a Running pod per admitted workload) and job.yaml
 * (the incoming workload as a batch/v1 Job, with its WorkloadPriorityClass). The cases stay one source: nothing here is written by hand per case.
 *
 * `expressible` says why a case cannot go through the CLI, or undefined when it can.
 */
import { stringify } from 'yaml';

export interface CaseNode {
  name: string;
  kind: 'ClusterQueue' | 'Cohort';
  parent?: string | null;
  quota?: Record<string, readonly [number, (number | null)?, (number | null)?]>;
  preemption?: Record<string, unknown>;
}

export interface CaseWorkload {
  name: string;
  clusterQueue: string;
  usage: Record<string, number>;
  priority?: number;
  createdAt?: number;
  admittedAt?: number;
  evicted?: boolean;
}

export interface KueueObjectCase {
  name: string;
  nodes: CaseNode[];
  workloads: CaseWorkload[];
  incoming: CaseWorkload;
}

/** The node label a flavor's nodeLabels select on. */
const FLAVOR_LABEL = 'quotient.test/flavor';
/** Go's zero time (Kueue's tests leave creation times unset). */
const GO_ZERO = -62135596800000;

const split = (fr: string): [string, string] => {
  const i = fr.indexOf('/');
  return [fr.slice(0, i), fr.slice(i + 1)];
};

/** Why the case cannot be written as Kueue objects and pods run through the CLI, or undefined. */
export function expressible(c: KueueObjectCase): string | undefined {
  for (const w of [...c.workloads, c.incoming]) {
    const flavors = new Set(Object.keys(w.usage).map((fr) => split(fr)[0]));
    if (flavors.size !== 1) return `workload ${w.name} uses ${flavors.size} flavors at once: one pod cannot sit on nodes of two flavors`;
    if (!Object.entries(w.usage).some(([fr, v]) => split(fr)[1] === 'cpu' && v > 0)) return `workload ${w.name} asks no cpu (written as GPUs): a Quotient job is a gang of GPU pods`;
    if (w.evicted) return `workload ${w.name} is already being evicted: a pod list has no Workload eviction condition to carry it`;
  }
  return undefined;
}

/**
 * Quotient's jobs are gangs of GPU pods, so the cases' cpu (millicores) is written as
 * nvidia.com/gpu, in units of the greatest common divisor of every cpu amount in the case.
 * Kueue's quota arithmetic only adds, subtracts and compares, so scaling one resource by a
 * constant changes no answer. Memory stays memory (bytes).
 */
export function gpuUnit(c: KueueObjectCase): number {
  return unitOf(c, 'cpu') || 1000;
}

/** The greatest common divisor of every amount of `resource` in the case (0 when none). */
function unitOf(c: KueueObjectCase, resource: string): number {
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  let unit = 0;
  const add = (fr: string, v: number | null | undefined) => {
    if (split(fr)[1] === resource && v) unit = gcd(unit, v);
  };
  for (const n of c.nodes) for (const [fr, q] of Object.entries(n.quota ?? {})) for (const v of q) add(fr, v);
  for (const w of [...c.workloads, c.incoming]) for (const [fr, v] of Object.entries(w.usage)) add(fr, v);
  return unit;
}

const GPU = 'nvidia.com/gpu';
const resourceName = (r: string): string => (r === 'cpu' ? GPU : r);

/**
 * A Kubernetes quantity for a resource's amount in the case's units. Memory is written in
 * Mi, one Mi per the case's memory divisor: Quotient reads node memory in Mi, and Kueue's
 * cases use a few bytes (the same scaling argument as for cpu).
 */
function quantity(c: KueueObjectCase, resource: string, amount: number): number | string {
  if (resource === 'cpu') return amount / gpuUnit(c);
  if (resource === 'memory') return `${amount / (unitOf(c, 'memory') || 1)}Mi`;
  return amount;
}

function flavorsOf(c: KueueObjectCase): string[] {
  const out = new Set<string>();
  for (const n of c.nodes) for (const fr of Object.keys(n.quota ?? {})) out.add(split(fr)[0]);
  for (const w of [...c.workloads, c.incoming]) for (const fr of Object.keys(w.usage)) out.add(split(fr)[0]);
  return [...out].sort();
}

/** A namespace per ClusterQueue, its LocalQueue named after it. */
export const namespaceOf = (cq: string): string => `ns-${cq}`;

export function kueueYaml(c: KueueObjectCase): string {
  // Kueue admits to a ClusterQueue only what its resource groups cover: a queue that the
  // case gives no quota for a flavor-resource its workloads use (Kueue's test calls the
  // preemptor directly, past flavor assignment) lists it with nominalQuota 0, which is the
  // same quota in Kueue's arithmetic.
  const used = new Set<string>();
  for (const w of [...c.workloads, c.incoming]) for (const fr of Object.keys(w.usage)) used.add(fr);
  const quotaOf = (n: CaseNode): NonNullable<CaseNode['quota']> => {
    if (n.kind === 'Cohort') return n.quota ?? {};
    const out = { ...n.quota };
    for (const fr of used) out[fr] ??= [0];
    return out;
  };
  const docs: unknown[] = [];
  for (const f of flavorsOf(c)) docs.push({ apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'ResourceFlavor', metadata: { name: f }, spec: { nodeLabels: { [FLAVOR_LABEL]: f } } });
  const resourceGroups = (n: CaseNode) => {
    const byFlavor = new Map<string, Array<Record<string, unknown>>>();
    for (const [fr, [nominal, borrowingLimit, lendingLimit]] of Object.entries(quotaOf(n))) {
      const [f, r] = split(fr);
      const res: Record<string, unknown> = { name: resourceName(r), nominalQuota: quantity(c, r, nominal) };
      if (borrowingLimit !== undefined && borrowingLimit !== null) res.borrowingLimit = quantity(c, r, borrowingLimit);
      if (lendingLimit !== undefined && lendingLimit !== null) res.lendingLimit = quantity(c, r, lendingLimit);
      byFlavor.set(f, [...(byFlavor.get(f) ?? []), res]);
    }
    // Kueue wants every flavor of a group to cover the group's resources, and a resource in
    // one group only: resources that share a flavor form a group; a flavor lacking one of its
    // group's resources lists it with nominalQuota 0 (the same quota in Kueue's arithmetic).
    const groupOf = new Map<string, Set<string>>();
    for (const rs of byFlavor.values()) {
      const merged = new Set(rs.map((r) => String(r.name)));
      for (const r of [...merged]) for (const x of groupOf.get(r) ?? []) merged.add(x);
      for (const r of merged) groupOf.set(r, merged);
    }
    const groups = new Map<string, Array<{ name: string; resources: unknown[] }>>();
    for (const [f, rs] of byFlavor) {
      const covered = [...groupOf.get(String(rs[0]!.name))!].sort();
      const resources = covered.map((name) => rs.find((r) => r.name === name) ?? { name, nominalQuota: 0 });
      const key = covered.join(',');
      groups.set(key, [...(groups.get(key) ?? []), { name: f, resources }]);
    }
    return [...groups].map(([key, flavors]) => ({ coveredResources: key.split(','), flavors }));
  };
  for (const n of c.nodes.filter((x) => x.kind === 'Cohort')) {
    const spec: Record<string, unknown> = {};
    if (n.parent) spec.parent = n.parent;
    if (Object.keys(quotaOf(n)).length) spec.resourceGroups = resourceGroups(n);
    docs.push({ apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'Cohort', metadata: { name: n.name }, spec });
  }
  for (const n of c.nodes.filter((x) => x.kind === 'ClusterQueue')) {
    const spec: Record<string, unknown> = { namespaceSelector: {} };
    if (n.parent) spec.cohort = n.parent;
    spec.resourceGroups = resourceGroups(n);
    if (n.preemption && Object.keys(n.preemption).length) spec.preemption = n.preemption;
    docs.push({ apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'ClusterQueue', metadata: { name: n.name }, spec });
  }
  for (const n of c.nodes.filter((x) => x.kind === 'ClusterQueue')) {
    docs.push({ apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'LocalQueue', metadata: { name: n.name, namespace: namespaceOf(n.name) }, spec: { clusterQueue: n.name } });
  }
  return docs.map((d) => stringify(d)).join('---\n');
}

const iso = (ms: number | undefined): string => new Date(ms === undefined || ms === GO_ZERO ? 0 : ms).toISOString().replace('.000Z', 'Z');

/** A container's resources: GPUs as limits (as Kubernetes has extended resources), the rest as requests. */
function requests(c: KueueObjectCase, usage: Record<string, number>): Record<string, Record<string, number | string>> {
  const out: Record<string, Record<string, number | string>> = { requests: {}, limits: {} };
  for (const [fr, amount] of Object.entries(usage)) {
    const r = split(fr)[1];
    out[r === 'cpu' ? 'limits' : 'requests']![resourceName(r)] = quantity(c, r, amount);
  }
  return out;
}

/** `kubectl get nodes,pods,workloads -A -o json`: nodes labelled by flavor, a Running pod per admitted workload. */
export function stateJson(c: KueueObjectCase): string {
  const items: unknown[] = [];
  // A node per admitted pod, sized to it, and per flavor a spare node sized to the incoming
  // workload: nodes never decide, only quota does (and no node exceeds Quotient's 32 GPUs).
  const node = (name: string, f: string, usage: Record<string, number>) => {
    const allocatable: Record<string, string | number> = { pods: '110', [GPU]: 1 };
    for (const [fr, amount] of Object.entries(usage)) {
      const r = split(fr)[1];
      allocatable[resourceName(r)] = r === 'cpu' ? Math.max(1, amount / gpuUnit(c)) : quantity(c, r, amount);
    }
    items.push({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { [FLAVOR_LABEL]: f, 'kubernetes.io/hostname': name } }, spec: {}, status: { allocatable } });
  };
  for (const w of c.workloads) node(`node-${w.name}`, split(Object.keys(w.usage)[0]!)[0], w.usage);
  for (const f of flavorsOf(c)) node(`spare-${f}`, f, Object.fromEntries(Object.entries(c.incoming.usage).map(([fr, v]) => [`${f}/${split(fr)[1]}`, v])));
  for (const w of c.workloads) {
    items.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: `${w.name}-0`,
        namespace: namespaceOf(w.clusterQueue),
        labels: { 'kueue.x-k8s.io/queue-name': w.clusterQueue },
        creationTimestamp: iso(w.createdAt),
        ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: w.name, uid: `uid-${w.name}`, controller: true }],
      },
      spec: { nodeName: `node-${w.name}`, priority: w.priority ?? 0, containers: [{ name: 'main', image: 'example/work:1', resources: requests(c, w.usage) }] },
      status: { phase: 'Running', startTime: iso(w.admittedAt) },
    });
  }
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 2);
}

/**
 * The incoming workload as a batch/v1 Job, queued by its LocalQueue label, its priority from
 * a WorkloadPriorityClass given beside it (as Kueue users set a Job's priority).
 */
export function jobYaml(c: KueueObjectCase): string {
  const w = c.incoming;
  const priority = w.priority ?? 0;
  const klass = { apiVersion: 'kueue.x-k8s.io/v1beta1', kind: 'WorkloadPriorityClass', metadata: { name: priority < 0 ? `priority-minus-${-priority}` : `priority-${priority}` }, value: priority };
  const job = {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: w.name, namespace: namespaceOf(w.clusterQueue), labels: { 'kueue.x-k8s.io/queue-name': w.clusterQueue, 'kueue.x-k8s.io/priority-class': klass.metadata.name } },
    spec: {
      suspend: true,
      parallelism: 1,
      completions: 1,
      template: { spec: { restartPolicy: 'Never', containers: [{ name: 'main', image: 'example/work:1', resources: requests(c, w.usage) }] } },
    },
  };
  return `${stringify(klass)}---\n${stringify(job)}`;
}

/** When the question is asked: an hour after the last admission in the case. */
export function askedAt(c: KueueObjectCase): string {
  const last = Math.max(0, ...c.workloads.map((w) => w.admittedAt ?? 0), ...c.workloads.map((w) => w.createdAt ?? 0), c.incoming.createdAt ?? 0);
  return iso(last + 3_600_000);
}
