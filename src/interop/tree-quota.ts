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
import { currentLimits, LIMIT_ENV } from '../policy/parse/limits.js';
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
  /** The running time assumed for a job without an expected end (a duration as written: `8h`), for start estimates. */
  runtimeDefault?: string;
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
export function bindingCeiling(q: TreeQuota, quotas: readonly TreeQuota[], byName: ReadonlyMap<string, TreeQuota> = new Map(quotas.map((x) => [x.name, x]))): TreeQuota['max'] {
  if (!q.max) return undefined;
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
  const byName = new Map(quotas.map((x) => [x.name, x]));
  for (const q of quotas) {
    if (!q.max) continue;
    const binding = bindingCeiling(q, quotas, byName);
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
    // 1e308, or 20 digits: a whole number, but past what a policy holds (check would refuse the tree).
    const huge = (typeof value === 'number' && Number.isInteger(value) && value > 0) || (typeof value === 'string' && /^\d{16,}$/.test(value.trim()));
    if (n === undefined && huge)
      report.error(
        sd,
        path,
        'interop/out-of-range',
        `${what}: ${key} ${shown(sd, path, value)} is past the largest GPU count a policy holds (${Number.MAX_SAFE_INTEGER})`,
        'give the real count of GPUs',
      );
    else if (n === undefined) report.error(sd, path, 'interop/bad-quantity', `${what}: ${key} ${shown(sd, path, value)} is not a whole number of GPUs`, 'GPU quantities are whole counts such as "8"');
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
 * The deepest quota tree an import writes: a QuotaTree nests each level of children two
 * YAML collections deeper (a `children` list, then the quota's map), under four for the
 * document, `spec`, `quotas` and a quota's own `min` or `selfPreemption.modules`. So a
 * tree deeper than this would be written, then refused by `check` as `policy/too-deep`
 * (docs/policy-format.md "Limits"): the import refuses it itself, at the quota.
 * Follows QUOTIENT_MAX_DEPTH as the policy's limit does (48 levels at its default 100).
 */
export function maxTreeDepth(maxDepth = currentLimits().maxDepth): number {
  return Math.max(1, Math.floor((maxDepth - 4) / 2));
}

/** Each quota's children, in input order, by the parent's name. */
export function childrenOf<Q extends TreeQuota>(quotas: readonly Q[]): Map<string, Q[]> {
  const kids = new Map<string, Q[]>();
  for (const q of quotas) if (q.parent !== null) (kids.get(q.parent) ?? kids.set(q.parent, []).get(q.parent)!).push(q);
  return kids;
}

/**
 * Adds to each inner quota's `min` its children's totals, bottom-up (a Kueue Cohort
 * guarantees its own nominalQuota plus its members'). Iterative and linear, so a chain of
 * thousands of Cohorts neither overflows the stack nor takes minutes; on a parent cycle
 * (reported by orderTree) a quota met again counts its own `min`. A total past 2^53 GPUs
 * (or millicores, MiB) is `interop/out-of-range` at the quota: the policy could not hold it.
 */
export function addChildrenMins(quotas: LocatedQuota[], inner: (q: LocatedQuota) => boolean, report: Report): void {
  const kids = childrenOf(quotas);
  const totals = new Map<LocatedQuota, TreeQuota['min']>();
  const visiting = new Set<LocatedQuota>();
  for (const start of quotas) {
    if (totals.has(start)) continue;
    // Depth first with an explicit stack: a quota is summed once all its children are.
    const stack: Array<{ q: LocatedQuota; next: number }> = [{ q: start, next: 0 }];
    visiting.add(start);
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      const children = inner(top.q) ? (kids.get(top.q.name) ?? []) : [];
      if (top.next < children.length) {
        const k = children[top.next++]!;
        if (totals.has(k) || visiting.has(k)) continue;
        visiting.add(k);
        stack.push({ q: k, next: 0 });
        continue;
      }
      stack.pop();
      visiting.delete(top.q);
      const min = { ...top.q.min };
      for (const k of children) {
        const m = totals.get(k) ?? k.min;
        min.gpu += m.gpu;
        for (const r of ['cpu', 'memory'] as const) if (m[r] !== undefined) min[r] = (min[r] ?? 0) + m[r];
      }
      totals.set(top.q, min);
    }
  }
  for (const q of quotas) {
    const min = totals.get(q)!;
    const over = (['gpu', 'cpu', 'memory'] as const).find((r) => min[r] !== undefined && !Number.isSafeInteger(min[r]));
    if (over !== undefined)
      report.error(
        q.sd,
        q.path,
        'interop/out-of-range',
        `${q.objectName ?? q.name}: its guarantee with its members' comes to ${min[over]} ${over === 'gpu' ? 'GPUs' : over === 'cpu' ? 'millicores' : 'MiB'}, past the largest a policy holds (${Number.MAX_SAFE_INTEGER})`,
        'lower the nominalQuota of it or of its members',
      );
    q.min = min;
  }
}

/**
 * Checks a flat tree (unknown parents, cycles, duplicate names, a tree deeper than a
 * policy may nest: `interop/tree-too-deep`) and orders it parents first; problems are
 * located errors at the quota's origin. Iterative and linear in the quotas.
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
  const onCycle = new Set<string>();
  // Levels from the root (1): a quota's is its parent's plus one, known when it is written (parents first).
  const depth = new Map<string, number>();
  const deepest = maxTreeDepth();
  for (const start of byName.values()) {
    // Up the parent references to a quota already written (or a root); then written top down.
    const chain: LocatedQuota[] = [];
    let q: LocatedQuota | undefined = start;
    while (q !== undefined && !state.has(q.name)) {
      state.set(q.name, 'visiting');
      chain.push(q);
      q = q.parent === null ? undefined : byName.get(q.parent)!;
    }
    if (q !== undefined && state.get(q.name) === 'visiting') {
      // A parent reference led back into this chain: the quotas from there on are the cycle.
      report.error(q.sd, q.parentPath ?? q.path, 'interop/parent-cycle', `quota "${q.name}" is its own ancestor`, 'break the cycle of parent references');
      for (const n of chain.slice(chain.indexOf(q))) onCycle.add(n.name);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const c = chain[i]!;
      state.set(c.name, 'done');
      const d = c.parent === null || onCycle.has(c.name) ? 1 : (depth.get(c.parent) ?? 0) + 1;
      depth.set(c.name, d);
      // Said once per branch, at the first quota past the limit.
      if (d === deepest + 1)
        report.error(
          c.sd,
          c.parentPath ?? c.path,
          'interop/tree-too-deep',
          `quota "${c.name}" is ${d} levels below its root, deeper than the ${deepest} a QuotaTree may nest (check would refuse the written tree as policy/too-deep)`,
          `give the tree at most ${deepest} levels (a chain of Cohorts is one level each), or raise ${LIMIT_ENV.maxDepth} (now ${currentLimits().maxDepth}; ${deepest} levels) for both import and check`,
        );
      const { sd: _sd, path: _path, objectName: _o, ...plain } = c;
      out.push(plain);
    }
  }
  // Quotient requires a parent to guarantee at least what its children do. A quota on a
  // parent cycle is its own descendant, so its children's sum counts itself: only the
  // cycle (an error already) is reported for it.
  const sums = new Map<string, number>();
  for (const k of out) if (k.parent !== null) sums.set(k.parent, (sums.get(k.parent) ?? 0) + k.min.gpu);
  for (const q of out) {
    if (onCycle.has(q.name)) continue;
    const sum = sums.get(q.name);
    const src = byName.get(q.name)!;
    if (sum !== undefined && sum > q.min.gpu)
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
  const children = childrenOf(quotas);
  // Recursive, over a tree orderTree has bounded to maxTreeDepth levels.
  const node = (q: TreeQuota): Record<string, unknown> => {
    const kids = children.get(q.name) ?? [];
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
      ...(q.runtimeDefault ? { runtimeDefault: q.runtimeDefault } : {}),
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

/**
 * `import ... --runtime-default 8h`: the running time a job without an expected end is
 * assumed to have (policy-format.md `runtimeDefault`), on each root of the imported tree
 * so that it reaches every quota; start estimates from a Kubernetes snapshot (which gives
 * no ends) then exist, and say they rest on it. The quota's comment says where it came from.
 */
export function setRuntimeDefault(quotas: TreeQuota[], duration: string): void {
  for (const q of quotas) {
    if (q.parent !== null) continue;
    q.runtimeDefault = duration;
    (q.notes ??= []).push(`runtimeDefault ${duration} from --runtime-default: the running time assumed for a job of this tree that gives no expected end (start estimates only)`);
  }
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
