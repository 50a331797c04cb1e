/**
 * Tabulating a preemptor class without the engine, sharing the work between tables: the
 * cells are filled with the rules' own operators, synchronously (rule-predicate.ts), and
 * the winner of a cell is the first firing rule by precedence (order, then name), as
 * `eligibleBy` picks it.
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
 *
 * Its own room because it is the one place cells are computed and shared: the store
 * (eligibility-table.ts) decides which rules a class ranks and caches the tables, the
 * judge (judge-rule.ts) answers per rule, and this turns both into cell arrays.
 */
import { COMBOS_PER_RELATION, victimCombos, type EligibilityFacts, type RelationKey } from './facts.js';
import { placeholderFacts, type Judged } from './judge-rule.js';
import type { CompiledRule } from './compile-rules.js';
import { trieStep, type TrieNode } from './value-trie.js';

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

/** Ends the passing rules' cells in a row's name, before the facts their mixed conditions read (cells are ≥ 1). */
const END_OF_RULES = -1;

/** `keyPass` value of a rule whose key conditions read the preemptor's priority. */
const PER_PRIORITY = 2;

/**
 * The rules that can fire for one preemptor quota and target, in precedence order (order,
 * then name, as `eligibleBy`), each with the cell that names it (rule index + 1) and its
 * predicate; `judged` is undefined when some rule has a shape only the engine evaluates.
 */
export interface ClassRules {
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

/** `ClassRules.keyPass` for the class of the preemptor quota named `preemptorQuota`, whose relation keys are `keys`. */
export function keyPassOf(judged: Judged[], keys: RelationKey[], preemptorQuota: string): Uint8Array {
  const pass = new Uint8Array(judged.length * keys.length);
  // Only conditions that do not read the priority are judged here: any value serves.
  const facts = placeholderFacts(preemptorQuota, 0);
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

/** Computes cell arrays for a policy's tables, sharing rows, row patterns and whole arrays between them. */
export class Tabulator {
  /**
   * Row patterns by the shapes of the passing rules and the facts their mixed conditions
   * read: per victim combination, 0 or the position + 1 of the winning rule among the
   * passing ones. Rows of different rules with the same shapes (each quota's
   * selfPreemption over the same ranges, say) map one pattern to their own cells.
   */
  private readonly patterns: TrieNode<Uint16Array> = {};
  /** Where rows, patterns and cell arrays live. */
  private readonly pool = new CellPool();
  /** Rows by what determines them (see the file comment), each with a small id for table keys. */
  private readonly rows: TrieNode<{ id: number; row: Uint16Array }> = {};
  private rowCount = 0;
  /** Cell arrays by their rows' ids: tables with the same rows share one. */
  private readonly cellsByRows: TrieNode<Uint16Array> = {};
  private cellArrayCount = 0;

  /** How much was shared: rows computed, distinct cell arrays made (the rest of the tables reuse one). */
  get shared(): { rows: number; cellArrays: number } {
    return { rows: this.rowCount, cellArrays: this.cellArrayCount };
  }

  /**
   * The cells of the table of `cls` at `priority`. Per key, the rules whose key conditions
   * hold (and the facts their mixed conditions read) name the row; a row already computed
   * is reused, and so is a whole cell array whose rows are all the same as an earlier
   * table's.
   */
  tabulate(cls: ClassRules, judged: Judged[], keys: RelationKey[], preemptorQuota: string, priority: number): Uint16Array {
    const facts = placeholderFacts(preemptorQuota, priority);
    const rowsOfTable: Uint16Array[] = [];
    const passing: number[] = [];
    let table = this.cellsByRows;
    const keyPass = cls.keyPass!; // made with judged
    const same = (cls.samePerPriority ??= samePerPriority(judged, keyPass, keys.length));
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
}

/**
 * `ClassRules.samePerPriority` before any row is made: null for a key whose row is the
 * same at every priority (to be filled), undefined for one judged per table.
 */
function samePerPriority(judged: Judged[], keyPass: Uint8Array, keys: number): Array<{ id: number; row: Uint16Array } | null | undefined> {
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
