/**
 * The store of eligibility tables: for one preemptor class (quota, priority, target
 * standing) the rules are run once over every victim fact combination and the answers
 * stored in a table (eligibility-lookup.ts) that victim selection reads in O(1) per
 * candidate. Tables are made on first use, shared between classes with the same cells,
 * and cached. Which rules a class considers is rule-ties.ts's prefilter, then the
 * rules' own conditions: by each rule's predicate (rule-predicate.ts) when every rule has
 * one, else by running json-rules-engine on every combination.
 */
import type { Engine } from 'json-rules-engine';
import type { QuotaTree } from '../model/quota-tree.js';
import type { CompiledRule } from './compile-rules.js';
import { eligibleBy, makeEngine } from './evaluate-rules.js';
import { COMBOS_PER_RELATION, victimCombos, preemptorFacts, type EligibilityFacts, type PreemptorTarget, type RelationKey } from './facts.js';
import { BorrowingTable } from './borrowing-table.js';
import { EligibilityTable, type QuotaKeys } from './eligibility-lookup.js';
import { mayFireOn } from './rule-ties.js';
import { rulePredicate, type RulePredicate } from './rule-predicate.js';
import { trieStep, type TrieNode } from './value-trie.js';

export { EligibilityTable, type QuotaKeys } from './eligibility-lookup.js';
export { mayFireOn } from './rule-ties.js';

export type { PreemptorTarget } from './facts.js';

/**
 * Cell storage for rows, patterns and tables: views into shared chunks, because creating
 * a typed array with its own buffer costs about a microsecond (B7 makes ~12,000 of
 * them). Views are never written after they are filled, and a chunk lives while any of
 * its views does.
 */
class CellPool {
  private chunk = new Uint16Array(0);
  private used = 0;

  /** A zeroed view of `length` cells. */
  take(length: number): Uint16Array {
    if (this.used + length > this.chunk.length) {
      // Chunks grow from 8 KiB to 128 KiB: a small policy's few tables take little.
      this.chunk = new Uint16Array(Math.max(length, Math.min(2 * this.chunk.length || 1 << 12, 1 << 16)));
      this.used = 0;
    }
    const view = this.chunk.subarray(this.used, this.used + length);
    this.used += length;
    return view;
  }
}

/** Between a victim-only shape and a mixed one (where a shape would go on with a fact's name). */
const MIXED_SHAPE = Symbol('mixed');

/** Ends the passing rules' cells in a row's name, before the facts their mixed conditions read (cells are ≥ 1). */
const END_OF_RULES = -1;

/** A rule's predicate and, per victim combination, its victim-only answer. */
interface Judged {
  pred: RulePredicate;
  victimOk: Uint8Array;
  /** Equal for two rules whose victim-only and mixed conditions are the same text (rule-predicate.ts): they answer alike per victim. */
  shape: number;
}

/**
 * The rules that can fire for one preemptor quota and target, in precedence order (order,
 * then name, as `eligibleBy`), each with the cell that names it (rule index + 1) and its
 * predicate; `judged` is undefined when some rule has a shape only the engine evaluates.
 */
interface ClassRules {
  ranked: CompiledRule[];
  cell: number[];
  judged?: Judged[];
  /**
   * Whether some rule reads the preemptor's priority. When none does, the class's nine
   * priorities have one table — the facts a table depends on are then the same for all
   * of them — kept here once made.
   */
  readsPriority: boolean;
  anyPriority?: Uint16Array;
  /**
   * Per (rule, key) — `keyPass[r * keys + k]` — whether the rule's key conditions hold:
   * 0 when those that do not read the preemptor's priority fail, else 1 when none reads
   * it (the same for the class's nine tables), 2 when some do (judged per table).
   */
  keyPass?: Uint8Array;
  /**
   * Per key, its row once made when that row cannot depend on the priority (no rule is
   * judged per table there and none that passes compares the victim with the priority):
   * the class's other tables take it without walking the rules again.
   */
  samePerPriority?: Array<{ id: number; row: Uint16Array } | null | undefined>;
}

/** `keyPass` value of a rule whose key conditions read the preemptor's priority. */
const PER_PRIORITY = 2;

/**
 * Makes and caches tables for a policy's rules.
 *
 * Sharing (B7: a 1,000-quota policy has 9,099 preemptor classes, ~73,000 rows of 81
 * cells): a table is one row per relation key, and a row is a function of (a) the rules
 * whose key conditions hold for that key — each rule fixes its cell value, its
 * victim-only answers and its mixed conditions — and (b) the values of the non-victim
 * facts those mixed conditions read (rule-predicate.ts `mixedReads`). Rows are cached
 * under exactly that, computed once, and a table whose rows are all the same as an
 * earlier table's reuses its cell array: e.g. the nine priorities of a quota no rule
 * reads the preemptor's priority for share one array. test/unit/rules/table-sharing.test.ts
 * pins it; invariant 9's property holds every table, shared or not, to the engine.
 */
export class EligibilityTables {
  /** Tables by class: (quota * 10 + priority) * 2 + (borrowing ? 1 : 0) for priorities 0..9 (all the model has), text otherwise. */
  private readonly cache = new Map<number | string, Promise<EligibilityTable>>();
  /** Position of each rule in `rules`: a cell stores it + 1. */
  private readonly ruleIndex: Map<CompiledRule, number>;
  /** Per rule: its predicate and victim-only answers (null when only the engine can evaluate it). */
  private readonly predicates = new Map<CompiledRule, Judged | null>();
  /**
   * Shapes (rule-predicate.ts): at the end of a victim-only shape its answers, and after
   * MIXED_SHAPE and the mixed shape an id. Thousands of rules have a handful of shapes;
   * a rule whose shape holds an object gets answers and an id of its own.
   */
  private readonly shapes: TrieNode<{ victimOk?: Uint8Array; shape?: number }> = {};
  private shapeCount = 0;
  /**
   * Row patterns by the shapes of the passing rules and the facts their mixed conditions
   * read: per victim combination, 0 or the position + 1 of the winning rule among the
   * passing ones. Rows of different rules with the same shapes (each quota's
   * selfPreemption over the same ranges, say) map one pattern to their own cells.
   */
  private readonly patterns: TrieNode<Uint16Array> = {};
  /** An engine with no rules, made on first use: its operator map judges every condition of the fast path. */
  private operatorEngineMade?: Engine;
  private get operatorEngine(): Engine {
    return (this.operatorEngineMade ??= makeEngine([]));
  }
  /** Per preemptor quota: its relation keys (shared by its tables). */
  private readonly keysByQuota = new Map<number, QuotaKeys>();
  /** Per quota * 2 + (borrowing ? 1 : 0): the rules that can fire, ranked. */
  private readonly classRulesCache = new Map<number, ClassRules>();
  /** Where rows, patterns and cell arrays live. */
  private readonly pool = new CellPool();
  /** Rows by what determines them (see the class comment), each with a small id for table keys. */
  private readonly rows: TrieNode<{ id: number; row: Uint16Array }> = {};
  private rowCount = 0;
  /** Cell arrays by their rows' ids: tables with the same rows share one. */
  private readonly cellsByRows: TrieNode<Uint16Array> = {};
  private cellArrayCount = 0;
  /** How many tables were tabulated without running the engine (tests assert the fast path ran). */
  fastTables = 0;
  /** Who may run borrowing (SEMANTICS 5.2): the `borrow` rules, per (quota, priority). */
  readonly borrowing: BorrowingTable;

  constructor(
    private readonly rules: CompiledRule[],
    private readonly tree: QuotaTree,
  ) {
    this.ruleIndex = new Map(rules.map((r, i) => [r, i]));
    this.borrowing = new BorrowingTable(rules, tree);
  }

  /** How much the fast path shared: rows computed, distinct cell arrays made (the rest of the tables reuse one). */
  get shared(): { rows: number; cellArrays: number } {
    return { rows: this.rowCount, cellArrays: this.cellArrayCount };
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
   * only jobs taking back their own guarantee (SEMANTICS 5.1; the rule's `preemptorTarget`
   * condition) — never fires in its table; a victim that rule and a self-level clause
   * both allow then stays eligible under the clause. Reclaim of idle capacity fires in
   * both tables (SEMANTICS 4).
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

  /** The rules that can fire for preemptors on `quota` (mayFireOn): the others are tied to another quota. */
  relevantRules(quota: number): CompiledRule[] {
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
      if (mayFireOn(r, path)) out.push(r);
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
      const ranked = this.relevantRules(quota).sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const judged = ranked.map((r) => this.predicateOf(r));
      const all = judged.every((j) => j !== null) ? judged : undefined;
      c = {
        ranked,
        cell: ranked.map((r) => this.ruleIndex.get(r)! + 1),
        judged: all,
        // Without predicates the engine reads every fact: assume the priority matters.
        readsPriority: !all || all.some((j) => j.pred.reads.includes('preemptorPriority')),
        keyPass: all && this.keyPass(all, quota, target),
      };
      this.classRulesCache.set(id, c);
    }
    return c;
  }

  /**
   * `ClassRules.samePerPriority` before any row is made: null for a key whose row is the
   * same at every priority (to be filled), undefined for one judged per table.
   */
  private samePerPriority(judged: Judged[], keyPass: Uint8Array, keys: number): Array<{ id: number; row: Uint16Array } | null | undefined> {
    const same: Array<{ id: number; row: Uint16Array } | null | undefined> = [];
    for (let k = 0; k < keys; k++) {
      let fixed = true;
      for (let r = 0; r < judged.length && fixed; r++) {
        const pass = keyPass[r * keys + k]!;
        if (pass === PER_PRIORITY || (pass === 1 && judged[r]!.pred.mixedReads.includes('preemptorPriority'))) fixed = false;
      }
      same.push(fixed ? null : undefined);
    }
    return same;
  }

  /** `ClassRules.keyPass` for the class of preemptor quota `quota`. */
  private keyPass(judged: Judged[], quota: number, target: PreemptorTarget): Uint8Array {
    const keys = this.quotaKeys(quota).keys;
    const pass = new Uint8Array(judged.length * keys.length);
    // Only conditions that do not read the priority are judged here: any value serves.
    const facts = preemptorFacts(this.tree.at(quota).name, 0, target);
    judged.forEach((j, r) => {
      const perPriority = j.pred.keyReads.includes('preemptorPriority');
      keys.forEach((key, k) => {
        facts.relation = key.relation;
        facts.lender = key.lender;
        // A rule whose key conditions read the priority is judged per table, unless those
        // that do not read it already fail for this key.
        pass[r * keys.length + k] = !j.pred.keyWithout(facts, 'preemptorPriority') ? 0 : perPriority ? PER_PRIORITY : 1;
      });
    });
    return pass;
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
    if (!cls.judged) return this.tabulateByEngine(cls.ranked, keys.keys, preemptorQuota, priority, target).then(table);
    this.fastTables++;
    if (cls.readsPriority) return Promise.resolve(table(this.tabulate(cls, cls.judged, keys.keys, preemptorQuota, priority, target)));
    return Promise.resolve(table((cls.anyPriority ??= this.tabulate(cls, cls.judged, keys.keys, preemptorQuota, priority, target))));
  }

  /** The rule's predicate and victim-only answers, made once per rule and shared by every table. */
  private predicateOf(rule: CompiledRule): Judged | null {
    let p = this.predicates.get(rule);
    if (p === undefined) {
      const pred = rulePredicate(rule.rule, this.operatorEngine);
      if (pred) {
        let victimNode: TrieNode<{ victimOk?: Uint8Array; shape?: number }> | undefined;
        if (pred.victimShape) {
          victimNode = this.shapes;
          for (const step of pred.victimShape) victimNode = trieStep(victimNode, step);
        }
        let victimOk = victimNode?.value?.victimOk;
        if (!victimOk) {
          const combos = victimCombos();
          victimOk = new Uint8Array(combos.length);
          // The victim-only conditions do not read the other facts: any values serve here.
          const facts = preemptorFacts('', 0, 'in-quota');
          for (let i = 0; i < combos.length; i++) {
            const c = combos[i]!;
            facts.victimPriority = c.victimPriority;
            facts.victimModule = c.victimModule;
            facts.victimStanding = c.victimStanding;
            victimOk[i] = pred.victimOnly(facts) ? 1 : 0;
          }
          if (victimNode) (victimNode.value ??= {}).victimOk = victimOk;
        }
        let shapeNode: TrieNode<{ victimOk?: Uint8Array; shape?: number }> | undefined;
        if (victimNode && pred.mixedShape) {
          shapeNode = trieStep(victimNode, MIXED_SHAPE);
          for (const step of pred.mixedShape) shapeNode = trieStep(shapeNode, step);
        }
        let shape = shapeNode?.value?.shape;
        if (shape === undefined) {
          shape = this.shapeCount++;
          if (shapeNode) (shapeNode.value ??= {}).shape = shape;
        }
        p = { pred, victimOk, shape };
      } else p = null;
      this.predicates.set(rule, p);
    }
    return p;
  }

  /**
   * Fills the cells with the rules' own operators, synchronously (rules/rule-predicate.ts).
   * The winner is the first firing rule by precedence (order, then name), as `eligibleBy`.
   * Per key, the rules whose key conditions hold (and the facts their mixed conditions
   * read) name the row; a row already computed is reused, and so is a whole cell array
   * whose rows are all the same as an earlier table's.
   */
  private tabulate(cls: ClassRules, judged: Judged[], keys: RelationKey[], preemptorQuota: string, priority: number, target: PreemptorTarget): Uint16Array {
    const facts = preemptorFacts(preemptorQuota, priority, target);
    const rowsOfTable: Uint16Array[] = [];
    const passing: number[] = [];
    let table = this.cellsByRows;
    const keyPass = cls.keyPass!; // made with judged
    const same = (cls.samePerPriority ??= this.samePerPriority(judged, keyPass, keys.length));
    for (let k = 0; k < keys.length; k++) {
      const known = same[k];
      if (known) {
        rowsOfTable.push(known.row);
        table = trieStep(table, known.id);
        continue;
      }
      const key = keys[k]!;
      facts.relation = key.relation;
      facts.lender = key.lender;
      passing.length = 0;
      // The row's name: the cells of the rules whose key conditions hold, in rank order,
      // an end mark, then the values their mixed conditions read.
      let node = this.rows;
      for (let r = 0; r < judged.length; r++) {
        const pass = keyPass[r * keys.length + k]!;
        if (pass === 0 || (pass === PER_PRIORITY && !judged[r]!.pred.key(facts))) continue;
        passing.push(r);
        node = trieStep(node, cls.cell[r]!);
      }
      node = trieStep(node, END_OF_RULES);
      for (const r of passing) for (const f of judged[r]!.pred.mixedReads) node = trieStep(node, facts[f]);
      node.value ??= { id: this.rowCount++, row: this.computeRow(cls, judged, passing, facts) };
      if (known === null) same[k] = node.value;
      rowsOfTable.push(node.value.row);
      table = trieStep(table, node.value.id);
    }
    if (!table.value) {
      const cells = this.pool.take(keys.length * COMBOS_PER_RELATION);
      for (let k = 0; k < rowsOfTable.length; k++) cells.set(rowsOfTable[k]!, k * COMBOS_PER_RELATION);
      table.value = cells;
      this.cellArrayCount++;
    }
    return table.value;
  }

  /** One row: per victim combination, the cell of the first of the `passing` rules whose victim-only and mixed conditions hold. */
  private computeRow(cls: ClassRules, judged: Judged[], passing: number[], facts: EligibilityFacts): Uint16Array {
    let node = this.patterns;
    for (const r of passing) node = trieStep(node, judged[r]!.shape);
    node = trieStep(node, END_OF_RULES);
    for (const r of passing) for (const f of judged[r]!.pred.mixedReads) node = trieStep(node, facts[f]);
    const pattern = (node.value ??= this.computePattern(judged, passing, facts));
    const row = this.pool.take(COMBOS_PER_RELATION);
    for (let i = 0; i < row.length; i++) {
      const at = pattern[i]!;
      if (at !== 0) row[i] = cls.cell[passing[at - 1]!]!;
    }
    return row;
  }

  /** Per victim combination, 0 or the position + 1 among `passing` of the first rule whose victim-only and mixed conditions hold. */
  private computePattern(judged: Judged[], passing: number[], facts: EligibilityFacts): Uint16Array {
    const combos = victimCombos();
    const pattern = this.pool.take(COMBOS_PER_RELATION);
    for (let i = 0; i < combos.length; i++) {
      const combo = combos[i]!;
      facts.victimPriority = combo.victimPriority;
      facts.victimModule = combo.victimModule;
      facts.victimStanding = combo.victimStanding;
      for (let at = 0; at < passing.length; at++) {
        const j = judged[passing[at]!]!;
        if (!j.victimOk[i] || (j.pred.hasMixed && !j.pred.mixed(facts))) continue;
        pattern[i] = at + 1;
        break;
      }
    }
    return pattern;
  }

  /** Fills the cells by running json-rules-engine on every fact combination. */
  private async tabulateByEngine(relevant: CompiledRule[], keys: RelationKey[], preemptorQuota: string, priority: number, preemptorTarget: PreemptorTarget): Promise<Uint16Array> {
    const engine = makeEngine(relevant);
    const combos = victimCombos();
    const cells = new Uint16Array(keys.length * combos.length);
    for (let k = 0; k < keys.length; k++) {
      for (let i = 0; i < combos.length; i++) {
        const rule = await eligibleBy(engine, relevant, { preemptorQuota, preemptorPriority: priority, preemptorTarget, ...keys[k]!, ...combos[i]! });
        cells[k * combos.length + i] = rule ? this.ruleIndex.get(rule)! + 1 : 0;
      }
    }
    return cells;
  }
}
