/**
 * The quota tree as the formats exchange it: one flat record per quota with its parent's
 * name, Quotient's units (GPUs, millicores, MiB) and only the fields some other format
 * can carry. Imports build these from foreign objects and write a QuotaTree document;
 * exports read them from a loaded policy.
 */
import { Document, isMap, isSeq, type YAMLMap } from 'yaml';
import type { Module, Policy, QueueStrategy, Quota, ReclaimMode } from '../model/policy.js';
import { formatRange } from '../model/priority.js';
import { parseCpu, parseMemory } from '../model/quantity.js';
import { formatCpu, formatMemory } from '../model/resources.js';
import { API_VERSION } from '../policy/validate/schema.js';
import type { PathSeg, SourceDoc } from '../policy/parse/source-doc.js';
import { writableText } from './imported-name.js';
import { parseCount } from './kube-quantity.js';
import { asObject, type Report, shown } from './located-json.js';

/** One quota of an exchanged tree. */
export interface TreeQuota {
  name: string;
  parent: string | null;
  min: { gpu: number; cpu?: number; memory?: number };
  queueStrategy?: QueueStrategy;
  reclaim?: ReclaimMode;
  selfPreemption?: { highPriority: string; lowPriority: string; modules: Module[] };
  childPreemption?: { preemptiblePriority: string; modules: Module[] };
  /** The ceiling (SEMANTICS 3), in Quotient's units. */
  max?: { gpu?: number; cpu?: number; memory?: number };
  /** Who borrows (SEMANTICS 5.2), a priority range. */
  borrowing?: { priority: string };
  /** `file:line:col` of the object it came from (imports). */
  origin?: string;
  /** How an import chose a value, written in the quota's comment. */
  notes?: string[];
}

/** A quota as an import reads it: where it is, and the name of the object it came from. */
export type LocatedQuota = TreeQuota & {
  sd: SourceDoc;
  path: PathSeg[];
  objectName?: string;
  /** Where the parent is named, for findings about it. */
  parentPath?: PathSeg[];
  /** Where the ceiling was read (readCeiling), for findings about it. */
  maxPath?: PathSeg[];
};

/** What became of one field in an export or import. */
export type Fate = 'one-to-one' | 'approximated' | 'lost';

/** One row of the mapping table an export prints. */
export interface MappingRow {
  quota: string;
  field: string;
  target: string;
  fate: Fate;
  note: string;
}

/** The quotas of a loaded policy's tree, parents first (the policy's own order). */
export function treeOfPolicy(policy: Policy, pool?: string): TreeQuota[] {
  return policy.quotas.filter((q) => pool === undefined || q.pool === pool).map(treeQuota);
}

function treeQuota(q: Quota): TreeQuota {
  return {
    name: q.name,
    parent: q.parent,
    min: { gpu: q.min.gpu, ...(q.min.cpu !== undefined ? { cpu: q.min.cpu } : {}), ...(q.min.memory !== undefined ? { memory: q.min.memory } : {}) },
    queueStrategy: q.queueStrategy,
    reclaim: q.reclaim,
    ...(q.max ? { max: { ...q.max } } : {}),
    ...(q.borrowing ? { borrowing: { priority: formatRange(q.borrowing.priority) } } : {}),
    ...(q.selfPreemption
      ? { selfPreemption: { highPriority: formatRange(q.selfPreemption.highPriority), lowPriority: formatRange(q.selfPreemption.lowPriority), modules: [...q.selfPreemption.modules] } }
      : {}),
    ...(q.childPreemption ? { childPreemption: { preemptiblePriority: formatRange(q.childPreemption.preemptiblePriority), modules: [...q.childPreemption.modules] } } : {}),
  };
}

/** Resource names of a Kubernetes ResourceList for Quotient's three resources. */
export interface ResourceNames {
  gpu: string;
}

/** A Kubernetes ResourceList (`{"nvidia.com/gpu": "8", cpu: "96", memory: "768Gi"}`) for `min`. */
export function resourceList(min: TreeQuota['min'], names: ResourceNames): Record<string, string> {
  return { [names.gpu]: String(min.gpu), ...(min.cpu !== undefined ? { cpu: formatCpu(min.cpu) } : {}), ...(min.memory !== undefined ? { memory: formatMemory(min.memory) } : {}) };
}

/**
 * A ResourceList read into `min`, adding to what is there: GPUs, cpu and memory are
 * read; every other resource is a located warning (Quotient has no counterpart).
 */
export function addResourceList(sd: SourceDoc, path: PathSeg[], raw: unknown, into: TreeQuota['min'], names: ResourceNames, report: Report, what: string): void {
  const list = asObject(raw);
  if (raw === undefined) return;
  if (!list) {
    report.error(sd, path, 'interop/bad-resource-list', `${what} must be a map of resource names to quantities`, `e.g. { ${names.gpu}: "8", cpu: "96", memory: "768Gi" }`);
    return;
  }
  for (const [key, value] of Object.entries(list)) addResource(sd, [...path, key], key, value, into, names, report, what);
}

/**
 * A ResourceList read as a ceiling (SEMANTICS 3 `max`: Koordinator's `spec.max`, Volcano's
 * `spec.capability`): only the resources it names are bounded, each at least the quota's
 * `min` (read first). A ceiling below the guarantee is an error at that resource, as the
 * policy's own validation would refuse it, but located in the input.
 */
export function readCeiling(q: LocatedQuota, path: PathSeg[], raw: unknown, names: ResourceNames, report: Report, what: string): TreeQuota['max'] {
  const list = asObject(raw);
  if (raw === undefined || !list) {
    addResourceList(q.sd, path, raw, { gpu: 0 }, names, report, what);
    return undefined;
  }
  const max: NonNullable<TreeQuota['max']> = {};
  for (const [key, value] of Object.entries(list)) {
    const one: TreeQuota['min'] = { gpu: 0 };
    const before = report.findings.length;
    addResource(q.sd, [...path, key], key, value, one, names, report, what);
    if (report.findings.slice(before).some((f) => f.severity === 'error')) continue;
    const r = key === names.gpu ? 'gpu' : key === 'cpu' || key === 'memory' ? key : undefined;
    if (r === undefined) continue;
    const cap = r === 'gpu' ? one.gpu : one[r]!;
    const floor = q.min[r] ?? 0;
    if (cap < floor) {
      report.error(
        q.sd,
        [...path, key],
        'interop/max-below-min',
        `${what}: ${key} ${shown(q.sd, [...path, key], value)} is below the quota's guarantee`,
        'a ceiling is at least the guarantee (SEMANTICS 3): raise it, or lower the min',
      );
      continue;
    }
    max[r] = cap;
  }
  q.maxPath = path;
  return Object.keys(max).length ? max : undefined;
}

/**
 * The part of a quota's ceiling that can bind: a root borrows from nobody, so no quota of its
 * tree uses more than the root's guarantee (SEMANTICS 3 and 5), and a `max` at or above it
 * is no ceiling. Undefined when nothing binds.
 */
export function bindingCeiling(q: TreeQuota, quotas: readonly TreeQuota[]): TreeQuota['max'] {
  if (!q.max) return undefined;
  const byName = new Map(quotas.map((x) => [x.name, x]));
  let root = q;
  for (let hops = 0; root.parent !== null && byName.has(root.parent) && hops < quotas.length; hops++) root = byName.get(root.parent)!;
  const out: NonNullable<TreeQuota['max']> = {};
  for (const r of ['gpu', 'cpu', 'memory'] as const) {
    const cap = q.max[r];
    const whole = root.min[r];
    if (cap !== undefined && (whole === undefined || cap < whole)) out[r] = cap;
  }
  return Object.keys(out).length ? out : undefined;
}

/**
 * Keeps of each imported ceiling only what can bind (bindingCeiling): Koordinator's export
 * writes the root's guarantee for a quota without one, and clusters often set a huge `max`
 * to mean "none"; either way the written policy says none, and the comment says why.
 */
export function dropVacuousCeilings(quotas: LocatedQuota[], report: Report): void {
  for (const q of quotas) {
    if (!q.max) continue;
    const binding = bindingCeiling(q, quotas);
    const dropped = (Object.keys(q.max) as Array<keyof NonNullable<TreeQuota['max']>>).filter((r) => binding?.[r] === undefined);
    if (dropped.length === 0) continue;
    report.warn(
      q.sd,
      q.maxPath ?? q.path,
      'interop/approximated',
      `${q.objectName ?? q.name}: the ceiling on ${dropped.join(', ')} is at or above its root's guarantee, which already bounds every quota of the tree (a root borrows from nobody); it is not carried over`,
      "a ceiling below the root's guarantee is carried over as max",
    );
    if (binding) q.max = binding;
    else {
      delete q.max;
      q.notes = q.notes?.filter((n) => !n.startsWith('max: '));
      (q.notes ??= []).push("no max: the given one is at least the root's guarantee, which bounds every quota of the tree");
    }
  }
}

/** Whether an export carries `q.max` exactly: every resource of it binds, so an import reads it back. */
export function ceilingCarried(q: TreeQuota, quotas: readonly TreeQuota[]): boolean {
  const binding = bindingCeiling(q, quotas);
  return binding !== undefined && Object.keys(binding).length === Object.keys(q.max ?? {}).length;
}

/** A Kubernetes ResourceList of the resources a ceiling names. */
export function ceilingList(max: NonNullable<TreeQuota['max']>, names: ResourceNames): Record<string, string> {
  return {
    ...(max.gpu !== undefined ? { [names.gpu]: String(max.gpu) } : {}),
    ...(max.cpu !== undefined ? { cpu: formatCpu(max.cpu) } : {}),
    ...(max.memory !== undefined ? { memory: formatMemory(max.memory) } : {}),
  };
}

/** One named quantity into `min` (see addResourceList). */
export function addResource(sd: SourceDoc, path: PathSeg[], key: string, value: unknown, into: TreeQuota['min'], names: ResourceNames, report: Report, what: string): void {
  if (key === names.gpu) {
    const n = parseCount(value);
    if (n === undefined) report.error(sd, path, 'interop/bad-quantity', `${what}: ${key} ${shown(sd, path, value)} is not a whole number of GPUs`, 'GPU quantities are whole counts such as "8"');
    else into.gpu += n;
  } else if (key === 'cpu' || key === 'memory') {
    const n = key === 'cpu' ? parseCpu(value) : parseMemory(value);
    if (n === undefined) report.error(sd, path, 'interop/bad-quantity', `${what}: ${key} ${shown(sd, path, value)} is not a quantity`, key === 'cpu' ? 'e.g. "96" or "500m"' : 'e.g. "768Gi"');
    else into[key] = (into[key] ?? 0) + n;
  } else {
    report.warn(
      sd,
      path,
      'interop/unmapped-resource',
      `${what}: resource ${key} has no counterpart in Quotient (it models ${names.gpu}, cpu and memory); it is not imported`,
      `Quotient counts GPUs as ${names.gpu}; use --gpu-resource if your GPUs have another name`,
    );
  }
}

/**
 * Turns each quota's parent reference, an object's name as Kubernetes references go, into
 * that object's Quotient name (which an export keeps in an annotation when it differs).
 * Object names first: an export lower-cases `A.` to `a` and names a quota `a` `a-2`, and
 * a child of `A.` names its parent `a` — which is also the Quotient name of another quota.
 * A reference no object has is kept as it is (orderTree reports it if nothing declares it).
 */
export function resolveParentObjects(quotas: LocatedQuota[]): void {
  const byObject = new Map(quotas.map((q) => [q.objectName ?? q.name, q.name]));
  for (const q of quotas) if (q.parent !== null) q.parent = byObject.get(q.parent) ?? q.parent;
}

/**
 * Checks a flat tree (unknown parents, cycles, duplicate names) and orders it parents
 * first; problems are located errors at the quota's origin.
 */
export function orderTree(quotas: LocatedQuota[], report: Report): TreeQuota[] {
  const byName = new Map<string, LocatedQuota>();
  for (const q of quotas) {
    const prev = byName.get(q.name);
    if (prev) report.error(q.sd, q.path, 'interop/duplicate-quota', `quota "${q.name}" is declared twice (first at ${prev.origin})`, 'names are unique across the tree');
    else byName.set(q.name, q);
  }
  for (const q of byName.values()) {
    if (q.parent !== null && !byName.has(q.parent))
      report.error(
        q.sd,
        q.parentPath ?? q.path,
        'interop/unknown-parent',
        `quota "${q.name}" names parent "${q.parent}", which the input does not declare`,
        'include the parent object, or remove the parent reference',
      );
  }
  if (report.failed) return [];
  const out: TreeQuota[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  // The quotas being visited, outermost first: when a parent reference leads back into it,
  // the quotas from there on are the cycle.
  const stack: string[] = [];
  const onCycle = new Set<string>();
  const visit = (q: LocatedQuota): void => {
    if (state.get(q.name) === 'done') return;
    if (state.get(q.name) === 'visiting') {
      report.error(q.sd, q.parentPath ?? q.path, 'interop/parent-cycle', `quota "${q.name}" is its own ancestor`, 'break the cycle of parent references');
      for (const n of stack.slice(stack.indexOf(q.name))) onCycle.add(n);
      return;
    }
    state.set(q.name, 'visiting');
    stack.push(q.name);
    if (q.parent !== null) visit(byName.get(q.parent)!);
    stack.pop();
    state.set(q.name, 'done');
    const { sd: _sd, path: _path, objectName: _o, ...plain } = q;
    out.push(plain);
  };
  for (const q of byName.values()) visit(q);
  // Quotient requires a parent to guarantee at least what its children do. A quota on a
  // parent cycle is its own descendant, so its children's sum counts itself: only the
  // cycle (an error already) is reported for it.
  for (const q of out) {
    if (onCycle.has(q.name)) continue;
    const kids = out.filter((k) => k.parent === q.name);
    const sum = kids.reduce((s, k) => s + k.min.gpu, 0);
    const src = byName.get(q.name)!;
    if (kids.length && sum > q.min.gpu)
      report.warn(
        src.sd,
        src.path,
        'interop/children-exceed-parent',
        `the children of "${q.name}" guarantee ${sum} GPUs together, more than its ${q.min.gpu}; Quotient refuses such a tree (policy/children-exceed-parent)`,
        `raise "${q.name}"'s guarantee to ${sum} GPUs or lower a child's`,
      );
  }
  return report.failed ? [] : out;
}

/** A QuotaTree document of `quotas` (parents first), with a comment per quota saying where it came from. */
export function quotaTreeYaml(name: string, pool: string, quotas: TreeQuota[], source: string): string {
  const node = (q: TreeQuota): Record<string, unknown> => {
    const kids = quotas.filter((k) => k.parent === q.name);
    return {
      name: q.name,
      min: { gpu: q.min.gpu, ...(q.min.cpu !== undefined ? { cpu: formatCpu(q.min.cpu) } : {}), ...(q.min.memory !== undefined ? { memory: formatMemory(q.min.memory) } : {}) },
      ...(q.max
        ? {
            max: {
              ...(q.max.gpu !== undefined ? { gpu: q.max.gpu } : {}),
              ...(q.max.cpu !== undefined ? { cpu: formatCpu(q.max.cpu) } : {}),
              ...(q.max.memory !== undefined ? { memory: formatMemory(q.max.memory) } : {}),
            },
          }
        : {}),
      ...(q.borrowing ? { borrowing: q.borrowing } : {}),
      ...(q.queueStrategy ? { queueStrategy: q.queueStrategy } : {}),
      ...(q.reclaim ? { reclaim: q.reclaim } : {}),
      ...(q.selfPreemption ? { selfPreemption: q.selfPreemption } : {}),
      ...(q.childPreemption ? { childPreemption: q.childPreemption } : {}),
      ...(kids.length ? { children: kids.map(node) } : {}),
    };
  };
  const roots = quotas.filter((q) => q.parent === null);
  const doc = new Document({ apiVersion: API_VERSION, kind: 'QuotaTree', metadata: { name }, spec: { pool: { name: pool }, quotas: roots.map(node) } });
  doc.commentBefore = ` Imported by \`quotient import\` from ${source}. Fields without a Quotient counterpart are listed on stderr as warnings.`;
  const byName = new Map(quotas.map((q) => [q.name, q]));
  const annotate = (list: unknown): void => {
    if (!isSeq(list)) return;
    for (const item of list.items) {
      if (!isMap(item)) continue;
      const q = byName.get(String(item.get('name')));
      // The origin is written safe already (located-json.ts where); notes quote the input.
      const lines = [...(q?.origin ? [`from ${q.origin}`] : []), ...(q?.notes ?? []).map(writableText)];
      if (lines.length) item.commentBefore = lines.map((l) => ` ${l}`).join('\n');
      for (const key of ['min', 'max', 'borrowing']) {
        const m = item.get(key);
        if (isMap(m)) m.flow = true;
      }
      for (const key of ['selfPreemption', 'childPreemption']) {
        const m = item.get(key);
        if (isMap(m)) m.flow = true;
      }
      annotate(item.get('children'));
    }
  };
  annotate((doc.get('spec') as YAMLMap).get('quotas'));
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** A Kubernetes object name (RFC 1123 subdomain) for a Quotient name: lower case, other characters as `-`. */
export function kubeName(name: string): string {
  const n = name
    .toLowerCase()
    .replace(/[^a-z0-9.-]+/g, '-')
    .replace(/^[^a-z0-9]+|[^a-z0-9]+$/g, '');
  return n === '' ? 'quota' : n.slice(0, 253);
}

/** Unique Kubernetes names for every quota (a suffix when two lower-case alike). */
export function kubeNames(quotas: TreeQuota[]): Map<string, string> {
  const used = new Set<string>();
  const out = new Map<string, string>();
  for (const q of quotas) {
    let n = kubeName(q.name);
    for (let k = 2; used.has(n); k++) n = `${kubeName(q.name)}-${k}`;
    used.add(n);
    out.set(q.name, n);
  }
  return out;
}

/** The annotation exports write so that an import gets a quota's exact Quotient name back. */
export const NAME_ANNOTATION = 'quotient.dev/name';
