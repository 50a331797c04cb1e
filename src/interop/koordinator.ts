/**
 * Koordinator's ElasticQuota ↔ a Quotient quota tree. The object is the scheduler-plugins
 * ElasticQuota (koordinator apis/thirdparty/scheduler-plugins/pkg/apis/scheduling/v1alpha1/types.go:
 * `spec.min`, `spec.max`; group scheduling.sigs.k8s.io), and the tree lives in labels
 * (apis/extension/elastic_quota.go): `quota.scheduling.koordinator.sh/parent` names the
 * parent (absent: the koordinator-root-quota, i.e. a root here) and `.../is-parent`
 * marks quotas that may have children.
 */
import type { PathSeg } from '../policy/parse/source-doc.js';
import { asObject, type ForeignObject, objectsOfKind, type Report, where } from './located-json.js';
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

export const ELASTIC_QUOTA_API = 'scheduling.sigs.k8s.io/v1alpha1';
const PREFIX = 'quota.scheduling.koordinator.sh';
export const LABEL_PARENT = `${PREFIX}/parent`;
export const LABEL_IS_PARENT = `${PREFIX}/is-parent`;
/** Koordinator's implicit root (elastic_quota.go `RootQuotaName`): a quota under it is a root here. */
export const ROOT_QUOTA = 'koordinator-root-quota';

type Located = LocatedQuota;

/** ElasticQuota objects → quotas (unordered). */
export function importKoordinator(objects: ForeignObject[], names: ResourceNames, report: Report): Located[] {
  const quotas: Located[] = [];
  const isParent = new Map<string, ForeignObject>();
  for (const o of objectsOfKind(objects, 'ElasticQuota', ELASTIC_QUOTA_API, 'Koordinator', report)) {
    if (o.name === ROOT_QUOTA || o.name === 'koordinator-system-quota' || o.name === 'koordinator-default-quota') {
      report.warn(o.sd, o.path, 'interop/skipped-object', `${o.name} is one of Koordinator's built-in quotas; it is not part of your tree`, 'quotas under koordinator-root-quota become roots');
      continue;
    }
    const spec = asObject(o.obj.spec) ?? {};
    const sp: PathSeg[] = [...o.path, 'spec'];
    const name = o.annotations[NAME_ANNOTATION] ?? o.name;
    const q: Located = { name, parent: null, min: { gpu: 0 }, origin: where(o.sd, o.path), sd: o.sd, path: o.path, objectName: o.name };
    addResourceList(o.sd, [...sp, 'min'], spec.min, q.min, names, report, `ElasticQuota ${o.name}`);
    // spec.max bounds what the quota (its subtree) uses: Quotient's ceiling (SEMANTICS 3).
    const max = readCeiling(q, [...sp, 'max'], spec.max, names, report, `ElasticQuota ${o.name}: spec.max`);
    if (max) {
      q.max = max;
      (q.notes ??= []).push('max: spec.max (idle and spot jobs do not count against it in Quotient)');
    }
    for (const key of Object.keys(spec)) {
      if (key === 'min' || key === 'max') continue;
      report.warn(o.sd, [...sp, key], 'interop/no-counterpart', `ElasticQuota ${o.name}: spec.${key} has no counterpart in Quotient; it is not imported`, 'it does not change what Quotient answers');
    }
    const parent = o.labels[LABEL_PARENT];
    if (parent !== undefined && parent !== '' && parent !== ROOT_QUOTA) Object.assign(q, { parent, parentPath: [...o.path, 'metadata', 'labels', LABEL_PARENT] });
    if (o.labels[LABEL_IS_PARENT] === 'true') isParent.set(name, o);
    for (const field of ['labels', 'annotations'] as const) {
      for (const [k, value] of Object.entries(o[field])) {
        if (!k.startsWith(`${PREFIX}/`) || k === LABEL_PARENT || k === LABEL_IS_PARENT) continue;
        report.warn(
          o.sd,
          [...o.path, 'metadata', field, k],
          'interop/no-counterpart',
          `ElasticQuota ${o.name}: ${field === 'labels' ? 'label' : 'annotation'} ${k}=${value} has no counterpart in Quotient; it is not imported`,
          k.endsWith('/shared-weight')
            ? 'Quotient has no sharing weights'
            : k.endsWith('/allow-lent-resource')
              ? 'a Quotient quota always lends its unused guarantee (and takes it back by its reclaim mode)'
              : 'it does not change what Quotient answers',
        );
      }
    }
    quotas.push(q);
  }
  resolveParentObjects(quotas);
  dropVacuousCeilings(quotas, report);
  for (const q of quotas) {
    if (q.parent !== null && !isParent.has(q.parent) && quotas.some((p) => p.name === q.parent)) {
      report.warn(
        q.sd,
        [...q.path, 'metadata', 'labels', LABEL_PARENT],
        'interop/parent-not-marked',
        `ElasticQuota ${q.name} names parent ${q.parent}, which is not labelled ${LABEL_IS_PARENT}: "true"`,
        'Koordinator expects a parent quota to be marked is-parent',
      );
    }
  }
  return quotas;
}

/** Options of a Koordinator export. */
export interface KoordinatorExportOptions {
  names: ResourceNames;
  namespace: string;
}

/** A quota tree as ElasticQuotas with parent and is-parent labels. */
export function exportKoordinator(quotas: TreeQuota[], o: KoordinatorExportOptions): { objects: unknown[]; rows: MappingRow[] } {
  const rows: MappingRow[] = [];
  const kube = kubeNames(quotas);
  const objects = quotas.map((q) => {
    const kids = quotas.filter((k) => k.parent === q.name);
    const labels: Record<string, string> = { [LABEL_IS_PARENT]: kids.length ? 'true' : 'false', ...(q.parent !== null ? { [LABEL_PARENT]: kube.get(q.parent)! } : {}) };
    // A resource without a ceiling is bounded by the tree's root guarantee, which no quota can exceed anyway.
    let root = q;
    while (root.parent !== null) root = quotas.find((p) => p.name === root.parent)!;
    rows.push({
      quota: q.name,
      field: 'name',
      target: 'metadata.name',
      fate: kube.get(q.name) === q.name ? 'one-to-one' : 'approximated',
      note: kube.get(q.name) === q.name ? '' : `lower-cased; the exact name is kept in annotation ${NAME_ANNOTATION}`,
    });
    if (q.parent !== null) rows.push({ quota: q.name, field: 'parent', target: `label ${LABEL_PARENT}`, fate: 'one-to-one', note: kids.length ? `and ${LABEL_IS_PARENT}: "true"` : '' });
    rows.push({ quota: q.name, field: 'min', target: 'spec.min', fate: 'one-to-one', note: '' });
    if (q.max && !ceilingCarried(q, quotas))
      rows.push({ quota: q.name, field: 'max', target: 'spec.max', fate: 'approximated', note: "at or above the root's guarantee it bounds nothing: written as it is, and an import drops it" });
    else if (q.max) rows.push({ quota: q.name, field: 'max', target: 'spec.max', fate: 'one-to-one', note: openCeiling(q, root) });
    else rows.push({ quota: q.name, field: '(no field)', target: 'spec.max', fate: 'approximated', note: `no ceiling: max is the root's guarantee (${root.min.gpu} GPUs)` });
    if (q.reclaim && q.reclaim !== 'any') rows.push({ quota: q.name, field: 'reclaim', target: '—', fate: 'lost', note: 'ElasticQuota has no reclaim mode' });
    if (q.queueStrategy && q.queueStrategy !== 'fifo') rows.push({ quota: q.name, field: 'queueStrategy', target: '—', fate: 'lost', note: 'ElasticQuota has no queue strategy' });
    if (q.selfPreemption)
      rows.push({ quota: q.name, field: 'selfPreemption', target: '—', fate: 'lost', note: 'Koordinator marks pods preemptible (label quota.scheduling.koordinator.sh/preemptible), not quotas' });
    if (q.childPreemption) rows.push({ quota: q.name, field: 'childPreemption', target: '—', fate: 'lost', note: 'ElasticQuota has no preemption settings' });
    return {
      apiVersion: ELASTIC_QUOTA_API,
      kind: 'ElasticQuota',
      metadata: { name: kube.get(q.name)!, namespace: o.namespace, labels, annotations: { [NAME_ANNOTATION]: q.name } },
      spec: { min: resourceList(q.min, o.names), max: { ...resourceList(root.min, o.names), ...(q.max ? ceilingList(q.max, o.names) : {}) } },
    };
  });
  return { objects, rows };
}

/** What an exported spec.max fills in from the root's guarantee: the resources the quota's max leaves open. */
function openCeiling(q: TreeQuota, root: TreeQuota): string {
  const open = (['gpu', 'cpu', 'memory'] as const).filter((r) => q.max?.[r] === undefined && root.min[r] !== undefined);
  return open.length ? `${open.join(', ')} without a ceiling: the root's guarantee, which bounds nothing` : '';
}
