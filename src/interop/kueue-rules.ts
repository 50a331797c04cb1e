/**
 * Kueue's objects → one QuotaTree under `rules: kueue` (SEMANTICS 12): ResourceFlavors
 * become `spec.flavors` (nodeLabels, nodeTaints as they are), Cohorts the inner quotas,
 * ClusterQueues the leaves, each with its resourceGroups, preemption, flavorFungibility
 * and queueingStrategy written as Kueue wrote them — nothing approximated, so no
 * `interop/approximated`. A cohort named by a ClusterQueue or a Cohort but not declared
 * exists implicitly, as in Kueue. Field names: apis/kueue/v1beta1 and v1beta2 (a
 * ClusterQueue's `cohort` / `cohortName`, a Cohort's `parent` / `parentName`).
 *
 * A ClusterQueue's or Cohort's `fairSharing.weight` is written as it is (SEMANTICS 13; fair
 * sharing itself is enabled by Kueue's Configuration, which `spec.fairSharing` stands for).
 * Fields Kueue has and the policy format does not (admissionChecks, namespaceSelector,
 * stopPolicy, ...) are each a located warning at the field; the tree is
 * written without them.
 */
import { asObject, stringMap, type ForeignObject, type Report } from './located-json.js';
import { NAME_ANNOTATION } from './tree-quota.js';

const CQ_FIELDS = ['resourceGroups', 'cohort', 'cohortName', 'preemption', 'flavorFungibility', 'queueingStrategy', 'namespaceSelector', 'fairSharing'];
const COHORT_FIELDS = ['resourceGroups', 'parent', 'parentName', 'fairSharing'];

interface Node {
  name: string;
  /** The quota's name: the object's quotient.dev/name annotation (export kueue writes one when a Quotient name is not a Kubernetes name), else its name. */
  label: string;
  parent: string | null;
  kind: 'ClusterQueue' | 'Cohort';
  spec: Record<string, unknown>;
}

/** The QuotaTree document of Kueue objects under `rules: kueue`, or undefined (with errors in `report`) when there is none. */
export function kueueRulesTreeYaml(objects: ForeignObject[], tree: string, pool: string, report: Report, runtimeDefault?: string): string | undefined {
  const kueue = objects.filter((o) => o.apiVersion.startsWith('kueue.x-k8s.io/'));
  const nodes = new Map<string, Node>();
  for (const o of kueue) {
    const spec = asObject(o.obj.spec) ?? {};
    if (o.kind === 'ClusterQueue' || o.kind === 'Cohort') {
      const known = o.kind === 'ClusterQueue' ? CQ_FIELDS : COHORT_FIELDS;
      for (const key of Object.keys(spec))
        if (!known.includes(key))
          report.warn(
            o.sd,
            [...o.path, 'spec', key],
            'interop/kueue-field-dropped',
            `${o.kind} ${o.name}: spec.${key} has no place in the policy format; it is left out`,
            'answers do not read it',
            true,
          );
      const parentField = o.kind === 'ClusterQueue' ? (spec.cohortName ?? spec.cohort) : (spec.parentName ?? spec.parent);
      nodes.set(o.name, { name: o.name, label: o.annotations[NAME_ANNOTATION] ?? o.name, parent: typeof parentField === 'string' && parentField !== '' ? parentField : null, kind: o.kind, spec });
    }
  }
  // A ClusterQueue naming a ResourceFlavor that does not exist is inactive in Kueue (FlavorNotFound): an error here, so no tree is written that check refuses.
  const declared = new Set(kueue.filter((o) => o.kind === 'ResourceFlavor').map((o) => o.name));
  for (const o of kueue) {
    if (o.kind !== 'ClusterQueue' && o.kind !== 'Cohort') continue;
    const groups = (asObject(o.obj.spec) ?? {}).resourceGroups;
    if (!Array.isArray(groups)) continue;
    groups.forEach((g, i) => {
      const flavors = asObject(g)?.flavors;
      if (!Array.isArray(flavors)) return;
      flavors.forEach((f, j) => {
        const name = asObject(f)?.name;
        if (typeof name === 'string' && !declared.has(name))
          report.error(
            o.sd,
            [...o.path, 'spec', 'resourceGroups', i, 'flavors', j, 'name'],
            'interop/unknown-flavor',
            `${o.kind} ${o.name} names ResourceFlavor ${name}, which the input does not hold (Kueue keeps such a ClusterQueue inactive: FlavorNotFound)`,
            'give the ResourceFlavor objects in the same files (kubectl get resourceflavors -o yaml)',
          );
      });
    });
  }
  if (report.failed) return undefined;
  if (![...nodes.values()].some((n) => n.kind === 'ClusterQueue')) {
    const first = objects[0];
    if (first) report.error(first.sd, first.path, 'interop/no-quotas', 'no Kueue ClusterQueue in the input', 'give ClusterQueue (and Cohort, ResourceFlavor) objects');
    return undefined;
  }
  // A cohort named but not declared exists implicitly, as in Kueue.
  for (const n of [...nodes.values()]) {
    for (let p = n.parent; p !== null && !nodes.has(p); p = null) nodes.set(p, { name: p, label: p, parent: null, kind: 'Cohort', spec: {} });
  }
  const children = new Map<string, Node[]>();
  for (const n of nodes.values()) if (n.parent !== null) children.set(n.parent, [...(children.get(n.parent) ?? []), n]);
  const lines: string[] = [];
  lines.push('apiVersion: quotient.dev/v1', 'kind: QuotaTree', `metadata: { name: ${q(tree)} }`, 'spec:', '  rules: kueue', `  pool: { name: ${q(pool)} }`);
  const flavors = kueue.filter((o) => o.kind === 'ResourceFlavor');
  if (flavors.length > 0) {
    lines.push('  flavors:');
    for (const f of flavors) {
      const spec = asObject(f.obj.spec) ?? {};
      const labels = stringMap(spec.nodeLabels);
      const taints = Array.isArray(spec.nodeTaints) ? spec.nodeTaints.map((t) => asObject(t) ?? {}) : [];
      lines.push(`    - name: ${q(f.name)}`);
      if (Object.keys(labels).length > 0) lines.push(`      nodeLabels: ${json(labels)}`);
      if (taints.length > 0) lines.push(`      nodeTaints: ${json(taints.map((t) => ({ key: t.key, ...(t.value === undefined ? {} : { value: t.value }), effect: t.effect })))}`);
    }
  }
  lines.push('  quotas:');
  const seen = new Set<string>();
  const write = (n: Node, indent: string): void => {
    if (seen.has(n.name)) return;
    seen.add(n.name);
    lines.push(`${indent}- name: ${q(n.label)}`);
    const at = `${indent}  `;
    if (Array.isArray(n.spec.resourceGroups)) lines.push(`${at}resourceGroups: ${json(n.spec.resourceGroups.map(resourceGroup))}`);
    const weight = asObject(n.spec.fairSharing)?.weight;
    if (weight !== undefined) lines.push(`${at}fairSharing: ${json({ weight })}`);
    // --runtime-default: on the roots, so every job of the tree has an assumed end (start estimates only).
    if (runtimeDefault !== undefined && n.parent === null) lines.push(`${at}runtimeDefault: ${q(runtimeDefault)}`);
    if (n.kind === 'ClusterQueue') {
      const p = asObject(n.spec.preemption);
      if (p) lines.push(`${at}preemption: ${json(p)}`);
      const ff = asObject(n.spec.flavorFungibility);
      if (ff) lines.push(`${at}flavorFungibility: ${json({ ...(ff.whenCanBorrow ? { whenCanBorrow: ff.whenCanBorrow } : {}), ...(ff.whenCanPreempt ? { whenCanPreempt: ff.whenCanPreempt } : {}) })}`);
      if (typeof n.spec.queueingStrategy === 'string') lines.push(`${at}queueingStrategy: ${n.spec.queueingStrategy}`);
    }
    const kids = children.get(n.name) ?? [];
    if (kids.length > 0) {
      lines.push(`${at}children:`);
      for (const k of kids) write(k, `${at}  `);
    }
  };
  for (const n of nodes.values()) if (n.parent === null) write(n, '    ');
  return `${lines.join('\n')}\n`;
}

/** Object name → quota name (the quotient.dev/name annotation, else the object's name) of the ClusterQueues and Cohorts among `objects`. */
export function kueueQuotaNames(objects: ForeignObject[]): Map<string, string> {
  return new Map(
    objects.filter((o) => o.apiVersion.startsWith('kueue.x-k8s.io/') && (o.kind === 'ClusterQueue' || o.kind === 'Cohort')).map((o) => [o.name, o.annotations[NAME_ANNOTATION] ?? o.name]),
  );
}

/** A resource group as the policy writes it: quantities as Kubernetes wrote them. */
function resourceGroup(g: unknown): unknown {
  const o = asObject(g) ?? {};
  return {
    coveredResources: o.coveredResources,
    flavors: (Array.isArray(o.flavors) ? o.flavors : []).map((f) => {
      const fo = asObject(f) ?? {};
      return {
        name: fo.name,
        resources: (Array.isArray(fo.resources) ? fo.resources : []).map((r) => {
          const ro = asObject(r) ?? {};
          return {
            name: ro.name,
            nominalQuota: ro.nominalQuota,
            ...(ro.borrowingLimit === undefined ? {} : { borrowingLimit: ro.borrowingLimit }),
            ...(ro.lendingLimit === undefined ? {} : { lendingLimit: ro.lendingLimit }),
          };
        }),
      };
    }),
  };
}

/** JSON is YAML: a flow value the loader reads back exactly. */
function json(v: unknown): string {
  return JSON.stringify(v);
}

function q(s: string): string {
  return JSON.stringify(s);
}
