/**
 * The clauses of a QuotaTree under `rules: kueue` (SEMANTICS 12): ResourceFlavors, and per
 * quota Kueue's ClusterQueue or Cohort spec. Checks Kueue's own validation rules (a
 * flavor lists exactly its group's coveredResources, a resource and a flavor in at most
 * one group, lendingLimit within nominalQuota, borrowingLimit only with a cohort,
 * reclaimWithinCohort Never only with borrowWithinCohort Never), and that PAI's clauses
 * and Kueue's never mix: each family is a located error under the other's rules.
 */
import {
  isGpuResource,
  type KueueFlavor,
  type KueueFlavorResource,
  type KueuePreemptionClause,
  type KueueQuotaClauses,
  type KueueResourceGroup,
} from '../../model/kueue-policy.js';
import { parseCpu, parseMemory } from '../../model/quantity.js';
import type { Resources } from '../../model/resources.js';
import type { Collector } from '../collector.js';
import { buildFairWeight } from './build-fair-sharing.js';
import { sourceAt, type PathSeg, type SourceDoc } from '../parse/source-doc.js';
import type { QuotaInput, QuotaTreeSpec } from '../validate/schema.js';
import { closest } from '../validate/suggest.js';

/** A quota's fields that only PAI's rules read (an error under `rules: kueue`). */
const PAI_QUOTA_FIELDS = ['min', 'max', 'borrowing', 'queueStrategy', 'queue', 'reclaim', 'selfPreemption', 'childPreemption'] as const;
/** A quota's fields that only Kueue's rules read (an error under `rules: pai`). */
const KUEUE_QUOTA_FIELDS = ['resourceGroups', 'preemption', 'flavorFungibility', 'queueingStrategy', 'fairSharing'] as const;
/** The Kueue fields only a ClusterQueue (a leaf) has. */
const CLUSTER_QUEUE_FIELDS = ['preemption', 'flavorFungibility', 'queueingStrategy'] as const;

/** Under `rules: pai`: every Kueue clause of the tree is an error at its field. */
export function refuseKueueClauses(c: Collector, sd: SourceDoc, spec: QuotaTreeSpec): void {
  const hint = 'add "rules: kueue" to the QuotaTree spec to follow Kueue\'s rules, or remove the clause';
  if (spec.flavors) c.error(sd, ['spec', 'flavors'], 'policy/kueue-clause-under-pai', "flavors is a clause of Kueue's rules, and this QuotaTree follows PAI's (rules: pai)", hint, true);
  if (spec.fairSharing) c.error(sd, ['spec', 'fairSharing'], 'policy/kueue-clause-under-pai', "fairSharing is a clause of Kueue's rules, and this QuotaTree follows PAI's (rules: pai)", hint, true);
  const walk = (q: QuotaInput, path: PathSeg[]): void => {
    for (const f of KUEUE_QUOTA_FIELDS)
      if (q[f] !== undefined) c.error(sd, [...path, f], 'policy/kueue-clause-under-pai', `${f} of quota "${q.name}" is a clause of Kueue's rules, and this QuotaTree follows PAI's (rules: pai)`, hint);
    if (q.min === undefined) c.error(sd, path, 'policy/missing-field', `${q.name}: min is required`, 'add "min:" to the quota (its guaranteed gpu, and cpu and memory where they bound)');
    (q.children ?? []).forEach((ch, i) => walk(ch, [...path, 'children', i]));
  };
  spec.quotas.forEach((q, i) => walk(q, ['spec', 'quotas', i]));
}

/** Under `rules: kueue`: the tree-level PAI clause (victimOrder) is an error; the flavors, checked. */
export function buildFlavors(c: Collector, sd: SourceDoc, spec: QuotaTreeSpec): KueueFlavor[] {
  if (spec.victimOrder)
    c.error(
      sd,
      ['spec', 'victimOrder'],
      'policy/pai-clause-under-kueue',
      "victimOrder is a clause of PAI's rules; under rules: kueue victims are chosen by Kueue's algorithm",
      'remove victimOrder, or set "rules: pai"',
      true,
    );
  const out: KueueFlavor[] = [];
  (spec.flavors ?? []).forEach((f, i) => {
    const path: PathSeg[] = ['spec', 'flavors', i];
    if (out.some((o) => o.name === f.name)) {
      c.error(sd, [...path, 'name'], 'policy/kueue-duplicate-flavor', `flavor "${f.name}" is declared twice`, 'each ResourceFlavor has its own name; rename or merge them');
      return;
    }
    out.push({
      name: f.name,
      nodeLabels: { ...(f.nodeLabels ?? {}) },
      nodeTaints: (f.nodeTaints ?? []).map((t) => ({ key: t.key, ...(t.value === undefined ? {} : { value: t.value }), effect: t.effect })),
      src: sourceAt(sd, path),
    });
  });
  return out;
}

/** A quota's Kueue clauses, and its `min` as the sum of its own nominal quota (for the views). */
export function buildKueueQuota(
  c: Collector,
  sd: SourceDoc,
  path: PathSeg[],
  input: QuotaInput,
  parent: string | null,
  flavors: readonly KueueFlavor[],
): { kueue: KueueQuotaClauses; min: Resources } {
  for (const f of PAI_QUOTA_FIELDS) {
    if (input[f] === undefined) continue;
    c.error(
      sd,
      [...path, f],
      'policy/pai-clause-under-kueue',
      `${f} of quota "${input.name}" is a clause of PAI's rules, and this QuotaTree follows Kueue's (rules: kueue)`,
      f === 'min' || f === 'max'
        ? 'give the quota as resourceGroups (nominalQuota, borrowingLimit, lendingLimit per flavor and resource)'
        : f === 'queueStrategy' || f === 'queue'
          ? 'use queueingStrategy: StrictFIFO or BestEffortFIFO'
          : 'use preemption (withinClusterQueue, reclaimWithinCohort, borrowWithinCohort)',
      true,
    );
  }
  const isCohort = (input.children?.length ?? 0) > 0;
  if (isCohort) {
    for (const f of CLUSTER_QUEUE_FIELDS) {
      if (input[f] === undefined) continue;
      c.error(sd, [...path, f], 'policy/kueue-cohort-clause', `quota "${input.name}" has children, so it is a Cohort, and ${f} belongs to a ClusterQueue`, `move ${f} to the ClusterQueues below "${input.name}"`, true);
    }
  }
  const groups = buildResourceGroups(c, sd, path, input, parent, flavors);
  const preemption = isCohort ? undefined : buildPreemption(c, sd, path, input);
  const ff = input.flavorFungibility;
  const fairSharing = buildFairWeight(c, sd, path, input);
  const kueue: KueueQuotaClauses = {
    kind: isCohort ? 'Cohort' : 'ClusterQueue',
    resourceGroups: groups,
    ...(preemption ? { preemption } : {}),
    ...(fairSharing ? { fairSharing } : {}),
    ...(isCohort
      ? {}
      : {
          flavorFungibility: {
            // Kueue's defaults; Borrow and Preempt are the deprecated names of MayStopSearch.
            whenCanBorrow: ff?.whenCanBorrow === 'TryNextFlavor' ? 'TryNextFlavor' : 'MayStopSearch',
            whenCanPreempt: ff?.whenCanPreempt === undefined || ff.whenCanPreempt === 'TryNextFlavor' ? 'TryNextFlavor' : 'MayStopSearch',
            src: sourceAt(sd, ff ? [...path, 'flavorFungibility'] : path),
          },
          queueingStrategy: input.queueingStrategy ?? 'BestEffortFIFO',
        }),
  };
  return { kueue, min: nominalTotals(groups) };
}

/** The sum of a quota's own nominal quota over its flavors, in the model's three resources. */
export function nominalTotals(groups: readonly KueueResourceGroup[]): Resources {
  const out: Resources = { gpu: 0 };
  for (const g of groups)
    for (const f of g.flavors)
      for (const r of f.resources) {
        if (isGpuResource(r.name)) out.gpu += r.nominalQuota;
        else if (r.name === 'cpu') out.cpu = (out.cpu ?? 0) + r.nominalQuota;
        else if (r.name === 'memory') out.memory = (out.memory ?? 0) + r.nominalQuota;
      }
  return out;
}

function buildResourceGroups(c: Collector, sd: SourceDoc, path: PathSeg[], input: QuotaInput, parent: string | null, flavors: readonly KueueFlavor[]): KueueResourceGroup[] {
  const out: KueueResourceGroup[] = [];
  const resourceGroup = new Map<string, number>();
  const flavorGroup = new Map<string, number>();
  (input.resourceGroups ?? []).forEach((g, gi) => {
    const gPath: PathSeg[] = [...path, 'resourceGroups', gi];
    g.coveredResources.forEach((r, ri) => {
      const first = resourceGroup.get(r);
      if (first !== undefined) {
        c.error(
          sd,
          [...gPath, 'coveredResources', ri],
          'policy/kueue-resource-twice',
          first === gi ? `resource "${r}" is listed twice in this group` : `resource "${r}" is covered by resource group ${first + 1} of "${input.name}" already`,
          'a resource belongs to one resource group of a ClusterQueue; list it once',
        );
      } else resourceGroup.set(r, gi);
    });
    const group: KueueResourceGroup = { coveredResources: [...g.coveredResources], flavors: [], src: sourceAt(sd, gPath) };
    g.flavors.forEach((f, fi) => {
      const fPath: PathSeg[] = [...gPath, 'flavors', fi];
      if (!flavors.some((d) => d.name === f.name)) {
        c.error(
          sd,
          [...fPath, 'name'],
          'policy/kueue-unknown-flavor',
          `quota "${input.name}" names flavor "${f.name}", which spec.flavors does not declare`,
          closest(
            f.name,
            flavors.map((d) => d.name),
            'flavor',
          ),
        );
      }
      const firstGroup = flavorGroup.get(f.name);
      if (firstGroup !== undefined) {
        c.error(sd, [...fPath, 'name'], 'policy/kueue-flavor-twice', `flavor "${f.name}" appears twice in the resource groups of "${input.name}"`, 'a flavor belongs to one resource group of a ClusterQueue, once');
      } else flavorGroup.set(f.name, gi);
      const names = f.resources.map((r) => r.name);
      if (names.length !== g.coveredResources.length || names.some((n, i) => n !== g.coveredResources[i])) {
        c.error(
          sd,
          [...fPath, 'resources'],
          'policy/kueue-flavor-resources',
          `flavor "${f.name}" of "${input.name}" lists ${names.join(', ')}, not the group's coveredResources ${g.coveredResources.join(', ')}`,
          `list exactly ${g.coveredResources.join(', ')}, in that order, as Kueue requires`,
          true,
        );
      }
      const resources: KueueFlavorResource[] = [];
      f.resources.forEach((r, ri) => {
        const built = buildFlavorResource(c, sd, [...fPath, 'resources', ri], r, input.name, f.name, parent);
        if (built) resources.push(built);
      });
      group.flavors.push({ name: f.name, resources, src: sourceAt(sd, fPath) });
    });
    out.push(group);
  });
  return out;
}

type ResourceInput = NonNullable<QuotaInput['resourceGroups']>[number]['flavors'][number]['resources'][number];

function buildFlavorResource(c: Collector, sd: SourceDoc, path: PathSeg[], r: ResourceInput, quota: string, flavor: string, parent: string | null): KueueFlavorResource | undefined {
  const nominal = readAmount(c, sd, [...path, 'nominalQuota'], r.name, r.nominalQuota);
  const borrowing = r.borrowingLimit === undefined ? undefined : readAmount(c, sd, [...path, 'borrowingLimit'], r.name, r.borrowingLimit);
  const lending = r.lendingLimit === undefined ? undefined : readAmount(c, sd, [...path, 'lendingLimit'], r.name, r.lendingLimit);
  if (nominal === undefined || (r.borrowingLimit !== undefined && borrowing === undefined) || (r.lendingLimit !== undefined && lending === undefined)) return undefined;
  let ok = true;
  if (lending !== undefined && lending > nominal) {
    ok = false;
    c.error(
      sd,
      [...path, 'lendingLimit'],
      'policy/kueue-lending-above-nominal',
      `lendingLimit of ${r.name} on flavor "${flavor}" of "${quota}" is above its nominalQuota`,
      'a quota lends at most its nominal quota: lower lendingLimit to nominalQuota or less',
    );
  }
  if (parent === null && (borrowing !== undefined || lending !== undefined)) {
    ok = false;
    const field = borrowing !== undefined ? 'borrowingLimit' : 'lendingLimit';
    c.error(
      sd,
      [...path, field],
      'policy/kueue-limit-without-cohort',
      `"${quota}" is in no cohort, so ${field} of ${r.name} on flavor "${flavor}" has nothing to borrow from or lend to`,
      `remove ${field}, or put "${quota}" under a cohort (a parent quota)`,
    );
  }
  if (!ok) return undefined;
  return {
    name: r.name,
    nominalQuota: nominal,
    ...(borrowing === undefined ? {} : { borrowingLimit: borrowing }),
    ...(lending === undefined ? {} : { lendingLimit: lending }),
    src: sourceAt(sd, path),
  };
}

/** A Kubernetes quantity in the model's unit for its resource: GPUs and extended resources as whole counts, cpu in millicores, memory in MiB. */
function readAmount(c: Collector, sd: SourceDoc, path: PathSeg[], resource: string, value: number | string): number | undefined {
  let v: number | undefined;
  let hint: string;
  if (resource === 'cpu') {
    v = parseCpu(value);
    hint = 'write cores (8, 0.5) or millicores (500m)';
  } else if (resource === 'memory') {
    v = parseMemory(value);
    hint = 'write a size with a unit such as 768Gi or 512Mi (a bare number is bytes)';
  } else {
    const n = typeof value === 'number' ? value : /^\d+$/.test(value.trim()) ? Number(value) : NaN;
    v = Number.isSafeInteger(n) && n >= 0 ? n : undefined;
    hint = `${resource} is counted in whole units: write a whole number such as 8`;
  }
  if (v === undefined) c.error(sd, path, 'policy/bad-quantity', `${String(path[path.length - 1])} "${String(value)}" of ${resource} is not a quantity`, hint);
  return v;
}

function buildPreemption(c: Collector, sd: SourceDoc, path: PathSeg[], input: QuotaInput): KueuePreemptionClause {
  const p = input.preemption;
  const clause: KueuePreemptionClause = {
    withinClusterQueue: p?.withinClusterQueue ?? 'Never',
    reclaimWithinCohort: p?.reclaimWithinCohort ?? 'Never',
    borrowWithinCohort: {
      policy: p?.borrowWithinCohort?.policy ?? 'Never',
      ...(p?.borrowWithinCohort?.maxPriorityThreshold === undefined ? {} : { maxPriorityThreshold: p.borrowWithinCohort.maxPriorityThreshold }),
    },
    src: sourceAt(sd, p ? [...path, 'preemption'] : path),
  };
  if (clause.reclaimWithinCohort === 'Never' && clause.borrowWithinCohort.policy !== 'Never') {
    c.error(
      sd,
      [...path, 'preemption', 'borrowWithinCohort', 'policy'],
      'policy/kueue-borrow-without-reclaim',
      `borrowWithinCohort of "${input.name}" is ${clause.borrowWithinCohort.policy} while reclaimWithinCohort is Never`,
      'Kueue refuses this pair: set reclaimWithinCohort to LowerPriority or Any, or borrowWithinCohort.policy to Never',
    );
  }
  return clause;
}
