/**
 * `quotient export kueue` of a tree under Kueue's rules: the objects Kueue would run it as,
 * every clause one to one (the tree holds nothing Kueue lacks). ResourceFlavors from
 * `spec.flavors` (nodeLabels, nodeTaints), a Cohort per quota with children, a
 * ClusterQueue per leaf with its resourceGroups, preemption, flavorFungibility and
 * queueingStrategy. The policy holds Kueue's defaults filled in (kueue-policy.ts), so each
 * clause is written whole: `import kueue` reads the objects back to the same tree, and
 * exporting that tree again gives the same objects (kueue-walk.test.ts).
 */
import { formatCpu, formatMemory } from '../model/resources.js';
import type { KueueFlavor, KueueResourceGroup } from '../model/kueue-policy.js';
import type { Quota, Workspace } from '../model/policy.js';
import { KUEUE_GROUP, type KueueVersion } from './kueue.js';
import { kubeNames, NAME_ANNOTATION, type MappingRow } from './tree-quota.js';

/** The Kueue objects of a Kueue-rules pool's quotas (parents first) and flavors, with the mapping rows. */
export function exportKueueRules(quotas: Quota[], flavors: KueueFlavor[], workspaces: Workspace[], version: KueueVersion): { objects: unknown[]; rows: MappingRow[] } {
  const apiVersion = `${KUEUE_GROUP}/${version}`;
  const rows: MappingRow[] = [];
  const objects: unknown[] = [];
  for (const f of flavors) {
    const spec: Record<string, unknown> = {};
    if (Object.keys(f.nodeLabels).length > 0) spec.nodeLabels = { ...f.nodeLabels };
    if (f.nodeTaints.length > 0) spec.nodeTaints = f.nodeTaints.map((t) => ({ key: t.key, ...(t.value === undefined ? {} : { value: t.value }), effect: t.effect }));
    objects.push({ apiVersion, kind: 'ResourceFlavor', metadata: { name: f.name }, spec });
    rows.push({ quota: '(all)', field: `flavors ${f.name}`, target: `ResourceFlavor ${f.name}`, fate: 'one-to-one', note: 'nodeLabels and nodeTaints as written' });
  }
  const names = kubeNames(quotas.map((q) => ({ name: q.name, parent: q.parent, min: { gpu: 0 } })));
  const parentField = version === 'v1beta1' ? { cq: 'cohort', cohort: 'parent' } : { cq: 'cohortName', cohort: 'parentName' };
  for (const q of quotas) {
    const k = q.kueue;
    if (!k) continue;
    const spec: Record<string, unknown> = {};
    if (q.parent !== null) spec[k.kind === 'ClusterQueue' ? parentField.cq : parentField.cohort] = names.get(q.parent);
    if (k.kind === 'ClusterQueue') {
      // Every namespace may submit, as `import kueue` reads it: the Workspaces say who does.
      spec.namespaceSelector = {};
      if (k.queueingStrategy) spec.queueingStrategy = k.queueingStrategy;
    }
    if (k.resourceGroups.length > 0) spec.resourceGroups = k.resourceGroups.map(resourceGroup);
    if (k.preemption) {
      const p = k.preemption;
      spec.preemption = {
        withinClusterQueue: p.withinClusterQueue,
        reclaimWithinCohort: p.reclaimWithinCohort,
        borrowWithinCohort: {
          policy: p.borrowWithinCohort.policy,
          ...(p.borrowWithinCohort.maxPriorityThreshold === undefined ? {} : { maxPriorityThreshold: p.borrowWithinCohort.maxPriorityThreshold }),
        },
      };
    }
    if (k.flavorFungibility) spec.flavorFungibility = { whenCanBorrow: k.flavorFungibility.whenCanBorrow, whenCanPreempt: k.flavorFungibility.whenCanPreempt };
    objects.push({ apiVersion, kind: k.kind, metadata: { name: names.get(q.name), annotations: { [NAME_ANNOTATION]: q.name } }, spec });
    rows.push({
      quota: q.name,
      field: 'resourceGroups, preemption, flavorFungibility, queueingStrategy',
      target: `${k.kind} ${names.get(q.name)}`,
      fate: 'one-to-one',
      note: "Kueue's rules: each clause as the tree holds it",
    });
  }
  // A Workspace submits to its ClusterQueues through a LocalQueue in its namespace (`import kueue` makes the Workspace back).
  const leaves = new Set(quotas.filter((q) => q.kueue?.kind === 'ClusterQueue').map((q) => q.name));
  for (const w of workspaces) {
    for (const q of w.quotas.filter((x) => leaves.has(x))) {
      objects.push({ apiVersion, kind: 'LocalQueue', metadata: { namespace: w.name, name: names.get(q) }, spec: { clusterQueue: names.get(q) } });
      rows.push({
        quota: q,
        field: `workspace ${w.name}`,
        target: `LocalQueue ${w.name}/${names.get(q)}`,
        fate: 'approximated',
        note: "a Workspace's members, modules and caps have no Kueue counterpart",
      });
    }
  }
  return { objects, rows };
}

/** A resource group with each quantity as Kubernetes writes it (cpu from millicores, memory from MiB). */
function resourceGroup(g: KueueResourceGroup): unknown {
  return {
    coveredResources: [...g.coveredResources],
    flavors: g.flavors.map((f) => ({
      name: f.name,
      resources: f.resources.map((r) => ({
        name: r.name,
        nominalQuota: quantity(r.name, r.nominalQuota),
        ...(r.borrowingLimit === undefined ? {} : { borrowingLimit: quantity(r.name, r.borrowingLimit) }),
        ...(r.lendingLimit === undefined ? {} : { lendingLimit: quantity(r.name, r.lendingLimit) }),
      })),
    })),
  };
}

function quantity(resource: string, v: number): string {
  if (resource === 'cpu') return formatCpu(v);
  if (resource === 'memory') return formatMemory(v);
  return String(v);
}
