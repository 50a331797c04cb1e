/**
 * Kueue's Workloads (kueue.x-k8s.io/v1beta1 and v1beta2, `apis/kueue/*\/workload_types.go`)
 * of `kubectl get nodes,pods,workloads -A -o json` → the snapshot's queue (SEMANTICS 8:
 * "importing a live cluster turns pending pods (and Kueue's pending Workloads) into the
 * queue"). With Kueue a suspended Job has no pods at all: its pending Workload is the
 * queued job. A Workload that holds quota (QuotaReserved or Admitted True) or is Finished
 * is not queued (its running pods are the running job); one set inactive
 * (`spec.active: false`) is never admitted, so it is not queued either; the summary
 * counts each. A pending pod of a Workload's job (by owner reference) is the Workload's,
 * never queued twice.
 */
import type { PathSeg, SourceDoc } from '../policy/parse/source-doc.js';
import { importedName } from './imported-name.js';
import { clusterQueueOf, moduleOf, nameFrom, ownerOf, readCreated, readKubePriority, safeNamer } from './kubectl-pod.js';
import type { ImportedQueuedJob, KubectlOptions, PodFacts, WorkloadCounts } from './kubectl-types.js';
import { asObject, type Report, stringMap, where } from './located-json.js';
import { otherShape, readPodSetShapes, shapeText } from './pod-set-shape.js';
import { mapPriority } from './priority-map.js';

/** Kueue's API group: a `Workload` of another group is not Kueue's. */
export const KUEUE_GROUP = 'kueue.x-k8s.io';

/** One Workload as read: its state, the objects that own it (pods of its job), and its queued job when it waits. */
interface ReadWorkload {
  state: 'queued' | 'admitted' | 'finished' | 'inactive' | 'skipped';
  /** `namespace\0Kind\0name` of each owner reference (names written safe, as pods' are). */
  owners: string[];
  full: string;
  job?: Omit<ImportedQueuedJob, 'name'> & { base: string };
}

type Item = { sd: SourceDoc; path: PathSeg[]; obj: Record<string, unknown> };

/** A condition of `status.conditions` of `type` with `value` as its status. */
function conditionIs(status: Record<string, unknown>, type: string, value: 'True' | 'False'): Record<string, unknown> | undefined {
  const conditions: unknown[] = Array.isArray(status.conditions) ? status.conditions : [];
  return conditions.map(asObject).find((c) => c?.type === type && c.status === value);
}

/** A condition of `status.conditions` with status "True". */
function conditionTrue(status: Record<string, unknown>, type: string): Record<string, unknown> | undefined {
  return conditionIs(status, type, 'True');
}

/** The key a Workload's owner and a pod (or its owner) share when the pod is of the Workload's job. */
export function ownerKey(namespace: string, kind: string, name: string): string {
  return `${namespace}\u0000${kind}\u0000${name}`;
}

function readWorkload(it: Item, opts: KubectlOptions, report: Report, skip: (name: string, reason: string) => void): ReadWorkload {
  const { sd, path, obj } = it;
  const meta = asObject(obj.metadata) ?? {};
  const rawName = typeof meta.name === 'string' ? meta.name : '';
  const rawNamespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const full = rawNamespace ? `${rawNamespace}/${rawName}` : rawName;
  const who = `Workload "${full}"`;
  const rewritten: string[] = [];
  const safe = safeNamer(sd, path, who, report, rewritten);
  const namespace = safe(rawNamespace, ['metadata', 'namespace'], 'namespace');
  const refs: unknown[] = Array.isArray(meta.ownerReferences) ? meta.ownerReferences : [];
  const owners = refs.flatMap((r) => {
    const o = asObject(r);
    if (!o || typeof o.kind !== 'string' || typeof o.name !== 'string') return [];
    return [ownerKey(namespace, importedName(o.kind).name, importedName(o.name).name)];
  });
  const status = asObject(obj.status) ?? {};
  const spec = asObject(obj.spec) ?? {};
  const out = (state: ReadWorkload['state']): ReadWorkload => ({ state, owners, full });
  if (conditionTrue(status, 'Finished')) return out('finished');
  if (conditionTrue(status, 'QuotaReserved') || conditionTrue(status, 'Admitted')) return out('admitted');
  // status.admission is set while quota is reserved (Kueue clears it on eviction): without conditions, it says admitted.
  if (asObject(status.admission) && !conditionIs(status, 'QuotaReserved', 'False')) return out('admitted');
  if (spec.active === false) return out('inactive');
  const skipped = (reason: string): ReadWorkload => {
    skip(full, reason);
    return out('skipped');
  };
  const queueName = spec.queueName;
  if (typeof queueName !== 'string' || queueName === '') return skipped('pending without spec.queueName: it is in no LocalQueue');
  const created = readCreated(sd, path, meta, who, 'the Workload is not queued', report);
  const submittedAt = created.at;
  if (submittedAt === undefined) return skipped(`pending, with ${created.missing} metadata.creationTimestamp: when it was submitted is not known`);
  const kubePriority = readKubePriority(sd, path, spec, who, 'Workload', report);
  if (kubePriority.bad !== undefined) return skipped(`spec.priority ${kubePriority.bad} is not a whole number`);
  const rawPriority = kubePriority.value;
  // podSets: each a pod template and a count; the GPU ones make the job, of one shape.
  const podSets: unknown[] = Array.isArray(spec.podSets) ? spec.podSets : [];
  if (podSets.length === 0) {
    report.warn(
      sd,
      [...path, 'spec', ...(Array.isArray(spec.podSets) ? ['podSets'] : [])],
      'interop/bad-workload',
      `${who} has no spec.podSets; it is not queued`,
      'a Workload has 1 to 8 podSets: take the snapshot again',
    );
    return skipped('no spec.podSets');
  }
  const read = readPodSetShapes(
    sd,
    podSets.map((raw, i) => {
      const ps = asObject(raw) ?? {};
      const at: PathSeg[] = [...path, 'spec', 'podSets', i];
      return {
        name: typeof ps.name === 'string' ? ps.name : 'main',
        count: ps.count,
        countAt: [...at, 'count'],
        countField: `podSets[${i}].count`,
        template: asObject(ps.template),
        templateAt: [...at, 'template'],
      };
    }),
    opts.gpuResource,
    { report, severity: 'warning', who, then: 'the Workload is not queued' },
  );
  if ('skip' in read) return skipped(read.skip);
  const { shapes, noGpu } = read;
  if (shapes.length === 0) return skipped(`no ${opts.gpuResource} in its podSets' containers`);
  const head = shapes[0]!;
  const other = otherShape(shapes);
  if (other) {
    // A Quotient job is pods of one shape (SEMANTICS 1); two jobs would be admitted apart, which a Workload never is.
    report.warn(
      sd,
      [...path, 'spec', 'podSets', other.index],
      'interop/workload-shapes',
      `${who}: podSet ${other.name} (per pod ${shapeText(other)}) differs from podSet ${head.name} (${shapeText(head)}); a Quotient job is pods of one shape, and splitting it would admit its parts apart, so the Workload is not queued`,
      "give its podSets one shape, or write the job into the snapshot's queue by hand",
    );
    return skipped('podSets of different shapes (a Quotient job is pods of one shape)');
  }
  // Workspace as a pod's: its sources read the labels the podSet's pods will carry (the template's).
  const headPs = asObject(podSets[head.index]) ?? {};
  const tmplMeta = asObject(asObject(headPs.template)?.metadata) ?? {};
  const tmplAt: PathSeg[] = [...path, 'spec', 'podSets', head.index, 'template'];
  const workspace = nameFrom(opts.workspaceFrom, stringMap(tmplMeta.labels), rawNamespace);
  if (!workspace) return skipped(`no workspace name from ${opts.workspaceFrom.join(', ')}`);
  const link = opts.localQueues ? clusterQueueOf(rawNamespace, queueName, opts, report, sd, [...path, 'spec', 'queueName'], who, 'spec.queueName') : undefined;
  const quota = link ? link.clusterQueue : safe(queueName, ['spec', 'queueName'], 'quota');
  const owner = ownerOf(meta, safe);
  // A Workload of Kueue's pod integration is owned by its pod, which (like a pod without an owner) says no module by its kind.
  const module = moduleOf(stringMap(tmplMeta.labels), [...tmplAt, 'metadata', 'labels'], owner?.kind === 'Pod' ? undefined : owner?.kind, opts, report, sd, who, "the podSets' templates");
  const priority = mapPriority(typeof rawPriority === 'number' ? rawPriority : 0, opts.priorityMap);
  const pods = shapes.reduce((s, p) => s + p.count, 0);
  const classRef = asObject(spec.priorityClassRef);
  const className = typeof spec.priorityClassName === 'string' ? spec.priorityClassName : typeof classRef?.name === 'string' ? classRef.name : undefined;
  const priorityNote =
    typeof rawPriority === 'number'
      ? `priority ${priority} from spec.priority ${rawPriority}${className ? ` (priority class ${className})` : ''}`
      : `priority ${priority}: no spec.priority (counted as 0)`;
  const evicted = conditionTrue(status, 'Evicted');
  const name = safe(rawName, ['metadata', 'name'], 'Workload name');
  return {
    state: 'queued',
    owners,
    full,
    job: {
      base: owner ? `${namespace}/${owner.name}` : namespace ? `${namespace}/${name}` : name,
      workspace: workspace.from === 'namespace' ? namespace : safe(workspace.name, [...tmplAt.slice(path.length), ...workspace.path], 'workspace'),
      quota,
      module: module.module,
      priority,
      pods,
      resources: { gpu: head.gpu, ...(head.cpu !== undefined ? { cpu: head.cpu } : {}), ...(head.memory !== undefined ? { memory: head.memory } : {}) },
      origin: where(sd, path),
      submittedAt,
      kueueWorkload: `${namespace}/${name}`,
      notes: [
        `waiting: Kueue Workload ${namespace}/${name}${owner ? ` of ${owner.kind} ${namespace}/${owner.name}` : ''}, not admitted${evicted ? ` (evicted before: ${typeof evicted.reason === 'string' ? evicted.reason : 'no reason'}; requeued)` : ''}; submitted at its metadata.creationTimestamp`,
        ...new Set(rewritten),
        `${pods} pod(s) from podSets ${shapes.map((s) => `${s.name} × ${s.count}`).join(', ')}${noGpu.length ? `; podSets without GPUs left out: ${noGpu.join(', ')}` : ''}`,
        `GPUs per pod ${head.gpu}; ${priorityNote}; quota "${quota}" from ${link ? link.detail : 'spec.queueName (a LocalQueue, taken as the quota without --kueue)'}; module ${module.module} from ${module.from}`,
      ],
    },
  };
}

/**
 * The Workloads among the List's items → their queued jobs (named as pods' jobs are:
 * `namespace/owner`, `#pending` when a running job has the name) and the counts; the
 * pending pods of a Workload's job are taken out of `pending` and listed as skipped.
 */
export function readWorkloads(
  items: Item[],
  pending: PodFacts[],
  taken: Set<string>,
  opts: KubectlOptions,
  report: Report,
  skip: (it: Item, kind: string, name: string, reason: string) => void,
): { queue: ImportedQueuedJob[]; pending: PodFacts[]; counts: WorkloadCounts } {
  const counts: WorkloadCounts = { read: items.length, queued: 0, admitted: 0, finished: 0, inactive: 0, skipped: 0, podsOfWorkloads: 0 };
  const queue: ImportedQueuedJob[] = [];
  const owned = new Map<string, ReadWorkload>();
  // Every Workload by namespace and name: the same Workload twice would be queued twice.
  const seen = new Map<string, string>();
  for (const it of items) {
    const meta = asObject(it.obj.metadata) ?? {};
    const id = `${typeof meta.namespace === 'string' ? meta.namespace : ''}/${typeof meta.name === 'string' ? meta.name : ''}`;
    const first = seen.get(id);
    if (first !== undefined) {
      report.error(
        it.sd,
        [...it.path, 'metadata', 'name'],
        'interop/duplicate-workload',
        `the Workload ${id} is in the input twice (the first at ${first})`,
        'a namespace has one Workload of each name: take the snapshot again (`kubectl get nodes,pods,workloads -A -o json`), or remove one of them',
      );
      counts.read--;
      continue;
    }
    seen.set(id, where(it.sd, it.path));
    const w = readWorkload(it, opts, report, (name, reason) => skip(it, 'Workload', name, reason));
    counts[w.state]++;
    for (const k of w.owners) owned.set(k, w);
    if (!w.job) continue;
    const { base, ...job } = w.job;
    let name = base;
    if (taken.has(name)) name = `${name}#pending`;
    for (let k = 2; taken.has(name); k++) name = `${base}#pending~${k}`;
    taken.add(name);
    queue.push({ name, ...job });
  }
  // A pending pod of a Workload's job (Kueue's pod integration owns the Workload by the pod; a Job's pods and its Workload share the owner).
  const left = pending.filter((p) => {
    const byOwner = (o: { kind: string; name: string } | undefined) => (o ? owned.get(ownerKey(p.namespace, o.kind, o.name)) : undefined);
    const w = owned.get(ownerKey(p.namespace, 'Pod', p.name.slice(p.namespace ? p.namespace.length + 1 : 0))) ?? byOwner(p.owner) ?? byOwner(p.directOwner);
    if (!w) return true;
    counts.podsOfWorkloads++;
    skip(
      { sd: p.sd, path: p.path, obj: {} },
      'Pod',
      p.name,
      w.state === 'queued'
        ? "pending pod of a queued Kueue Workload's job: the Workload is the queued job"
        : `pending pod of a Kueue Workload that is ${w.state}: not in a queue (a Workload is queued only while it holds no quota)`,
    );
    return false;
  });
  return { queue, pending: left, counts };
}
