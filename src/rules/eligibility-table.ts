/**
 * The store of eligibility tables: for one preemptor class (quota, priority, target
 * standing) the rules are run once over every victim fact combination and the answers
 * stored in a table (eligibility-lookup.ts) that victim selection reads in O(1) per
 * candidate. Tables are made on first use and cached.
 *
 * Its own room because it decides which rules a class ranks (`ruleApplies`,
 * `relevantRules`) and which way its table is made: by the tabulator (tabulate.ts, with
 * each rule judged once by judge-rule.ts) when every rule has a predicate, else by
 * running json-rules-engine on every combination. The table and the helpers it uses
 * have rooms of their own; importers reach them all through this file.
 */
import type { QuotaTree } from '../model/quota-tree.js';
import type { CompiledRule } from './compile-rules.js';
import { EligibilityTable, type QuotaKeys } from './eligibility-lookup.js';
import { eligibleBy, makeEngine } from './evaluate-rules.js';
import { victimCombos, type RelationKey } from './facts.js';
import { RuleJudge } from './judge-rule.js';
import { keyPassOf, Tabulator, type ClassRules } from './tabulate.js';

export { EligibilityTable, type QuotaKeys } from './eligibility-lookup.js';

/**
 * The standing a preemptor would run in. Reclaim of idle capacity serves both (SEMANTICS
 * 4: every job that runs on quota); reclaim of a lent share serves only `in-quota`.
 */
export type PreemptorTarget = 'in-quota' | 'borrowing';

/**
 * Whether rule `r` can make victims for a preemptor whose quota path (itself first) is
 * `path`, aiming at `target`. The json-rules-engine conditions decide the rest; this only
 * skips rules that name another quota, and reclaim of a lent share for borrowing targets.
 */
export function ruleApplies(r: CompiledRule, path: string[], target: PreemptorTarget): boolean {
  // SEMANTICS 4 and 5.1: idle capacity returns to whoever in the quota tree claims it,
  // in quota or borrowing by 5.2 (invariant 6); a lent share only to its owner's in-quota jobs.
  if (r.kind === 'reclaim-idle') return true;
  if (r.kind === 'reclaim-borrowed') return target === 'in-quota' && path.includes(r.quota);
  return r.quota === path[0];
}

/**
 * Makes and caches tables for a policy's rules. Tables share rows and whole cell arrays
 * where they provably agree (tabulate.ts); test/unit/rules/table-sharing.test.ts pins it,
 * and invariant 9's property holds every table, shared or not, to the engine.
 */
export class EligibilityTables {
  /** Tables by class: (quota * 10 + priority) * 2 + (borrowing ? 1 : 0) for priorities 0..9 (all the model has), text otherwise. */
  private readonly cache = new Map<number | string, Promise<EligibilityTable>>();
  /** Position of each rule in `rules`: a cell stores it + 1. */
  private readonly ruleIndex: Map<CompiledRule, number>;
  /** Every rule judged once (predicate, victim-only answers, shape), for every table. */
  private readonly judge = new RuleJudge();
  /** Per preemptor quota: its relation keys (shared by its tables). */
  private readonly keysByQuota = new Map<number, QuotaKeys>();
  /** Per quota * 2 + (borrowing ? 1 : 0): the rules that can fire, ranked. */
  private readonly classRulesCache = new Map<number, ClassRules>();
  /** Computes and shares the cells of the tables every rule has a predicate for. */
  private readonly tabulator = new Tabulator();
  /** How many tables were tabulated without running the engine (tests assert the fast path ran). */
  fastTables = 0;

  constructor(
    private readonly rules: CompiledRule[],
    private readonly tree: QuotaTree,
  ) {
    this.ruleIndex = new Map(rules.map((r, i) => [r, i]));
  }

  /** How much the fast path shared: rows computed, distinct cell arrays made (the rest of the tables reuse one). */
  get shared(): { rows: number; cellArrays: number } {
    return this.tabulator.shared;
  }

  /** Every (relation, lender) a victim quota can have relative to `quota`. */
  relationKeys(quota: number): RelationKey[] {
    const name = this.tree.at(quota).name;
    const keys: RelationKey[] = [
      { relation: 'self', lender: '' },
      { relation: 'descendant', lender: '' },
      { relation: 'ancestor', lender: '' },
      { relation: 'other', lender: '' },
    ];
    if (this.tree.parent[quota] !== -1) keys.push({ relation: 'sibling', lender: name });
    // A borrower whose parent is a strict ancestor of `quota` borrowed through the
    // non-root ancestor of `quota` that is its sibling: that ancestor is the lender.
    for (let a = this.tree.parentOf(quota); a !== -1 && this.tree.parentOf(a) !== -1; a = this.tree.parentOf(a)) {
      keys.push({ relation: 'lent', lender: this.tree.at(a).name });
    }
    return keys;
  }

  /**
   * The table for preemptor class (quota, priority, target standing). A job that would
   * run `borrowing` is not admissible in quota, so reclaim of a lent share — which serves
   * only jobs taking back their own guarantee (SEMANTICS 5.1) — is left out of its
   * table; a victim that rule and a self-level clause both allow then stays eligible
   * under the clause. Reclaim of idle capacity is in both tables (SEMANTICS 4).
   */
  tableFor(quota: number, priority: number, target: PreemptorTarget = 'in-quota'): Promise<EligibilityTable> {
    const id = Number.isInteger(priority) && priority >= 0 && priority <= 9 ? (quota * 10 + priority) * 2 + (target === 'borrowing' ? 1 : 0) : `${quota}/${priority}/${target}`;
    let t = this.cache.get(id);
    if (!t) {
      t = this.build(quota, priority, target);
      this.cache.set(id, t);
    }
    return t;
  }

  /** The rules that can fire for preemptors on `quota` aiming at `target`: the others name another quota. */
  relevantRules(quota: number, target: PreemptorTarget = 'in-quota'): CompiledRule[] {
    const path = this.tree.pathNames(quota);
    // Only rules naming a quota on the path (or none) can apply: look those up by name
    // rather than scanning every rule (a 1,000-quota policy has thousands), keeping rule order.
    const byQuota = this.rulesByQuota();
    const near: number[] = [...(byQuota.get('') ?? [])];
    for (const name of path) for (const i of byQuota.get(name) ?? []) near.push(i);
    near.sort((a, b) => a - b);
    const out: CompiledRule[] = [];
    for (const i of near) {
      const r = this.rules[i]!; // an index into rules, from rulesByQuota
      if (ruleApplies(r, path, target)) out.push(r);
    }
    return out;
  }

  private byQuota?: Map<string, number[]>;

  /** The rules' indices grouped by the quota they name ('' for built-in rules naming none), in rule order. */
  private rulesByQuota(): Map<string, number[]> {
    if (!this.byQuota) {
      this.byQuota = new Map();
      this.rules.forEach((r, i) => {
        const list = this.byQuota!.get(r.quota);
        if (list) list.push(i);
        else this.byQuota!.set(r.quota, [i]);
      });
    }
    return this.byQuota;
  }

  /** The quota's relation keys, made once and shared by its tables. */
  private quotaKeys(quota: number): QuotaKeys {
    let k = this.keysByQuota.get(quota);
    if (!k) {
      k = { keys: this.relationKeys(quota) };
      this.keysByQuota.set(quota, k);
    }
    return k;
  }

  /** The ranked rules of (quota, target), made once for all nine priorities. */
  private classRules(quota: number, target: PreemptorTarget): ClassRules {
    const id = quota * 2 + (target === 'borrowing' ? 1 : 0);
    let c = this.classRulesCache.get(id);
    if (!c) {
      const ranked = this.relevantRules(quota, target).sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const judged = ranked.map((r) => this.judge.judge(r));
      const all = judged.every((j) => j !== null) ? judged : undefined;
      c = {
        ranked,
        cell: ranked.map((r) => this.ruleIndex.get(r)! + 1),
        judged: all,
        // Without predicates the engine reads every fact: assume the priority matters.
        readsPriority: !all || all.some((j) => j.pred.reads.includes('preemptorPriority')),
        keyPass: all && keyPassOf(all, this.quotaKeys(quota).keys, this.tree.at(quota).name),
      };
      this.classRulesCache.set(id, c);
    }
    return c;
  }

  private build(quota: number, priority: number, target: PreemptorTarget): Promise<EligibilityTable> {
    const keys = this.quotaKeys(quota);
    const cls = this.classRules(quota, target);
    const preemptorQuota = this.tree.at(quota).name;
    const table = (cells: Uint16Array): EligibilityTable => {
      const tables = (keys.tables ??= new Map<Uint16Array, EligibilityTable>());
      let t = tables.get(cells);
      if (!t) {
        t = new EligibilityTable(quota, keys, cells, this.rules, this.tree);
        tables.set(cells, t);
      }
      return t;
    };
    if (!cls.judged) return this.tabulateByEngine(cls.ranked, keys.keys, preemptorQuota, priority).then(table);
    this.fastTables++;
    if (cls.readsPriority) return Promise.resolve(table(this.tabulator.tabulate(cls, cls.judged, keys.keys, preemptorQuota, priority)));
    return Promise.resolve(table((cls.anyPriority ??= this.tabulator.tabulate(cls, cls.judged, keys.keys, preemptorQuota, priority))));
  }

  /** Fills the cells by running json-rules-engine on every fact combination. */
  private async tabulateByEngine(relevant: CompiledRule[], keys: RelationKey[], preemptorQuota: string, priority: number): Promise<Uint16Array> {
    const engine = makeEngine(relevant);
    const combos = victimCombos();
    const cells = new Uint16Array(keys.length * combos.length);
    for (let k = 0; k < keys.length; k++) {
      for (let i = 0; i < combos.length; i++) {
        const rule = await eligibleBy(engine, relevant, { preemptorQuota, preemptorPriority: priority, ...keys[k]!, ...combos[i]! });
        cells[k * combos.length + i] = rule ? this.ruleIndex.get(rule)! + 1 : 0;
      }
    }
    return cells;
  }
}
