/**
 * An indexed view of the quota forest: integer ids, parent links and Euler-tour
 * intervals, so that "is V in Q's subtree?" is two comparisons and the path to the root
 * is a short array walk. Built once per policy.
 */
import type { Quota, ReclaimMode } from './policy.js';

/**
 * How a victim's quota relates to the preemptor's (the `relation` fact of the rules):
 * - `self`: the same quota;
 * - `descendant`: strictly below the preemptor's quota (child-level preemption);
 * - `sibling`: a same-level quota (same parent);
 * - `ancestor`: strictly above the preemptor's quota;
 * - `lent`: a quota whose parent is a strict ancestor of the preemptor's, off its path —
 *   a borrower there borrowed through a quota on the preemptor's path;
 * - `other`: anything else (another branch lower down, or another tree).
 */
export const RELATIONS = ['self', 'descendant', 'sibling', 'ancestor', 'lent', 'other'] as const;
export type Relation = (typeof RELATIONS)[number];

export class QuotaTree {
  readonly quotas: Quota[];
  private readonly byName = new Map<string, number>();
  readonly parent: Int32Array;
  readonly depth: Int32Array;
  private readonly tin: Int32Array;
  private readonly tout: Int32Array;

  constructor(quotas: Quota[]) {
    this.quotas = quotas;
    quotas.forEach((q, i) => this.byName.set(q.name, i));
    const n = quotas.length;
    this.parent = new Int32Array(n).fill(-1);
    this.depth = new Int32Array(n);
    this.tin = new Int32Array(n);
    this.tout = new Int32Array(n);
    const children: number[][] = quotas.map(() => []);
    quotas.forEach((q, i) => {
      if (q.parent !== null) {
        const p = this.byName.get(q.parent);
        if (p !== undefined) {
          this.parent[i] = p;
          children[p]!.push(i);
        }
      }
    });
    let clock = 0;
    // Iterative DFS: a deep tree must not overflow the stack.
    for (let root = 0; root < n; root++) {
      if (this.parent[root] !== -1) continue;
      const stack: Array<[number, number]> = [[root, 0]];
      this.tin[root] = clock++;
      while (stack.length) {
        // Every index below is a quota index (< n) by construction: children holds indices
        // from byName, and the stack only ever holds roots and children.
        const top = stack[stack.length - 1]!;
        const [node, next] = top;
        const kids = children[node]!;
        if (next < kids.length) {
          top[1]++;
          const c = kids[next]!;
          this.depth[c] = this.depth[node]! + 1;
          this.tin[c] = clock++;
          stack.push([c, 0]);
        } else {
          this.tout[node] = clock;
          stack.pop();
        }
      }
    }
  }

  /** Index of a quota by name, or -1. */
  indexOf(name: string): number {
    return this.byName.get(name) ?? -1;
  }

  /** The quota called `name` (the policy has been validated, so it exists). */
  get(name: string): Quota {
    const i = this.indexOf(name);
    if (i < 0) throw new Error(`unknown quota ${name}`);
    return this.at(i);
  }

  /** The quota at index `i`; an index out of range is a bug in the caller, never user input. */
  at(i: number): Quota {
    const q = this.quotas[i];
    if (q === undefined) throw new Error(`quota index ${i} out of range (${this.quotas.length} quotas)`);
    return q;
  }

  /** The parent index of quota `i`, or -1 for a root (or an index out of range). */
  parentOf(i: number): number {
    return this.parent[i] ?? -1;
  }

  /** True when `v` is `q` or lies below it. */
  inSubtree(v: number, q: number): boolean {
    const tv = this.tin[v]!; // quota indices, in range
    return this.tin[q]! <= tv && tv < this.tout[q]!;
  }

  /** `q` and its ancestors, from `q` up to the root. */
  pathToRoot(q: number): number[] {
    const path: number[] = [];
    for (let a = q; a !== -1; a = this.parentOf(a)) path.push(a);
    return path;
  }

  /** The relation of victim quota `v` to preemptor quota `q` (see Relation). */
  relation(q: number, v: number): Relation {
    if (v === q) return 'self';
    if (this.inSubtree(v, q)) return 'descendant';
    if (this.inSubtree(q, v)) return 'ancestor';
    const pv = this.parentOf(v);
    if (pv !== -1 && pv === this.parent[q]) return 'sibling';
    if (pv !== -1 && this.inSubtree(q, pv)) return 'lent';
    return 'other';
  }

  /**
   * For a borrower on `v` (relation sibling or lent), the quota on `q`'s path that lent
   * to it: the child of v's parent on the way down to `q`. Its `reclaim` setting decides.
   */
  lender(q: number, v: number): number {
    const pv = this.parent[v];
    let a = q;
    while (a !== -1 && this.parent[a] !== pv) a = this.parentOf(a);
    return a;
  }

  /** The lender's reclaim mode for a borrower on `v`, or undefined when nothing was lent from q's path. */
  lenderReclaim(q: number, v: number): ReclaimMode | undefined {
    const rel = this.relation(q, v);
    if (rel !== 'sibling' && rel !== 'lent') return undefined;
    const l = this.lender(q, v);
    return l === -1 ? undefined : this.at(l).reclaim;
  }

  /** Names of `q` and its ancestors, for messages. */
  pathNames(q: number): string[] {
    return this.pathToRoot(q).map((i) => this.at(i).name);
  }
}
