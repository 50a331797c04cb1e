/**
 * Kueue's quota arithmetic over the cohort tree (SEMANTICS 12), after Kueue's
 * pkg/cache/scheduler resource_node.go at ff69552: subtree quota, the part of a node's
 * quota its lendingLimit keeps local, usage that bubbles up to the parent only past that
 * local part, and what a ClusterQueue can still take (`available`) with every
 * borrowingLimit along its path to the root.
 *
 * Two layers, so that trying many victims never copies the state:
 * - `KueueQuotaTree` is what does not change while one answer is decided: the tree,
 *   quotas, subtree quotas, local quotas and the usage of the admitted workloads. It is
 *   built once per KueueState (cached on the object).
 * - `UsageLedger` is one answer's scratch: the tree's usage plus a sparse overlay of
 *   deltas. Removing or adding a workload touches only its flavor-resources on its path
 *   to the root, as Kueue's own snapshot does, and every change can be undone.
 *
 * Amounts are plain numbers; a missing quota is 0 and a missing limit is no limit, as in
 * Kueue. Nothing here knows about priorities or policies: that is classic-preemption.ts's
 * and fair-share.ts's business.
 */
import type { FlavorResource, KueueQuotaNode, KueueResourceQuota, KueueState, KueueWorkload } from './kueue-state.js';

/** One node's fixed numbers (a ClusterQueue's subtree quota is its nominal quota). */
interface NodeFacts {
  node: KueueQuotaNode;
  parent: NodeFacts | null;
  depth: number;
  /** Own quota plus what the children pass up (their subtree quota past their local part). */
  subtreeQuota: Map<FlavorResource, number>;
  /** The part of subtreeQuota that lendingLimit keeps away from the parent. */
  localQuota: Map<FlavorResource, number>;
  /** Usage of the admitted workloads as Kueue counts it at this node (see UsageLedger). */
  baseUsage: Map<FlavorResource, number>;
  childCohorts: NodeFacts[];
  childQueues: NodeFacts[];
}

const ZERO_QUOTA: KueueResourceQuota = { nominal: 0 };

/** The fixed part of the arithmetic for one KueueState: tree, quotas and admitted usage. */
export class KueueQuotaTree {
  private readonly facts = new Map<string, NodeFacts>();
  private readonly workloadsByQueue = new Map<string, KueueWorkload[]>();

  private constructor(readonly state: KueueState) {
    for (const node of state.nodes.values()) {
      this.facts.set(node.name, {
        node,
        parent: null,
        depth: 0,
        subtreeQuota: new Map(),
        localQuota: new Map(),
        baseUsage: new Map(),
        childCohorts: [],
        childQueues: [],
      });
    }
    for (const f of this.facts.values()) {
      const parentName = f.node.parent;
      if (parentName === null) continue;
      const parent = this.facts.get(parentName);
      if (parent === undefined) throw new Error(`kueue/unknown-parent: ${f.node.kind} ${f.node.name} names parent ${parentName}, which is not in the state`);
      f.parent = parent;
    }
    // Children in the parent's declared order, then any whose parent did not list them.
    const placed = new Set<NodeFacts>();
    const adopt = (parent: NodeFacts, c: NodeFacts): void => {
      placed.add(c);
      (c.node.kind === 'Cohort' ? parent.childCohorts : parent.childQueues).push(c);
    };
    for (const f of this.facts.values()) {
      for (const name of f.node.children) {
        const c = this.facts.get(name);
        if (c !== undefined && c.parent === f && !placed.has(c)) adopt(f, c);
      }
    }
    for (const c of this.facts.values()) if (c.parent !== null && !placed.has(c)) adopt(c.parent, c);
    for (const f of this.facts.values()) {
      let depth = 0;
      const seen = new Set<NodeFacts>([f]);
      for (let p = f.parent; p !== null; p = p.parent) {
        if (seen.has(p)) throw new Error(`kueue/cohort-cycle: the cohort tree has a cycle through ${p.node.name}`);
        seen.add(p);
        depth++;
      }
      f.depth = depth;
    }
    for (const w of state.workloads) {
      if (this.facts.get(w.clusterQueue)?.node.kind !== 'ClusterQueue') {
        throw new Error(`kueue/unknown-cluster-queue: workload ${w.name} is admitted to ${w.clusterQueue}, which is not a ClusterQueue of the state`);
      }
      const list = this.workloadsByQueue.get(w.clusterQueue) ?? [];
      list.push(w);
      this.workloadsByQueue.set(w.clusterQueue, list);
      const usage = this.facts.get(w.clusterQueue)!.baseUsage;
      for (const [fr, v] of w.usage) usage.set(fr, (usage.get(fr) ?? 0) + v);
    }
    for (const root of this.roots()) accumulate(root);
  }

  private static readonly cache = new WeakMap<KueueState, KueueQuotaTree>();

  /** The tree of a state, built once and cached on the (immutable) state object. */
  static of(state: KueueState): KueueQuotaTree {
    let tree = KueueQuotaTree.cache.get(state);
    if (tree === undefined) {
      tree = new KueueQuotaTree(state);
      KueueQuotaTree.cache.set(state, tree);
    }
    return tree;
  }

  private get(name: string): NodeFacts {
    const f = this.facts.get(name);
    if (f === undefined) throw new Error(`kueue/unknown-node: no ClusterQueue or Cohort named ${name}`);
    return f;
  }

  private roots(): NodeFacts[] {
    return [...this.facts.values()].filter((f) => f.parent === null);
  }

  has(name: string): boolean {
    return this.facts.has(name);
  }

  node(name: string): KueueQuotaNode {
    return this.get(name).node;
  }

  /** The parent Cohort's name, or null at a root. */
  parentOf(name: string): string | null {
    return this.get(name).parent?.node.name ?? null;
  }

  /** The Cohorts above a node, nearest first (Kueue's PathParentToRoot). */
  pathToRoot(name: string): string[] {
    const out: string[] = [];
    for (let p = this.get(name).parent; p !== null; p = p.parent) out.push(p.node.name);
    return out;
  }

  rootOf(name: string): string {
    let f = this.get(name);
    while (f.parent !== null) f = f.parent;
    return f.node.name;
  }

  depthOf(name: string): number {
    return this.get(name).depth;
  }

  childCohorts(name: string): string[] {
    return this.get(name).childCohorts.map((c) => c.node.name);
  }

  childClusterQueues(name: string): string[] {
    return this.get(name).childQueues.map((c) => c.node.name);
  }

  /** Every ClusterQueue under a node (itself if it is one): own children first, then each child Cohort's. */
  subtreeClusterQueues(name: string): string[] {
    const f = this.get(name);
    if (f.node.kind === 'ClusterQueue') return [f.node.name];
    const out: string[] = [];
    const walk = (c: NodeFacts): void => {
      for (const q of c.childQueues) out.push(q.node.name);
      for (const h of c.childCohorts) walk(h);
    };
    walk(f);
    return out;
  }

  /** The admitted workloads of a ClusterQueue, in the state's order. */
  workloadsOf(clusterQueue: string): readonly KueueWorkload[] {
    return this.workloadsByQueue.get(clusterQueue) ?? [];
  }

  /** The node's own quota for a flavor-resource (nominal 0, no limits, when it has none). */
  quota(name: string, fr: FlavorResource): KueueResourceQuota {
    return this.get(name).node.quota.get(fr) ?? ZERO_QUOTA;
  }

  subtreeQuota(name: string, fr: FlavorResource): number {
    return this.get(name).subtreeQuota.get(fr) ?? 0;
  }

  /** The flavor-resources a node's subtree has quota for (Kueue's SubtreeQuota keys). */
  subtreeFlavorResources(name: string): FlavorResource[] {
    return [...this.get(name).subtreeQuota.keys()];
  }

  /** Quota visible only inside the node's subtree: subtree quota past the lendingLimit. */
  localQuota(name: string, fr: FlavorResource): number {
    return this.get(name).localQuota.get(fr) ?? 0;
  }

  /** Usage of the admitted workloads at a node, before any simulated change. */
  baseUsage(name: string, fr: FlavorResource): number {
    return this.get(name).baseUsage.get(fr) ?? 0;
  }

  /** A fresh scratch ledger for one answer. */
  ledger(): UsageLedger {
    return new UsageLedger(this);
  }

  /** @internal the ledger walks facts directly to stay cheap. */
  factsOf(name: string): NodeFacts {
    return this.get(name);
  }
}

/** Kueue's updateCohortResourceNode: subtree quota and usage from the leaves up. */
function accumulate(f: NodeFacts): void {
  for (const [fr, q] of f.node.quota) f.subtreeQuota.set(fr, q.nominal);
  for (const child of [...f.childCohorts, ...f.childQueues]) {
    if (child.node.kind === 'Cohort') accumulate(child);
    else for (const [fr, q] of child.node.quota) child.subtreeQuota.set(fr, q.nominal);
    setLocalQuota(child);
    for (const [fr, sq] of child.subtreeQuota) f.subtreeQuota.set(fr, (f.subtreeQuota.get(fr) ?? 0) + sq - (child.localQuota.get(fr) ?? 0));
    for (const [fr, u] of child.baseUsage) {
      f.baseUsage.set(fr, (f.baseUsage.get(fr) ?? 0) + Math.max(0, u - (child.localQuota.get(fr) ?? 0)));
    }
  }
  if (f.parent === null) setLocalQuota(f);
}

function setLocalQuota(f: NodeFacts): void {
  for (const [fr, sq] of f.subtreeQuota) {
    const lending = f.node.quota.get(fr)?.lendingLimit;
    f.localQuota.set(fr, lending === undefined ? 0 : Math.max(0, sq - lending));
  }
}

/** A map of per-flavor-resource amounts, as a workload's usage or a remainder. */
export type FlavorResourceAmounts = ReadonlyMap<FlavorResource, number>;

/**
 * One answer's usage: the tree's admitted usage plus a sparse overlay of changes, with
 * Kueue's add/remove bubbling (usage passes to the parent only past the local quota).
 * Every change is reversible (`removeWorkload` then `addWorkload` restores it exactly).
 */
export class UsageLedger {
  /** node name -> flavor-resource -> delta from the tree's base usage. */
  private readonly delta = new Map<string, Map<FlavorResource, number>>();

  constructor(readonly tree: KueueQuotaTree) {}

  usage(name: string, fr: FlavorResource): number {
    return this.tree.baseUsage(name, fr) + (this.delta.get(name)?.get(fr) ?? 0);
  }

  private bump(name: string, fr: FlavorResource, by: number): void {
    let d = this.delta.get(name);
    if (d === undefined) {
      d = new Map();
      this.delta.set(name, d);
    }
    d.set(fr, (d.get(fr) ?? 0) + by);
  }

  /** Quota at a node not yet used and not visible to its parent (Kueue's LocalAvailable). */
  localAvailable(name: string, fr: FlavorResource): number {
    return Math.max(0, this.tree.localQuota(name, fr) - this.usage(name, fr));
  }

  /** Add usage at a ClusterQueue (or Cohort), passing to the parent what exceeds the local part. */
  addUsage(name: string, fr: FlavorResource, val: number): void {
    let node: NodeFacts | null = this.tree.factsOf(name);
    let v = val;
    while (node !== null) {
      const localAvailable = this.localAvailable(node.node.name, fr);
      this.bump(node.node.name, fr, v);
      if (node.parent === null || v <= localAvailable) return;
      v -= localAvailable;
      node = node.parent;
    }
  }

  /** Remove usage, taking back from the parent only what this node had stored there. */
  removeUsage(name: string, fr: FlavorResource, val: number): void {
    let node: NodeFacts | null = this.tree.factsOf(name);
    let v = val;
    while (node !== null) {
      const storedInParent = this.usage(node.node.name, fr) - this.tree.localQuota(node.node.name, fr);
      this.bump(node.node.name, fr, -v);
      if (storedInParent <= 0 || node.parent === null) return;
      v = Math.min(v, storedInParent);
      node = node.parent;
    }
  }

  /** Add a whole usage map at a ClusterQueue. */
  add(clusterQueue: string, usage: FlavorResourceAmounts): void {
    for (const [fr, v] of usage) this.addUsage(clusterQueue, fr, v);
  }

  remove(clusterQueue: string, usage: FlavorResourceAmounts): void {
    for (const [fr, v] of usage) this.removeUsage(clusterQueue, fr, v);
  }

  addWorkload(w: KueueWorkload): void {
    this.add(w.clusterQueue, w.usage);
  }

  removeWorkload(w: KueueWorkload): void {
    this.remove(w.clusterQueue, w.usage);
  }

  /**
   * What a ClusterQueue (or Cohort) can still take of a flavor-resource: its local free
   * quota plus what the parent can give, capped by the borrowingLimit (Kueue's available;
   * may be negative when over-admitted).
   */
  rawAvailable(name: string, fr: FlavorResource): number {
    const f = this.tree.factsOf(name);
    const subtree = f.subtreeQuota.get(fr) ?? 0;
    if (f.parent === null) return subtree - this.usage(name, fr);
    let parentAvailable = this.rawAvailable(f.parent.node.name, fr);
    const borrowingLimit = f.node.quota.get(fr)?.borrowingLimit;
    if (borrowingLimit !== undefined) {
      const lq = f.localQuota.get(fr) ?? 0;
      const storedInParent = subtree - lq;
      const usedInParent = Math.max(0, this.usage(name, fr) - lq);
      parentAvailable = Math.min(storedInParent - usedInParent + borrowingLimit, parentAvailable);
    }
    return this.localAvailable(name, fr) + parentAvailable;
  }

  /** Kueue's ClusterQueueSnapshot.Available: rawAvailable, never below 0. */
  available(name: string, fr: FlavorResource): number {
    return Math.max(0, this.rawAvailable(name, fr));
  }

  /** The most a node could ever get with no usage anywhere, within its borrowingLimits. */
  potentialAvailable(name: string, fr: FlavorResource): number {
    const f = this.tree.factsOf(name);
    const subtree = f.subtreeQuota.get(fr) ?? 0;
    if (f.parent === null) return subtree;
    let avail = (f.localQuota.get(fr) ?? 0) + this.potentialAvailable(f.parent.node.name, fr);
    const borrowingLimit = f.node.quota.get(fr)?.borrowingLimit;
    if (borrowingLimit !== undefined) avail = Math.min(subtree + borrowingLimit, avail);
    return avail;
  }

  /**
   * Whether the node's usage plus `extra` is above its quota (a ClusterQueue's nominal, a
   * Cohort's subtree quota): Kueue's BorrowingWith; `isBorrowing(n, fr)` is Borrowing.
   */
  isBorrowing(name: string, fr: FlavorResource, extra = 0): boolean {
    return this.tree.subtreeQuota(name, fr) < this.usage(name, fr) + extra;
  }

  /** Kueue's IsWithinNominalInResources: usage at most the subtree quota on every one of frs. */
  isWithinNominal(name: string, frs: Iterable<FlavorResource>): boolean {
    for (const fr of frs) if (this.isBorrowing(name, fr)) return false;
    return true;
  }

  /**
   * Kueue's QuantitiesFitInQuota: whether `requests` fit in the node's subtree quota on top
   * of its usage, and what of them is left once the node's local free quota is used.
   */
  fitsInQuota(name: string, requests: FlavorResourceAmounts): { fits: boolean; remaining: Map<FlavorResource, number> } {
    let fits = true;
    const remaining = new Map<FlavorResource, number>();
    for (const [fr, v] of requests) {
      if (this.tree.subtreeQuota(name, fr) < this.usage(name, fr) + v) fits = false;
      remaining.set(fr, Math.max(0, v - this.localAvailable(name, fr)));
    }
    return { fits, remaining };
  }

  /** Whether `usage` fits what the ClusterQueue can take now, every flavor-resource of it. */
  fits(clusterQueue: string, usage: FlavorResourceAmounts): boolean {
    for (const [fr, v] of usage) if (v > this.available(clusterQueue, fr)) return false;
    return true;
  }
}
