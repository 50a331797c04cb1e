/**
 * Kueue's LocalQueues (kueue.x-k8s.io, `spec.clusterQueue`): the namespaced queues users
 * submit to (pods and jobs name one in label `kueue.x-k8s.io/queue-name`), each feeding
 * one ClusterQueue. Two uses: `import kueue` makes one Workspace per namespace associated
 * with the ClusterQueues its LocalQueues feed (SEMANTICS 1: who may submit where is a
 * Workspace), and `import kubectl --kueue FILES` maps a pod's LocalQueue to the quota.
 */
import type { InputFile, PathSeg, SourceDoc } from '../policy/parse/source-doc.js';
import { asObject, type ForeignObject, readObjects, Report, stringMap, where } from './located-json.js';
import { NAME_ANNOTATION } from './tree-quota.js';

/** One LocalQueue: namespace/name → the ClusterQueue's object name. */
export interface LocalQueueLink {
  namespace: string;
  name: string;
  clusterQueue: string;
  sd: SourceDoc;
  path: PathSeg[];
  origin: string;
}

/** The LocalQueues among `objects`; one without a namespace or a clusterQueue is a located error. */
export function readLocalQueues(objects: ForeignObject[], report: Report): LocalQueueLink[] {
  const out: LocalQueueLink[] = [];
  const seen = new Map<string, string>();
  for (const o of objects) {
    if (o.kind !== 'LocalQueue') continue;
    const meta = asObject(o.obj.metadata) ?? {};
    const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
    const cq = asObject(o.obj.spec)?.clusterQueue;
    if (!namespace) {
      report.error(o.sd, [...o.path, 'metadata'], 'interop/kueue-local-queue', `LocalQueue ${o.name} has no metadata.namespace`, 'a LocalQueue lives in the namespace whose jobs it queues');
      continue;
    }
    if (typeof cq !== 'string' || cq === '') {
      report.error(
        o.sd,
        [...o.path, 'spec', 'clusterQueue'],
        'interop/kueue-local-queue',
        `LocalQueue ${namespace}/${o.name} names no spec.clusterQueue`,
        'spec.clusterQueue names the ClusterQueue it feeds',
      );
      continue;
    }
    const key = `${namespace}/${o.name}`;
    const first = seen.get(key);
    if (first !== undefined) {
      report.error(o.sd, [...o.path, 'metadata', 'name'], 'interop/kueue-local-queue', `LocalQueue ${key} is declared twice (first at ${first})`, 'a namespace has one LocalQueue of each name');
      continue;
    }
    seen.set(key, where(o.sd, o.path));
    out.push({ namespace, name: o.name, clusterQueue: cq, sd: o.sd, path: o.path, origin: where(o.sd, o.path) });
  }
  return out;
}

/** A Workspace an import writes: a namespace and the quotas its LocalQueues feed. */
export interface ImportedWorkspace {
  name: string;
  quotas: string[];
  /** Comment lines: the namespace and each LocalQueue → ClusterQueue, with where it was read. */
  notes: string[];
}

/**
 * One Workspace per namespace: the quotas (Quotient names of the ClusterQueues, by
 * `quotaOf`) its LocalQueues feed, in the order first named. A LocalQueue naming a
 * ClusterQueue the input does not declare is a located error (its jobs would name an
 * unknown quota).
 */
export function workspacesOfLocalQueues(links: LocalQueueLink[], quotaOf: (cqObjectName: string) => string | undefined, report: Report): ImportedWorkspace[] {
  const byNs = new Map<string, ImportedWorkspace>();
  for (const l of links) {
    const quota = quotaOf(l.clusterQueue);
    if (quota === undefined) {
      report.error(
        l.sd,
        [...l.path, 'spec', 'clusterQueue'],
        'interop/unknown-cluster-queue',
        `LocalQueue ${l.namespace}/${l.name} feeds ClusterQueue ${l.clusterQueue}, which the input does not declare`,
        'include the ClusterQueue, or remove the LocalQueue',
      );
      continue;
    }
    let ws = byNs.get(l.namespace);
    if (!ws) {
      ws = { name: l.namespace, quotas: [], notes: [`namespace ${l.namespace}: its LocalQueues and the ClusterQueues they feed`] };
      byNs.set(l.namespace, ws);
    }
    if (!ws.quotas.includes(quota)) ws.quotas.push(quota);
    ws.notes.push(`LocalQueue ${l.namespace}/${l.name} → ClusterQueue ${l.clusterQueue} (quota ${quota}), from ${l.origin}`);
  }
  return [...byNs.values()];
}

/** namespace/LocalQueue → ClusterQueue object name, for `import kubectl --kueue`. */
export type LocalQueueIndex = ReadonlyMap<string, LocalQueueLink>;

/** The index of `links` by `namespace/name`. */
export function indexLocalQueues(links: LocalQueueLink[]): LocalQueueIndex {
  return new Map(links.map((l) => [`${l.namespace}/${l.name}`, l]));
}

/**
 * The LocalQueues of Kueue files (`import kubectl --kueue`), indexed, each naming its
 * ClusterQueue by the quota name `import kueue` gives it (the object's quotient.dev/name
 * annotation when the files hold the ClusterQueue, else its object name).
 */
export function localQueuesOfFiles(files: InputFile[]): { index: LocalQueueIndex; flavorLabelKeys: string[]; report: Report } {
  const report = new Report();
  const objects = readObjects(files, report);
  // The label keys Kueue's flavors select nodes by: a Kueue-rules snapshot writes them on its nodes.
  const flavorLabelKeys = [...new Set(objects.filter((o) => o.kind === 'ResourceFlavor').flatMap((o) => Object.keys(stringMap(asObject(o.obj.spec)?.nodeLabels))))];
  const quotaName = new Map(objects.filter((o) => o.kind === 'ClusterQueue').map((o) => [o.name, o.annotations[NAME_ANNOTATION] ?? o.name]));
  const links = readLocalQueues(objects, report).map((l) => ({ ...l, clusterQueue: quotaName.get(l.clusterQueue) ?? l.clusterQueue }));
  if (!report.failed && links.length === 0)
    report.findings.push({
      file: files[0]?.path ?? '',
      line: 1,
      column: 1,
      code: 'interop/no-local-queues',
      severity: 'error',
      path: '',
      message: 'the --kueue files hold no LocalQueue',
      hint: 'give `kubectl get localqueues,clusterqueues -A -o yaml`',
    });
  return { index: indexLocalQueues(links), flavorLabelKeys, report };
}
