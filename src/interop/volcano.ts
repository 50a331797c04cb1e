/**
 * Volcano's Queue ↔ a Quotient quota tree. Field names from volcano-sh/apis
 * pkg/apis/scheduling/v1beta1/types.go `QueueSpec`: `parent`, `deserved` ("can be shared
 * with other queues and reclaimed back" — Quotient's `min`), `guarantee.resource`
 * (reserved for the queue), `capability` (a cap: Quotient's `max`), `reclaimable`, `weight`, `priority`,
 * `dequeueStrategy` (fifo or traverse), `type`, `affinity`, `extendClusters`.
 * Volcano's hierarchy hangs under a queue named `root`; a queue whose parent is `root`
 * (or absent) is a root here unless the input declares a `root` Queue itself.
 */
import type { PathSeg } from '../policy/parse/source-doc.js';
import { asObject, type ForeignObject, objectsOfKind, type Report, shown, where } from './located-json.js';
import {
  addResourceList,
  ceilingCarried,
  ceilingList,
  dropVacuousCeilings,
  kubeNames,
  NAME_ANNOTATION,
  readCeiling,
  resolveParentObjects,
  resourceList,
  type LocatedQuota,
  type MappingRow,
  type ResourceNames,
  type TreeQuota,
} from './tree-quota.js';

export const VOLCANO_API = 'scheduling.volcano.sh/v1beta1';
export const VOLCANO_ROOT = 'root';

type Located = LocatedQuota;

const HINTS: Record<string, string> = {
  guarantee: "Quotient's min is a guarantee other quotas may borrow while unused (Volcano's deserved); a reservation nobody may borrow has no counterpart",
  reclaimable: 'a Quotient quota that borrowed can always be reclaimed by the lender (SEMANTICS 5.2)',
  weight: 'Quotient has no sharing weights',
  priority: 'Quotient orders jobs by their own priority, not by queue',
};

/** Queue objects → quotas (unordered). */
export function importVolcano(objects: ForeignObject[], names: ResourceNames, report: Report): Located[] {
  const quotas: Located[] = [];
  const hasRoot = objects.some((o) => o.kind === 'Queue' && o.name === VOLCANO_ROOT);
  for (const o of objectsOfKind(objects, 'Queue', VOLCANO_API, 'Volcano', report)) {
    const spec = asObject(o.obj.spec) ?? {};
    const sp: PathSeg[] = [...o.path, 'spec'];
    const name = o.annotations[NAME_ANNOTATION] ?? o.name;
    const q: Located = { name, parent: null, min: { gpu: 0 }, origin: where(o.sd, o.path), sd: o.sd, path: o.path, objectName: o.name };
    addResourceList(o.sd, [...sp, 'deserved'], spec.deserved, q.min, names, report, `Queue ${o.name}`);
    const parent = spec.parent;
    if (parent !== undefined && typeof parent !== 'string') report.error(o.sd, [...sp, 'parent'], 'interop/invalid-field', `Queue ${o.name}: spec.parent must be a queue name`, 'e.g. root');
    else if (typeof parent === 'string' && parent !== '' && (parent !== VOLCANO_ROOT || hasRoot)) Object.assign(q, { parent, parentPath: [...sp, 'parent'] });
    if (spec.dequeueStrategy === 'fifo') q.queueStrategy = 'fifo';
    // capability caps what the queue (its subtree) uses: Quotient's ceiling (SEMANTICS 3).
    const max = readCeiling(q, [...sp, 'capability'], spec.capability, names, report, `Queue ${o.name}: spec.capability`);
    if (max) {
      q.max = max;
      (q.notes ??= []).push('max: spec.capability (idle and spot jobs do not count against it in Quotient)');
    }
    for (const [key, value] of Object.entries(spec)) {
      if (key === 'deserved' || key === 'parent' || key === 'capability' || (key === 'dequeueStrategy' && value === 'fifo')) continue;
      if (key === 'reclaimable' && value === true) continue;
      report.warn(
        o.sd,
        [...sp, key],
        'interop/no-counterpart',
        `Queue ${o.name}: spec.${key} ${shown(o.sd, [...sp, key], value)} has no counterpart in Quotient; it is not imported`,
        HINTS[key] ??
          (key === 'dequeueStrategy'
            ? "the quota is fifo (its head blocks); traverse skips a job that cannot start, as Quotient's queueStrategy: round-robin does: set it in the imported tree"
            : 'it does not change what Quotient answers'),
      );
    }
    quotas.push(q);
  }
  resolveParentObjects(quotas);
  dropVacuousCeilings(quotas, report);
  return quotas;
}

/** A quota tree as Queues: roots under Volcano's `root`, `min` as `deserved`. */
export function exportVolcano(quotas: TreeQuota[], names: ResourceNames): { objects: unknown[]; rows: MappingRow[] } {
  const rows: MappingRow[] = [];
  const kube = kubeNames(quotas);
  const objects = quotas.map((q) => {
    rows.push({
      quota: q.name,
      field: 'name',
      target: 'metadata.name',
      fate: kube.get(q.name) === q.name ? 'one-to-one' : 'approximated',
      note: kube.get(q.name) === q.name ? '' : `lower-cased; the exact name is kept in annotation ${NAME_ANNOTATION}`,
    });
    rows.push({ quota: q.name, field: 'parent', target: 'spec.parent', fate: 'one-to-one', note: q.parent === null ? "a root hangs under Volcano's root queue" : '' });
    rows.push({ quota: q.name, field: 'min', target: 'spec.deserved', fate: 'one-to-one', note: "shared while unused and reclaimed back, as PAI's min" });
    if (q.max)
      rows.push({
        quota: q.name,
        field: 'max',
        target: 'spec.capability',
        ...(ceilingCarried(q, quotas)
          ? { fate: 'one-to-one', note: '' }
          : { fate: 'approximated', note: "at or above the root's guarantee it bounds nothing: written as it is, and an import drops it" }),
      });
    if (q.queueStrategy)
      rows.push({
        quota: q.name,
        field: 'queueStrategy',
        target: q.queueStrategy === 'fifo' ? 'spec.dequeueStrategy: fifo' : '—',
        fate: q.queueStrategy === 'fifo' ? 'one-to-one' : 'lost',
        note: q.queueStrategy === 'fifo' ? '' : `${q.queueStrategy} has no Volcano counterpart (fifo, traverse)`,
      });
    if (q.reclaim && q.reclaim !== 'any') rows.push({ quota: q.name, field: 'reclaim', target: '—', fate: 'lost', note: 'Volcano reclaims deserved resources from any borrower' });
    if (q.selfPreemption) rows.push({ quota: q.name, field: 'selfPreemption', target: '—', fate: 'lost', note: 'Volcano preempts by job priority class inside a queue, without ranges or modules' });
    if (q.childPreemption) rows.push({ quota: q.name, field: 'childPreemption', target: '—', fate: 'lost', note: 'a Volcano queue has no preemption settings over its children' });
    return {
      apiVersion: VOLCANO_API,
      kind: 'Queue',
      metadata: { name: kube.get(q.name)!, annotations: { [NAME_ANNOTATION]: q.name } },
      spec: {
        parent: q.parent === null ? VOLCANO_ROOT : kube.get(q.parent)!,
        deserved: resourceList(q.min, names),
        reclaimable: true,
        ...(q.max ? { capability: ceilingList(q.max, names) } : {}),
        ...(q.queueStrategy === 'fifo' ? { dequeueStrategy: 'fifo' } : {}),
      },
    };
  });
  return { objects, rows };
}
