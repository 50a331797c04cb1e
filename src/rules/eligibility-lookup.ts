/**
 * One eligibility table as victim selection reads it: for one preemptor class (quota,
 * priority, target standing), the rule that makes each victim fact combination eligible,
 * read in O(1) per candidate.
 *
 *   cells[(relationKey * COMBOS_PER_RELATION) + comboIndex(priority, module, standing)]
 *     = 0            not eligible
 *     = k + 1        eligible under rules[k]
 *
 * Its own room because it is the only part of the tables the hot path touches; how a
 * table is made (which rules, tabulated how, shared how) is eligibility-table.ts's.
 */
import type { Module, Standing } from '../model/policy.js';
import type { QuotaTree } from '../model/quota-tree.js';
import type { CompiledRule } from './compile-rules.js';
import { comboIndex, COMBOS_PER_RELATION, type RelationKey } from './facts.js';

/** Reused by `eligibleAmong` (job, cell pairs), so a table's scan allocates only its result. */
let scratch = new Int32Array(0);

/**
 * A preemptor quota's relation keys and, filled on first lookup, each victim quota's
 * index among them: the same for every priority and target of that quota, so its
 * tables share one (the hot path reads it per job).
 */
export interface QuotaKeys {
  readonly keys: RelationKey[];
  index?: Int16Array;
  /** Each (relation, lender)'s first position in `keys`, made with `index`: one map read per victim quota, not a search of the keys. */
  positions?: Map<string, number>;
  /** The quota's tables by their cell array: classes with the same cells get one object. */
  tables?: Map<Uint16Array, EligibilityTable>;
}

/**
 * The table of one preemptor class: of every class of its quota with the same cells
 * (EligibilityTables shares the object, so what callers memoize per table — a snapshot's
 * eligible jobs — is shared too).
 */
export class EligibilityTable {
  constructor(
    readonly quota: number,
    private readonly quotaKeys: QuotaKeys,
    /** Never written after construction: classes whose rows are the same share one array (EligibilityTables). */
    private readonly cells: Uint16Array,
    private readonly rules: CompiledRule[],
    private readonly tree: QuotaTree,
  ) {}

  /** Every (relation, lender) a victim quota can have relative to this table's quota, in cell order. */
  get keys(): RelationKey[] {
    return this.quotaKeys.keys;
  }

  /** True when this table and `other` read one and the same cell array (shared because their rows are provably equal). */
  sharesCellsWith(other: EligibilityTable): boolean {
    return this.cells === other.cells;
  }

  /** The relation-key index of every victim quota, filled once per preemptor quota. */
  private keyOfQuota(): Int16Array {
    let keys = this.quotaKeys.index;
    if (!keys) {
      keys = new Int16Array(this.tree.quotas.length);
      for (let v = 0; v < keys.length; v++) keys[v] = this.keyIndex(v);
      this.quotaKeys.index = keys;
    }
    return keys;
  }

  /** The rule under which a job on quota `victimQuota` may be preempted, or undefined. */
  lookup(victimQuota: number, priority: number, module: Module, standing: Standing): CompiledRule | undefined {
    return this.ruleAt(this.cellFor(victimQuota, comboIndex(priority, module, standing)));
  }

  /**
   * The raw cell for a victim quota and a victim combination index (`comboIndex`):
   * 0 = not eligible, k + 1 = rules[k]. Two typed-array reads: candidate search calls it
   * once per running job.
   */
  cellFor(victimQuota: number, combo: number): number {
    // keys has one entry per quota and cells one per (key, combo): both in range by construction.
    const k = this.keyOfQuota()[victimQuota]!;
    return k < 0 ? 0 : this.cells[k * COMBOS_PER_RELATION + combo]!;
  }

  /**
   * The running jobs this table makes eligible, given each job's victim quota and combo
   * (the snapshot's per-job typed arrays): their indices and cells, in job order. One
   * pass of two typed-array reads per job, with no call per job: candidate search does
   * it once per table and snapshot state.
   */
  eligibleAmong(jobQuota: Int32Array, jobCombo: Int32Array): { jobs: Int32Array; cells: Int32Array } {
    const keys = this.keyOfQuota();
    const cells = this.cells;
    if (scratch.length < 2 * jobQuota.length) scratch = new Int32Array(2 * jobQuota.length);
    const out = scratch;
    let n = 0;
    for (let i = 0; i < jobQuota.length; i++) {
      const k = keys[jobQuota[i]!]!;
      if (k < 0) continue;
      const cell = cells[k * COMBOS_PER_RELATION + jobCombo[i]!]!;
      if (cell === 0) continue;
      out[2 * n] = i;
      out[2 * n + 1] = cell;
      n++;
    }
    const jobs = new Int32Array(n);
    const found = new Int32Array(n);
    for (let e = 0; e < n; e++) {
      jobs[e] = out[2 * e]!;
      found[e] = out[2 * e + 1]!;
    }
    return { jobs, cells: found };
  }

  /**
   * The relation-key index of every victim quota (-1: none), by quota index; read only.
   * With `keyCells`, what an index of the running jobs needs to find the eligible ones
   * without reading every job (engine/eligible-jobs.ts).
   */
  victimKeys(): Int16Array {
    return this.keyOfQuota();
  }

  /** The cells of relation key `k`, one per victim combo (`comboIndex`); a read-only view. */
  keyCells(k: number): Uint16Array {
    return this.cells.subarray(k * COMBOS_PER_RELATION, (k + 1) * COMBOS_PER_RELATION);
  }

  /** The rule a non-zero cell names. */
  ruleAt(cell: number): CompiledRule | undefined {
    return cell === 0 ? undefined : this.rules[cell - 1];
  }

  /** Index of the victim quota's (relation, lender) key, or -1 (the first such key, as a search of `keys` would find). */
  keyIndex(victimQuota: number): number {
    const relation = this.tree.relation(this.quota, victimQuota);
    const lenderIdx = relation === 'sibling' || relation === 'lent' ? this.tree.lender(this.quota, victimQuota) : -1;
    const lender = lenderIdx >= 0 ? this.tree.at(lenderIdx).name : '';
    let positions = this.quotaKeys.positions;
    if (!positions) {
      positions = new Map();
      for (const [i, key] of this.keys.entries()) if (!positions.has(`${key.relation}\0${key.lender}`)) positions.set(`${key.relation}\0${key.lender}`, i);
      this.quotaKeys.positions = positions;
    }
    return positions.get(`${relation}\0${lender}`) ?? -1;
  }
}
