/**
 * Kueue's ClusterQueue, Cohort and WorkloadPriorityClass ↔ a Quotient quota tree.
 * Field names from kubernetes-sigs/kueue apis/kueue/v1beta1 and v1beta2
 * (clusterqueue_types.go, cohort_types.go, workloadpriorityclass_types.go,
 * fairsharing_types.go): v1beta1 writes a ClusterQueue's cohort as `spec.cohort` and a
 * Cohort's parent as `spec.parent`; v1beta2 as `spec.cohortName` and `spec.parentName`.
 *
 * The shapes: Cohorts are the inner quotas, ClusterQueues the leaves. A quota's `min` is
 * the sum of its `nominalQuota`s over every flavor; a Cohort's is its own nominalQuota
 * plus its children's (v1beta2 documents a Cohort's nominalQuota as "additional
 * resources on top of those defined by ClusterQueues within the Cohort").
 */
import type { ReclaimMode } from '../model/policy.js';
import type { PathSeg } from '../policy/parse/source-doc.js';
import { borrowingLimits, type CeilingParts } from './kueue-ceiling.js';
import { flavorModels, type FlavorModels } from './kueue-flavors.js';
import { readPreemption } from './kueue-preemption.js';
import { asObject, type ForeignObject, type Report, where } from './located-json.js';
import { addChildrenMins, addResource, kubeNames, NAME_ANNOTATION, resolveParentObjects, resourceList, type LocatedQuota, type MappingRow, type ResourceNames, type TreeQuota } from './tree-quota.js';

export const KUEUE_GROUP = 'kueue.x-k8s.io';
export type KueueVersion = 'v1beta1' | 'v1beta2';

const RECLAIM_BACK: Record<ReclaimMode, string> = { never: 'Never', 'lower-priority': 'LowerPriority', any: 'Any' };

/** ClusterQueue spec fields read (either version); every other spec field is reported. */
const CQ_READ = ['resourceGroups', 'cohort', 'cohortName', 'queueingStrategy', 'preemption'];
const COHORT_READ = ['resourceGroups', 'parent', 'parentName'];

type Located = LocatedQuota;

/** Kueue objects → quotas (unordered; orderTree checks and orders them). */
export function importKueue(objects: ForeignObject[], names: ResourceNames, report: Report): Located[] {
  const quotas: Located[] = [];
  const cohorts = new Map<string, Located>();
  const members = new Map<string, string[]>();
  const kueue = objects.filter((o) => o.apiVersion.startsWith(`${KUEUE_GROUP}/`));
  const models = flavorModels(kueue);
  const ceilings = new Map<Located, CeilingParts>();
  for (const o of objects) {
    if (!o.apiVersion.startsWith(`${KUEUE_GROUP}/`))
      report.warn(
        o.sd,
        [...o.path, 'apiVersion'],
        'interop/skipped-object',
        `${o.kind} ${o.name} (${o.apiVersion || 'no apiVersion'}) is not a Kueue object; it is skipped`,
        `kueue objects have apiVersion ${KUEUE_GROUP}/v1beta1 or v1beta2`,
      );
  }
  for (const o of kueue) {
    const version = o.apiVersion.slice(KUEUE_GROUP.length + 1);
    if (version !== 'v1beta1' && version !== 'v1beta2')
      report.warn(
        o.sd,
        [...o.path, 'apiVersion'],
        'interop/kueue-version',
        `${o.apiVersion} is read with v1beta2's field names (and v1beta1's where they differ)`,
        'Quotient reads v1beta1 and v1beta2',
      );
    const spec = asObject(o.obj.spec) ?? {};
    const sp: PathSeg[] = [...o.path, 'spec'];
    const name = o.annotations[NAME_ANNOTATION] ?? o.name;
    const origin = where(o.sd, o.path);
    if (o.kind === 'ClusterQueue' || o.kind === 'Cohort') {
      const q: Located = { name, parent: null, min: { gpu: 0 }, origin, sd: o.sd, path: o.path, objectName: o.name };
      ceilings.set(q, readResourceGroups(o, spec, sp, q, names, report, o.kind, models));
      const parentField = o.kind === 'ClusterQueue' ? (version === 'v1beta1' ? 'cohort' : 'cohortName') : version === 'v1beta1' ? 'parent' : 'parentName';
      const otherField = o.kind === 'ClusterQueue' ? (version === 'v1beta1' ? 'cohortName' : 'cohort') : version === 'v1beta1' ? 'parentName' : 'parent';
      if (spec[otherField] !== undefined)
        report.error(
          o.sd,
          [...sp, otherField],
          'interop/kueue-field-version',
          `${o.kind} ${o.name}: spec.${otherField} is not a field of ${o.apiVersion} (it is spec.${parentField})`,
          `write spec.${parentField}, or change apiVersion`,
        );
      const parent = spec[parentField];
      if (parent !== undefined && (typeof parent !== 'string' || parent === ''))
        report.error(o.sd, [...sp, parentField], 'interop/invalid-field', `spec.${parentField} must be a name`, 'a Cohort name');
      else if (typeof parent === 'string') Object.assign(q, { parent, parentPath: [...sp, parentField] });
      for (const key of Object.keys(spec)) {
        if ((o.kind === 'ClusterQueue' ? CQ_READ : COHORT_READ).includes(key)) continue;
        // `{}` admits every namespace: the LocalQueues' Workspaces say which ones submit (kueue-local-queues.ts).
        if (key === 'namespaceSelector' && isEmptySelector(spec[key])) continue;
        report.warn(o.sd, [...sp, key], 'interop/no-counterpart', `${o.kind} ${o.name}: spec.${key} has no counterpart in Quotient; it is not imported`, noCounterpartHint(key));
      }
      if (o.kind === 'ClusterQueue') {
        readStrategy(o, spec, sp, q, report);
        readPreemption(o, spec, sp, q, report);
      }
      if (o.kind === 'Cohort') cohorts.set(name, q);
      quotas.push(q);
    } else if (o.kind === 'WorkloadPriorityClass') {
      report.warn(
        o.sd,
        o.path,
        'interop/no-counterpart',
        `WorkloadPriorityClass ${o.name} (value ${JSON.stringify(o.obj.value)}) has no counterpart in a QuotaTree: Quotient's priorities are 1..9 on each job`,
        'map class values onto 1..9 when you write jobs (quotient import kubectl --priority-map does it for pods)',
      );
    } else if (o.kind !== 'LocalQueue' && o.kind !== 'ResourceFlavor') {
      // LocalQueues become Workspaces (kueue-local-queues.ts), ResourceFlavors the GPU models of quotas' notes (kueue-flavors.ts).
      report.warn(
        o.sd,
        [...o.path, 'kind'],
        'interop/skipped-object',
        `${o.kind} ${o.name} is not read (ClusterQueue, Cohort, LocalQueue, ResourceFlavor and WorkloadPriorityClass are)`,
        'Workloads are not read: pending pods that name a queue become the snapshot queue (quotient import kubectl)',
      );
    }
  }
  resolveParentObjects(quotas);
  for (const q of quotas) {
    if (q.parent === null) continue;
    if (!cohorts.has(q.name)) members.set(q.parent, [...(members.get(q.parent) ?? []), q.name]);
  }
  // A cohort named by ClusterQueues but not declared is implicit in Kueue ("a name that
  // links CQs together"): a quota guaranteeing exactly its members' sum.
  for (const [cohort, kids] of members) {
    if (cohorts.has(cohort)) continue;
    const first = quotas.find((q) => q.name === kids[0])!;
    quotas.push({ name: cohort, parent: null, min: { gpu: 0 }, origin: `implicit cohort named at ${first.origin}`, sd: first.sd, path: first.path });
    cohorts.set(cohort, quotas[quotas.length - 1]!);
  }
  // A Cohort's min is its own nominalQuota plus its children's (bottom-up, iteratively: a chain of Cohorts may be thousands long).
  addChildrenMins(quotas, (q) => cohorts.has(q.name), report);
  // borrowingLimit → max: the (total) nominal quota plus the limit, per resource every flavor limits.
  for (const [q, parts] of ceilings) {
    const max = borrowingLimits(q, parts, report);
    if (max) q.max = max;
  }
  // SEMANTICS 5.2: in a cohort any workload borrows unused nominal quota.
  for (const q of quotas) {
    if (q.parent === null || cohorts.has(q.name)) continue;
    q.borrowing = { priority: '1-9' };
    (q.notes ??= []).push(`borrowing.priority 1-9: in Kueue any workload of a ClusterQueue in a cohort borrows the cohort's unused nominal quota (cohort ${q.parent})`);
  }
  return quotas;
}

/**
 * `queueingStrategy`: StrictFIFO → fifo; BestEffortFIFO (Kueue's default when the field
 * is absent) → round-robin: a workload that cannot be admitted does not block the ones
 * behind it, which is PAI's round-robin, as the quota's note says.
 */
function readStrategy(o: ForeignObject, spec: Record<string, unknown>, sp: PathSeg[], q: Located, report: Report): void {
  const strategy = spec.queueingStrategy;
  if (strategy === 'StrictFIFO') q.queueStrategy = 'fifo';
  else if (strategy === 'BestEffortFIFO' || strategy === undefined) {
    q.queueStrategy = 'round-robin';
    (q.notes ??= []).push(
      `queueStrategy round-robin: ${strategy === undefined ? "no queueingStrategy, Kueue's default BestEffortFIFO" : 'queueingStrategy BestEffortFIFO'} lets workloads pass one that cannot be admitted`,
    );
  } else
    report.warn(
      o.sd,
      [...sp, 'queueingStrategy'],
      'interop/no-counterpart',
      `ClusterQueue ${o.name}: queueingStrategy ${JSON.stringify(strategy)} is not StrictFIFO or BestEffortFIFO; Quotient's default (fifo) applies`,
      'StrictFIFO maps to fifo, BestEffortFIFO to round-robin',
    );
}

function readResourceGroups(o: ForeignObject, spec: Record<string, unknown>, sp: PathSeg[], q: Located, names: ResourceNames, report: Report, what: string, models: FlavorModels): CeilingParts {
  const parts: CeilingParts = { limit: { gpu: 0 }, limited: new Set(), unlimited: [] };
  const given = spec.resourceGroups;
  if (given === undefined) return parts;
  if (!Array.isArray(given)) {
    report.error(o.sd, [...sp, 'resourceGroups'], 'interop/invalid-field', `${what} ${o.name}: spec.resourceGroups must be a list`, 'a list of { coveredResources, flavors }');
    return parts;
  }
  const flavorsSeen: string[] = [];
  given.forEach((g, gi) => {
    const gp: PathSeg[] = [...sp, 'resourceGroups', gi];
    const flavors = asObject(g)?.flavors;
    if (!Array.isArray(flavors)) {
      report.error(o.sd, gp, 'interop/invalid-field', `${what} ${o.name}: resourceGroups[${gi}].flavors must be a list`, 'each resource group lists its flavors');
      return;
    }
    flavors.forEach((f, fi) => {
      const fp: PathSeg[] = [...gp, 'flavors', fi];
      const flavor = asObject(f) ?? {};
      flavorsSeen.push(typeof flavor.name === 'string' ? flavor.name : `#${fi}`);
      const resources = Array.isArray(flavor.resources) ? flavor.resources : [];
      resources.forEach((r, ri) => {
        const rp: PathSeg[] = [...fp, 'resources', ri];
        const res = asObject(r) ?? {};
        if (typeof res.name !== 'string') {
          report.error(o.sd, rp, 'interop/invalid-field', 'a resource quota needs a name', 'e.g. nvidia.com/gpu');
          return;
        }
        if (res.nominalQuota !== undefined) addResource(o.sd, [...rp, 'nominalQuota'], res.name, res.nominalQuota, q.min, names, report, `${what} ${o.name}`);
        const resource = res.name === names.gpu ? 'gpu' : res.name === 'cpu' || res.name === 'memory' ? res.name : undefined;
        if (resource !== undefined) {
          if (res.borrowingLimit !== undefined) {
            addResource(o.sd, [...rp, 'borrowingLimit'], res.name, res.borrowingLimit, parts.limit, names, report, `${what} ${o.name}`);
            parts.limited.add(resource);
          } else parts.unlimited.push({ resource, flavor: typeof flavor.name === 'string' ? flavor.name : `#${fi}`, path: rp });
        }
        if (res.lendingLimit !== undefined)
          report.warn(
            o.sd,
            [...rp, 'lendingLimit'],
            'interop/no-counterpart',
            `${what} ${o.name}: lendingLimit of ${res.name} has no counterpart in Quotient (a quota lends all of its unused guarantee); it is not imported`,
            'the answers assume the whole guarantee may be lent',
          );
      });
    });
  });
  const named = flavorsSeen.map((f) => (models.get(f) ? `${f} (${models.get(f)!.model})` : f));
  for (const f of flavorsSeen) {
    const m = models.get(f);
    if (m) (q.notes ??= []).push(`flavor ${f}: GPU model ${m.model} (ResourceFlavor nodeLabels ${m.label}, ${m.origin})`);
  }
  if (flavorsSeen.length > 1)
    report.warn(
      o.sd,
      [...sp, 'resourceGroups'],
      'interop/flavors-merged',
      `${what} ${o.name}: flavors ${named.join(', ')} are summed into one guarantee (Quotient's quota has one pool; a job asks for models with gpuModels)`,
      'give each flavor its own pool and QuotaTree if they must stay apart',
    );
  return parts;
}

function isEmptySelector(v: unknown): boolean {
  const o = asObject(v);
  return o !== undefined && Object.keys(o).length === 0;
}

function noCounterpartHint(key: string): string {
  if (key === 'fairSharing') return 'Quotient has no fair-sharing weights: borrowing follows SEMANTICS 5.2';
  if (key === 'flavorFungibility') return 'flavors are merged into one guarantee';
  if (key === 'namespaceSelector') return 'who may use a quota is a Workspace document in Quotient';
  return 'it does not change what Quotient answers';
}

/** Options of a Kueue export. */
export interface KueueExportOptions {
  version: KueueVersion;
  names: ResourceNames;
  /** The ResourceFlavor every quota's resources are given in. */
  flavor: string;
}

/** A quota tree as Cohorts (quotas with children) and ClusterQueues (leaves), plus priority classes 1..9. */
export function exportKueue(quotas: TreeQuota[], o: KueueExportOptions): { objects: unknown[]; rows: MappingRow[] } {
  const rows: MappingRow[] = [];
  const kube = kubeNames(quotas);
  const apiVersion = `${KUEUE_GROUP}/${o.version}`;
  // The flavor every ClusterQueue names: without the ResourceFlavor object, Kueue keeps them inactive.
  const objects: unknown[] = [{ apiVersion, kind: 'ResourceFlavor', metadata: { name: o.flavor } }];
  rows.push({
    quota: '(all)',
    field: '(one pool)',
    target: `ResourceFlavor ${o.flavor}`,
    fate: 'one-to-one',
    note: 'an empty flavor (no nodeLabels): every node of the pool; give it nodeLabels to narrow it',
  });
  const row = (quota: string, field: string, target: string, fate: MappingRow['fate'], note = ''): void => {
    rows.push({ quota, field, target, fate, note });
  };
  for (const q of quotas) {
    const kids = quotas.filter((k) => k.parent === q.name);
    const meta = { name: kube.get(q.name)!, annotations: { [NAME_ANNOTATION]: q.name } };
    row(
      q.name,
      'name',
      'metadata.name',
      kube.get(q.name) === q.name ? 'one-to-one' : 'approximated',
      kube.get(q.name) === q.name ? '' : `Kubernetes names are lower case; the exact name is kept in annotation ${NAME_ANNOTATION}`,
    );
    const parentField = o.version === 'v1beta1' ? (kids.length ? 'parent' : 'cohort') : kids.length ? 'parentName' : 'cohortName';
    const parent = q.parent === null ? {} : { [parentField]: kube.get(q.parent)! };
    if (q.parent !== null) row(q.name, 'parent', `spec.${parentField}`, 'one-to-one');
    if (kids.length) {
      // The Cohort's own nominalQuota is what it guarantees beyond its children.
      const own = { gpu: q.min.gpu - kids.reduce((s, k) => s + k.min.gpu, 0) } as TreeQuota['min'];
      for (const r of ['cpu', 'memory'] as const) if (q.min[r] !== undefined) own[r] = Math.max(0, q.min[r] - kids.reduce((s, k) => s + (k.min[r] ?? 0), 0));
      const limit = borrowingLimit(q);
      objects.push({ apiVersion, kind: 'Cohort', metadata: meta, spec: { ...parent, ...(hasAny(own) || limit ? { resourceGroups: groups(own, o, limit) } : {}) } });
      row(
        q.name,
        'min',
        'spec.resourceGroups[].flavors[].resources[].nominalQuota',
        'approximated',
        `a Cohort's nominalQuota is what it adds to its ClusterQueues': ${q.min.gpu} − ${q.min.gpu - own.gpu} = ${own.gpu} GPUs`,
      );
      if (q.reclaim && q.reclaim !== 'any') row(q.name, 'reclaim', '—', 'lost', 'a Cohort has no preemption settings; reclaimWithinCohort belongs to ClusterQueues');
      if (q.queueStrategy && q.queueStrategy !== 'fifo') row(q.name, 'queueStrategy', '—', 'lost', 'a Cohort queues nothing itself');
      if (q.selfPreemption) row(q.name, 'selfPreemption', '—', 'lost', 'Kueue admits only through ClusterQueues; a Cohort has no own workloads');
      row(q.name, 'jobs on the quota itself', '—', 'lost', 'Kueue admits workloads only through ClusterQueues (leaves): jobs submitted to a quota with children have no queue');
    } else {
      const preemption: Record<string, unknown> = {};
      // Written in a cohort even at Quotient's default (any): Kueue's default is Never.
      if (q.reclaim || q.parent !== null) {
        const reclaim = q.reclaim ?? 'any';
        preemption.reclaimWithinCohort = RECLAIM_BACK[reclaim];
        row(q.name, 'reclaim', 'spec.preemption.reclaimWithinCohort', 'one-to-one', `${q.reclaim ?? 'any (the default)'} → ${RECLAIM_BACK[reclaim]}`);
      }
      if (q.selfPreemption) {
        preemption.withinClusterQueue = 'LowerPriority';
        row(
          q.name,
          'selfPreemption',
          'spec.preemption.withinClusterQueue: LowerPriority',
          'approximated',
          `Kueue lets any workload preempt lower-priority ones of its ClusterQueue; Quotient's ${q.selfPreemption.highPriority} over ${q.selfPreemption.lowPriority} for ${q.selfPreemption.modules.join(', ')} is narrower`,
        );
      }
      // Quotient's default is fifo; Kueue's BestEffortFIFO is round-robin (kueue.ts readStrategy).
      const strategy = (q.queueStrategy ?? 'fifo') === 'fifo' ? 'StrictFIFO' : q.queueStrategy === 'round-robin' ? 'BestEffortFIFO' : undefined;
      row(
        q.name,
        'queueStrategy',
        strategy ? `spec.queueingStrategy: ${strategy}` : '—',
        strategy ? 'one-to-one' : 'lost',
        strategy ? `${q.queueStrategy ?? 'fifo (the default)'} → ${strategy}` : `${q.queueStrategy} has no Kueue counterpart (StrictFIFO, BestEffortFIFO); Kueue's default BestEffortFIFO applies`,
      );
      if (q.parent !== null)
        row(
          q.name,
          'borrowing',
          '(cohort membership)',
          q.borrowing?.priority === '1-9' ? 'one-to-one' : 'approximated',
          q.borrowing?.priority === '1-9'
            ? 'in a cohort any workload borrows'
            : `in a cohort any workload borrows; Quotient lets ${q.borrowing ? `priorities ${q.borrowing.priority}` : q.selfPreemption ? `priorities ${q.selfPreemption.highPriority}` : 'no job'} borrow`,
        );
      const limit = borrowingLimit(q);
      objects.push({
        apiVersion,
        kind: 'ClusterQueue',
        metadata: meta,
        spec: { ...parent, namespaceSelector: {}, queueingStrategy: strategy ?? 'BestEffortFIFO', resourceGroups: groups(q.min, o, limit), ...(Object.keys(preemption).length ? { preemption } : {}) },
      });
      row(q.name, 'min', 'spec.resourceGroups[0].flavors[0].resources[].nominalQuota', 'one-to-one', `in flavor ${o.flavor}`);
    }
    if (q.max)
      row(
        q.name,
        'max',
        'spec.resourceGroups[0].flavors[0].resources[].borrowingLimit',
        q.parent === null ? 'lost' : 'one-to-one',
        q.parent === null ? 'a root borrows from nobody: Kueue allows borrowingLimit only in a cohort' : 'max − min, per resource max names',
      );
    if (q.childPreemption) row(q.name, 'childPreemption', '—', 'lost', "Kueue has no preemption of a subtree's workloads by a parent");
  }
  for (let p = 1; p <= 9; p++) objects.push({ apiVersion, kind: 'WorkloadPriorityClass', metadata: { name: `quotient-priority-${p}` }, value: p, description: `Quotient/PAI priority ${p}` });
  row('(all)', 'job priority 1..9', 'WorkloadPriorityClass quotient-priority-1..9 (value 1..9)', 'one-to-one', 'label jobs kueue.x-k8s.io/priority-class');
  return { objects, rows };
}

function hasAny(min: TreeQuota['min']): boolean {
  return min.gpu > 0 || (min.cpu ?? 0) > 0 || (min.memory ?? 0) > 0;
}

/** A quota's `max − min` per resource its `max` names (SEMANTICS 3 → Kueue's borrowingLimit); none on a root. */
function borrowingLimit(q: TreeQuota): Partial<TreeQuota['min']> | undefined {
  if (!q.max || q.parent === null) return undefined;
  const out: Partial<TreeQuota['min']> = {};
  for (const r of ['gpu', 'cpu', 'memory'] as const) {
    const cap = q.max[r];
    if (cap !== undefined) out[r] = Math.max(0, cap - (q.min[r] ?? 0));
  }
  return Object.keys(out).length ? out : undefined;
}

function groups(min: TreeQuota['min'], o: KueueExportOptions, limit?: Partial<TreeQuota['min']>): unknown[] {
  // Every resource the limit names is listed, with nominalQuota 0 where min does not name it.
  const full = { ...min, ...(limit?.cpu !== undefined && min.cpu === undefined ? { cpu: 0 } : {}), ...(limit?.memory !== undefined && min.memory === undefined ? { memory: 0 } : {}) };
  const list = resourceList(full, o.names);
  const limits = limit ? resourceList({ gpu: limit.gpu ?? 0, ...(limit.cpu !== undefined ? { cpu: limit.cpu } : {}), ...(limit.memory !== undefined ? { memory: limit.memory } : {}) }, o.names) : {};
  const limited = (name: string): boolean => (name === o.names.gpu ? limit?.gpu !== undefined : name in limits);
  return [
    {
      coveredResources: Object.keys(list),
      flavors: [{ name: o.flavor, resources: Object.entries(list).map(([name, nominalQuota]) => ({ name, nominalQuota, ...(limited(name) ? { borrowingLimit: limits[name] } : {}) })) }],
    },
  ];
}
