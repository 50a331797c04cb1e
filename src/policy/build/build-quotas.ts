/**
 * QuotaTree documents → pools and a flat list of quotas (parents before children).
 * Checks here: duplicate quota and pool names, priority ranges, `lowPriority` below
 * `highPriority`, and children's `min` summing above their parent's (SEMANTICS 1).
 */
import {
  DEFAULT_QUEUE_PARAMETERS,
  type BorrowingClause,
  type Ceiling,
  PAI_QUEUE_STRATEGIES,
  type ChildPreemption,
  type Pool,
  type Quota,
  type QueueParameters,
  type QueueStrategy,
  type Restriction,
  type SelfPreemption,
  type TypicalPod,
} from '../../model/policy.js';
import type { Source } from '../../model/source.js';
import { VICTIM_CRITERIA, type VictimCriterion } from '../../model/victim-order.js';
import { formatRange, inRange } from '../../model/priority.js';
import { parseCpu, parseMemory } from '../../model/quantity.js';
import { RESOURCE_NAMES, formatAmount, type Resources } from '../../model/resources.js';
import type { Collector } from '../collector.js';
import { parseDurationField, parseRange, parseResources } from './parse-fields.js';
import type { QuotaInput, QuotaTreeSpec } from '../validate/schema.js';
import { sourceAt, type PathSeg, type SourceDoc } from '../parse/source-doc.js';
import type { TypedDoc } from '../validate/validate-schema.js';
import type { KueueFlavor } from '../../model/kueue-policy.js';
import { buildFairSharing } from './build-fair-sharing.js';
import { buildFlavors, buildKueueQuota, refuseKueueClauses } from './build-kueue.js';

export interface QuotaBuild {
  pools: Pool[];
  quotas: Quota[];
  /** Where each quota was declared, for later findings about it. */
  quotaDocs: Map<string, { sd: SourceDoc; path: PathSeg[] }>;
}

/** Builds pools and quotas from every QuotaTree document. */
export function buildQuotas(c: Collector, docs: TypedDoc[]): QuotaBuild {
  const pools: Pool[] = [];
  const quotas: Quota[] = [];
  const quotaDocs = new Map<string, { sd: SourceDoc; path: PathSeg[] }>();
  for (const td of docs) {
    if (td.kind !== 'QuotaTree') continue;
    const spec = td.spec as QuotaTreeSpec;
    const sd = td.sd;
    const poolName = spec.pool.name;
    const rules = spec.rules ?? 'pai';
    // Each family of clauses is read under its own rules only (SEMANTICS 12): the other's is a located error.
    let flavors: KueueFlavor[] = [];
    const fairSharing = rules === 'kueue' ? buildFairSharing(c, sd, spec) : undefined;
    if (rules === 'kueue') flavors = buildFlavors(c, sd, spec);
    else refuseKueueClauses(c, sd, spec);
    if (pools.some((p) => p.name === poolName)) {
      c.error(sd, ['spec', 'pool', 'name'], 'policy/duplicate-pool', `pool "${poolName}" is declared by another QuotaTree too`, 'one QuotaTree owns each pool; merge the trees or rename the pool');
    } else {
      pools.push({
        name: poolName,
        type: spec.pool.type ?? 'general',
        strategy: spec.placement?.strategy ?? 'binpack',
        ...(spec.placement?.workload ? { workload: buildWorkload(c, sd, spec.placement.workload) } : {}),
        topology: spec.placement?.topology ?? 'prefer',
        victimOrder: buildVictimOrder(c, sd, spec.victimOrder),
        ...(spec.victimOrder ? { victimOrderSrc: sourceAt(sd, ['spec', 'victimOrder']) } : {}),
        tree: td.name,
        ...(spec.rules ? { rules, rulesSrc: sourceAt(sd, ['spec', 'rules']) } : {}),
        ...(rules === 'kueue' ? { flavors } : {}),
        ...(fairSharing ? { fairSharing } : {}),
        src: sourceAt(sd, ['spec', 'pool']),
      });
    }
    const walk = (input: QuotaInput, path: PathSeg[], parent: string | null): void => {
      if (quotaDocs.has(input.name)) {
        const first = quotaDocs.get(input.name)!;
        const at = sourceAt(first.sd, first.path);
        c.error(
          sd,
          [...path, 'name'],
          'policy/duplicate-quota',
          `quota "${input.name}" is already declared at ${at.file}:${at.line}:${at.column}`,
          'quota names are unique across all QuotaTrees; rename one of them',
        );
        return;
      }
      quotaDocs.set(input.name, { sd, path });
      const q = rules === 'kueue' ? buildKueueModel(c, sd, path, input, parent, poolName, flavors) : buildQuota(c, sd, path, input, parent, poolName);
      if (q) quotas.push(q);
      (input.children ?? []).forEach((child, i) => walk(child, [...path, 'children', i], input.name));
      if (rules === 'pai') checkChildrenFit(c, sd, path, input);
    };
    const first = quotas.length;
    spec.quotas.forEach((q, i) => walk(q, ['spec', 'quotas', i], null));
    if (rules === 'kueue') addSubtreeNominal(quotas.slice(first));
  }
  return { pools, quotas, quotaDocs };
}

/**
 * SEMANTICS 5.3's criteria in the policy's order: each of the five exactly once (the
 * schema already refused unknown names). A repeated or missing one is an error located
 * at the list; the default stands in so later checks still run.
 */
function buildVictimOrder(c: Collector, sd: SourceDoc, order: VictimCriterion[] | undefined): VictimCriterion[] {
  if (!order) return [...VICTIM_CRITERIA];
  const path: PathSeg[] = ['spec', 'victimOrder'];
  let ok = true;
  order.forEach((name, i) => {
    const first = order.indexOf(name);
    if (first !== i) {
      ok = false;
      c.error(
        sd,
        [...path, i],
        'policy/victim-order-duplicate',
        `victimOrder lists "${name}" twice (items ${first + 1} and ${i + 1})`,
        'list each criterion once: the first mention decides where it ranks',
      );
    }
  });
  const missing = VICTIM_CRITERIA.filter((name) => !order.includes(name));
  if (missing.length > 0) {
    ok = false;
    c.error(
      sd,
      path,
      'policy/victim-order-incomplete',
      `victimOrder leaves out ${missing.map((m) => `"${m}"`).join(', ')}`,
      `list all five criteria (${VICTIM_CRITERIA.join(', ')}), the one that decides first first`,
    );
  }
  return ok ? [...order] : [...VICTIM_CRITERIA];
}

/**
 * A quota of a Kueue-rules tree: its Kueue clauses, PAI's fields at their inert values
 * (no PAI preemption clause; reclaim never, so no PAI rule is compiled for it), and its
 * queue strategy as SEMANTICS 12 reads Kueue's (StrictFIFO is fifo, BestEffortFIFO round-robin).
 */
function buildKueueModel(c: Collector, sd: SourceDoc, path: PathSeg[], input: QuotaInput, parent: string | null, pool: string, flavors: readonly KueueFlavor[]): Quota | undefined {
  const built = buildKueueQuota(c, sd, path, input, parent, flavors);
  if (!built) return undefined;
  return {
    name: input.name,
    parent,
    children: (input.children ?? []).map((ch) => ch.name),
    min: built.min,
    queueStrategy: built.kueue.queueingStrategy === 'StrictFIFO' ? 'fifo' : 'round-robin',
    queue: { ...DEFAULT_QUEUE_PARAMETERS },
    reclaim: 'never',
    pool,
    src: sourceAt(sd, path),
    reclaimSrc: sourceAt(sd, path),
    allowedModules: restriction(sd, [...path, 'allowedModules'], input.allowedModules),
    allowedRoles: restriction(sd, [...path, 'allowedRoles'], input.allowedRoles),
    kueue: built.kueue,
  };
}

/** A Cohort's `min` (for the views): its own nominal quota plus its subtree's. `quotas` lists parents before children. */
function addSubtreeNominal(quotas: Quota[]): void {
  const byName = new Map(quotas.map((q) => [q.name, q]));
  for (let i = quotas.length - 1; i >= 0; i--) {
    const q = quotas[i]!;
    const parent = q.parent === null ? undefined : byName.get(q.parent);
    if (!parent) continue;
    parent.min = {
      gpu: parent.min.gpu + q.min.gpu,
      ...(parent.min.cpu === undefined && q.min.cpu === undefined ? {} : { cpu: (parent.min.cpu ?? 0) + (q.min.cpu ?? 0) }),
      ...(parent.min.memory === undefined && q.min.memory === undefined ? {} : { memory: (parent.min.memory ?? 0) + (q.min.memory ?? 0) }),
    };
  }
}

function buildQuota(c: Collector, sd: SourceDoc, path: PathSeg[], input: QuotaInput, parent: string | null, pool: string): Quota | undefined {
  // A missing min is refuseKueueClauses' finding.
  if (!input.min) return undefined;
  const min = parseResources(c, sd, [...path, 'min'], input.min);
  let selfPreemption: SelfPreemption | undefined;
  if (input.selfPreemption) {
    const sp = input.selfPreemption;
    const spPath = [...path, 'selfPreemption'];
    const high = parseRange(c, sd, [...spPath, 'highPriority'], sp.highPriority);
    const low = parseRange(c, sd, [...spPath, 'lowPriority'], sp.lowPriority);
    if (high && low) {
      if (low.hi >= high.lo) {
        c.error(
          sd,
          [...spPath, 'lowPriority'],
          'policy/low-not-below-high',
          `lowPriority ${formatRange(low)} is not below highPriority ${formatRange(high)} of quota "${input.name}"`,
          `PAI requires Low Preemption Priority below High Priority: make lowPriority end below ${high.lo}`,
        );
      } else {
        selfPreemption = { highPriority: high, lowPriority: low, modules: dedupe(sp.modules), src: sourceAt(sd, spPath) };
        if (high.hi < 9) {
          c.warn(
            sd,
            [...spPath, 'highPriority'],
            'policy/high-priority-gap',
            `highPriority ${formatRange(high)} of "${input.name}" stops below 9: a priority-${high.hi + 1} job may preempt less than a priority-${high.hi} one`,
            `end highPriority at 9 (${high.lo}-9) unless the most urgent jobs must never preempt`,
          );
        }
      }
    }
  }
  let childPreemption: ChildPreemption | undefined;
  if (input.childPreemption) {
    const cp = input.childPreemption;
    const cpPath = [...path, 'childPreemption'];
    const range = parseRange(c, sd, [...cpPath, 'preemptiblePriority'], cp.preemptiblePriority);
    if (range) {
      childPreemption = { preemptiblePriority: range, modules: dedupe(cp.modules), src: sourceAt(sd, cpPath) };
      if (!input.children?.length) {
        c.warn(
          sd,
          cpPath,
          'policy/child-preemption-without-children',
          `quota "${input.name}" has childPreemption but no children`,
          'child-level preemption acts on descendant quotas; add children or remove the clause',
        );
      }
      if (range.hi === 9) {
        c.warn(
          sd,
          [...cpPath, 'preemptiblePriority'],
          'policy/child-range-reaches-9',
          `preemptiblePriority ${formatRange(range)} of "${input.name}" reaches 9: no job of its descendants is safe, even from a priority-1 job on "${input.name}"`,
          "child-level preemption ignores the preemptor's priority; end the range below the priorities you want to protect",
        );
      }
    }
  }
  const borrowing = buildBorrowing(c, sd, path, input, parent, selfPreemption);
  if (!min) return undefined;
  const max = buildCeiling(c, sd, path, input, min);
  return {
    name: input.name,
    parent,
    children: (input.children ?? []).map((ch) => ch.name),
    min,
    ...(max ? { max, maxSrc: sourceAt(sd, [...path, 'max']) } : {}),
    ...(borrowing ? { borrowing } : {}),
    queueStrategy: (PAI_QUEUE_STRATEGIES[input.queueStrategy ?? ''] ?? input.queueStrategy ?? 'fifo') as QueueStrategy,
    queue: queueParameters(c, sd, [...path, 'queue'], input.queue),
    reclaim: input.reclaim ?? 'any',
    selfPreemption,
    childPreemption,
    pool,
    src: sourceAt(sd, path),
    reclaimSrc: sourceAt(sd, input.reclaim ? [...path, 'reclaim'] : path),
    allowedModules: restriction(sd, [...path, 'allowedModules'], input.allowedModules),
    allowedRoles: restriction(sd, [...path, 'allowedRoles'], input.allowedRoles),
    ...runtimeDefault(c, sd, [...path, 'runtimeDefault'], input.runtimeDefault),
  };
}

/** `runtimeDefault: 8h` → ms with its Source; a bad duration is policy/bad-duration at the field (and no default). */
function runtimeDefault(c: Collector, sd: SourceDoc, path: PathSeg[], value: string | undefined): { runtimeDefault?: { ms: number; src: Source } } {
  if (value === undefined) return {};
  const ms = parseDurationField(c, sd, path, value);
  return ms === undefined ? {} : { runtimeDefault: { ms, src: sourceAt(sd, path) } };
}

/**
 * SEMANTICS 3's ceiling: a resource vector, at least `min` in every resource both name
 * (a resource `min` leaves unbounded may still have a ceiling). Problems are located at
 * the field; the quota then has no ceiling, and loading stops at this stage anyway.
 */
function buildCeiling(c: Collector, sd: SourceDoc, path: PathSeg[], input: QuotaInput, min: Resources): Ceiling | undefined {
  const given = input.max;
  if (!given) return undefined;
  const maxPath = [...path, 'max'];
  if (given.gpu === undefined && given.cpu === undefined && given.memory === undefined) {
    c.error(
      sd,
      maxPath,
      'policy/max-empty',
      `max of quota "${input.name}" names no resource`,
      'give max.gpu (and max.cpu, max.memory where they bound), or remove max: a quota without it has no ceiling',
    );
    return undefined;
  }
  // cpu and memory as quantities, by the reader min uses (a stand-in GPU count: max.gpu is optional).
  const parsed = parseResources(c, sd, maxPath, { gpu: 0, ...(given.cpu === undefined ? {} : { cpu: given.cpu }), ...(given.memory === undefined ? {} : { memory: given.memory }) });
  if (!parsed) return undefined;
  const max: Ceiling = {
    ...(given.gpu === undefined ? {} : { gpu: given.gpu }),
    ...(parsed.cpu === undefined ? {} : { cpu: parsed.cpu }),
    ...(parsed.memory === undefined ? {} : { memory: parsed.memory }),
  };
  let ok = true;
  for (const r of RESOURCE_NAMES) {
    const cap = max[r];
    const floor = min[r];
    if (cap === undefined || floor === undefined || cap >= floor) continue;
    ok = false;
    c.error(
      sd,
      [...maxPath, r],
      'policy/max-below-min',
      `max.${r} of quota "${input.name}" is ${formatAmount(r, cap)}, below its min of ${formatAmount(r, floor)}`,
      `a ceiling is at least the guarantee: raise max.${r} to ${formatAmount(r, floor)} or more, or lower min.${r}`,
    );
  }
  return ok ? max : undefined;
}

/**
 * SEMANTICS 5.2's `borrowing.priority`. A root has no same-level quotas to borrow from,
 * and a range that leaves out part of `highPriority` keeps those jobs from borrowing at
 * all, so their self-level victims on same-level quotas could never make room for them:
 * both are warnings.
 */
function buildBorrowing(c: Collector, sd: SourceDoc, path: PathSeg[], input: QuotaInput, parent: string | null, sp: SelfPreemption | undefined): BorrowingClause | undefined {
  if (!input.borrowing) return undefined;
  const bPath = [...path, 'borrowing'];
  const range = parseRange(c, sd, [...bPath, 'priority'], input.borrowing.priority);
  if (!range) return undefined;
  if (parent === null) {
    c.warn(
      sd,
      bPath,
      'policy/borrowing-on-root',
      `quota "${input.name}" is a root: it has no same-level quotas to borrow from, so borrowing has no effect`,
      "remove borrowing, or set it on the root's children",
    );
  } else if (sp && !(inRange(range, sp.highPriority.lo) && inRange(range, sp.highPriority.hi))) {
    c.warn(
      sd,
      [...bPath, 'priority'],
      'policy/borrowing-narrows-high-priority',
      `borrowing.priority ${formatRange(range)} of "${input.name}" leaves out part of its selfPreemption.highPriority ${formatRange(sp.highPriority)}: those jobs may not borrow, so preempting same-level quotas' jobs cannot make room for them`,
      `widen borrowing.priority to cover ${formatRange(sp.highPriority)} (it widens who borrows; its default is highPriority)`,
    );
  }
  return { priority: range, src: sourceAt(sd, bPath) };
}

/** The queue strategy's parameters with defaults filled in (docs/simulate.md). */
function queueParameters(c: Collector, sd: SourceDoc, path: PathSeg[], input: QuotaInput['queue']): QueueParameters {
  const out = { ...DEFAULT_QUEUE_PARAMETERS };
  if (!input) return out;
  if (input.balanceWindow !== undefined) out.balanceWindow = input.balanceWindow;
  if (input.agingCap !== undefined) out.agingCap = input.agingCap;
  if (input.intelligentFifoFrom !== undefined) out.intelligentFifoFrom = input.intelligentFifoFrom;
  if (input.balanceWidenEvery !== undefined) out.balanceWidenEvery = parseDurationField(c, sd, [...path, 'balanceWidenEvery'], input.balanceWidenEvery) ?? out.balanceWidenEvery;
  if (input.agingInterval !== undefined) out.agingInterval = parseDurationField(c, sd, [...path, 'agingInterval'], input.agingInterval) ?? out.agingInterval;
  return out;
}

/** SEMANTICS 1: the children's `min` must not exceed the parent's, for each resource the parent names. */
function checkChildrenFit(c: Collector, sd: SourceDoc, path: PathSeg[], input: QuotaInput): void {
  const children = input.children ?? [];
  if (children.length === 0 || !input.min) return;
  const parsers = { gpu: (v: unknown) => (typeof v === 'number' ? v : undefined), cpu: parseCpu, memory: parseMemory } as const;
  for (const res of ['gpu', 'cpu', 'memory'] as const) {
    const parentMin = parsers[res](input.min[res]);
    if (parentMin === undefined) continue; // unbounded in this resource, or already reported as malformed
    let sum = 0;
    const parts: string[] = [];
    for (const ch of children) {
      const v = parsers[res](ch.min?.[res]) ?? 0;
      sum += v;
      parts.push(`${ch.name} ${formatAmount(res, v)}`);
    }
    if (sum > parentMin) {
      c.error(
        sd,
        [...path, 'min', res],
        'policy/children-exceed-parent',
        `children of "${input.name}" guarantee ${formatAmount(res, sum)}${res === 'memory' ? ' memory' : ''} in all (${parts.join(' + ')}) but "${input.name}" has only ${formatAmount(res, parentMin)}`,
        `raise ${input.name}'s min.${res} to at least ${formatAmount(res, sum)} or lower the children's`,
      );
    }
  }
}

/** A quota's allowedModules / allowedRoles list, with each value's place. */
function restriction<T>(sd: SourceDoc, path: PathSeg[], values: T[] | undefined): Restriction<T> | undefined {
  if (!values) return undefined;
  return { values: dedupe(values), src: sourceAt(sd, path), items: values.map((value, i) => ({ value, src: sourceAt(sd, [...path, i]) })) };
}

function dedupe<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

/** The policy's typical pods with cpu in millicores and memory in MiB; a bad cpu quantity is a located finding (and the shape is dropped with it). */
function buildWorkload(c: Collector, sd: SourceDoc, input: ReadonlyArray<{ gpu: number; cpu?: number | string; memory?: number | string; weight: number }>): TypicalPod[] {
  const out: TypicalPod[] = [];
  input.forEach((shape, i) => {
    const res = parseResources(c, sd, ['spec', 'placement', 'workload', i], {
      gpu: shape.gpu,
      ...(shape.cpu === undefined ? {} : { cpu: shape.cpu }),
      ...(shape.memory === undefined ? {} : { memory: shape.memory }),
    });
    if (res) out.push({ gpu: shape.gpu, cpu: res.cpu ?? 0, memory: res.memory ?? 0, weight: shape.weight });
  });
  return out;
}
