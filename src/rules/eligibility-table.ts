/**
 * Eligibility tables: for one preemptor class (quota, priority, target standing) the rules are run once
 * over every victim fact combination and the answers stored in a small table that
 * victim selection reads in O(1) per candidate. Tables are made on first use and cached.
 *
 *   cells[(relationKey * COMBOS_PER_RELATION) + comboIndex(priority, module, standing)]
 *     = 0            not eligible
 *     = k + 1        eligible under rules[k]
 */
import type { Module, Standing } from '../model/policy.js';
import type { QuotaTree } from '../model/quota-tree.js';
import type { CompiledRule } from './compile-rules.js';
import { eligibleBy, makeEngine } from './evaluate-rules.js';
import { comboIndex, COMBOS_PER_RELATION, victimCombos, type EligibilityFacts, type RelationKey } from './facts.js';
import { rulePredicate, type RulePredicate } from './rule-predicate.js';

/** Reused by `eligibleAmong` (job, cell pairs), so a table's scan allocates only its result. */
let scratch = new Int32Array(0);

/** The table of one preemptor class. */
export class EligibilityTable {
  constructor(
    readonly quota: number,
    readonly priority: number,
    readonly keys: RelationKey[],
    private readonly cells: Uint16Array,
    private readonly rules: CompiledRule[],
    private readonly tree: QuotaTree,
  ) {}

  /** Relation-key index per victim quota, filled on first use (the hot path reads it per job). */
  private keyOfQuota?: Int16Array;

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
    let keys = this.keyOfQuota;
    if (!keys) {
      keys = new Int16Array(this.tree.quotas.length);
      for (let v = 0; v < keys.length; v++) keys[v] = this.keyIndex(v);
      this.keyOfQuota = keys;
    }
    // keys has one entry per quota and cells one per (key, combo): both in range by construction.
    const k = keys[victimQuota]!;
    return k < 0 ? 0 : this.cells[k * COMBOS_PER_RELATION + combo]!;
  }

  /**
   * The running jobs this table makes eligible, given each job's victim quota and combo
   * (the snapshot's per-job typed arrays): their indices and cells, in job order. One
   * pass of two typed-array reads per job, with no call per job: candidate search does
   * it once per table and snapshot state.
   */
  eligibleAmong(jobQuota: Int32Array, jobCombo: Int32Array): { jobs: Int32Array; cells: Int32Array } {
    this.cellFor(0, 0); // fills keyOfQuota
    const keys = this.keyOfQuota!;
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

  /** The rule a non-zero cell names. */
  ruleAt(cell: number): CompiledRule | undefined {
    return cell === 0 ? undefined : this.rules[cell - 1];
  }

  /** Index of the victim quota's (relation, lender) key, or -1. */
  keyIndex(victimQuota: number): number {
    const relation = this.tree.relation(this.quota, victimQuota);
    const lenderIdx = relation === 'sibling' || relation === 'lent' ? this.tree.lender(this.quota, victimQuota) : -1;
    const lender = lenderIdx >= 0 ? this.tree.at(lenderIdx).name : '';
    return this.keys.findIndex((key) => key.relation === relation && key.lender === lender);
  }
}

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

/** Makes and caches tables for a policy's rules. */
export class EligibilityTables {
  private readonly cache = new Map<string, Promise<EligibilityTable>>();
  /** Position of each rule in `rules`: a cell stores it + 1. */
  private readonly ruleIndex: Map<CompiledRule, number>;
  /** Per rule: its predicate (null when only the engine can evaluate it) and, per victim combination, its victim-only conditions. */
  private readonly predicates = new Map<CompiledRule, { pred: RulePredicate; victimOk: Uint8Array } | null>();
  /** An engine with no rules: its operator map judges every condition of the fast path. */
  private readonly operatorEngine = makeEngine([]);
  /** How many tables were tabulated without running the engine (tests assert the fast path ran). */
  fastTables = 0;

  constructor(
    private readonly rules: CompiledRule[],
    private readonly tree: QuotaTree,
  ) {
    this.ruleIndex = new Map(rules.map((r, i) => [r, i]));
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
    const id = `${quota}/${priority}/${target}`;
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
    const near = [...(byQuota.get('') ?? []), ...path.flatMap((name) => byQuota.get(name) ?? [])];
    near.sort((a, b) => this.ruleIndex.get(a)! - this.ruleIndex.get(b)!);
    return near.filter((r) => ruleApplies(r, path, target));
  }

  private byQuota?: Map<string, CompiledRule[]>;

  /** The rules grouped by the quota they name ('' for built-in rules naming none). */
  private rulesByQuota(): Map<string, CompiledRule[]> {
    if (!this.byQuota) {
      this.byQuota = new Map();
      for (const r of this.rules) {
        const list = this.byQuota.get(r.quota);
        if (list) list.push(r);
        else this.byQuota.set(r.quota, [r]);
      }
    }
    return this.byQuota;
  }

  private async build(quota: number, priority: number, target: PreemptorTarget): Promise<EligibilityTable> {
    const relevant = this.relevantRules(quota, target);
    const keys = this.relationKeys(quota);
    const preemptorQuota = this.tree.at(quota).name;
    const cells = this.tabulate(relevant, keys, preemptorQuota, priority) ?? (await this.tabulateByEngine(relevant, keys, preemptorQuota, priority));
    return new EligibilityTable(quota, priority, keys, cells, this.rules, this.tree);
  }

  /** The rule's predicate and victim-only answers, made once per rule and shared by every table. */
  private predicateOf(rule: CompiledRule): { pred: RulePredicate; victimOk: Uint8Array } | null {
    let p = this.predicates.get(rule);
    if (p === undefined) {
      const pred = rulePredicate(rule.rule, this.operatorEngine);
      if (pred) {
        const combos = victimCombos();
        const victimOk = new Uint8Array(combos.length);
        // The victim-only conditions do not read the other facts: any values serve here.
        const base: EligibilityFacts = { preemptorQuota: '', preemptorPriority: 0, relation: 'other', lender: '', victimPriority: 0, victimModule: 'DLC', victimStanding: 'idle' };
        combos.forEach((c, i) => (victimOk[i] = pred.victimOnly({ ...base, ...c }) ? 1 : 0));
        p = { pred, victimOk };
      } else p = null;
      this.predicates.set(rule, p);
    }
    return p;
  }

  /**
   * Fills the cells with the rules' own operators, synchronously (rules/rule-predicate.ts);
   * undefined when some relevant rule has a shape only the engine can evaluate. The
   * winner is the first firing rule by precedence (order, then name), as `eligibleBy`.
   */
  private tabulate(relevant: CompiledRule[], keys: RelationKey[], preemptorQuota: string, priority: number): Uint16Array | undefined {
    const ranked = [...relevant].sort((a, b) => a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const preds = ranked.map((r) => this.predicateOf(r));
    if (preds.some((p) => p === null)) return undefined;
    const combos = victimCombos();
    const cells = new Uint16Array(keys.length * combos.length);
    for (let k = 0; k < keys.length; k++) {
      const key = keys[k]!;
      const facts: EligibilityFacts = { preemptorQuota, preemptorPriority: priority, relation: key.relation, lender: key.lender, victimPriority: 0, victimModule: 'DLC', victimStanding: 'idle' };
      // Conditions on the preemptor and relation alone are answered once per key.
      const keyOk = preds.map((p) => p!.pred.othersReadVictim || p!.pred.others(facts));
      for (let i = 0; i < combos.length; i++) {
        const combo = combos[i]!;
        facts.victimPriority = combo.victimPriority;
        facts.victimModule = combo.victimModule;
        facts.victimStanding = combo.victimStanding;
        for (let r = 0; r < ranked.length; r++) {
          const p = preds[r]!;
          if (!keyOk[r] || !p.victimOk[i] || (p.pred.othersReadVictim && !p.pred.others(facts))) continue;
          cells[k * combos.length + i] = this.ruleIndex.get(ranked[r]!)! + 1;
          break;
        }
      }
    }
    this.fastTables++;
    return cells;
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
