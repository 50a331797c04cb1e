/**
 * One differential harness for Quotient's fast/slow twins (zod's habit: test the compiled
 * fast path against the interpreter, and assert the fast path really ran). Each pair is a
 * `Differential`: every comparison runs both paths on one input, expects equal answers,
 * and reads the fast path's own witness (a counter it keeps, a tag of what answered), so
 * a fast path that silently fell back to the slow one, or never ran, fails the test
 * rather than agreeing with itself.
 *
 *   - `kernelTwins()`: the wasm kernel against its TypeScript twin (kernel/reference.ts);
 *     witness: the wasm's own count of the queries it answered (`wasmCallCount`).
 *   - `yamlReaders()`: the YAML subset reader and the js-yaml fast path against the
 *     positioned parse; witness: which reader read each text (a reader tag).
 *   - `ruleTables(tables)`: eligibility tables made by rule predicates against
 *     json-rules-engine's `Engine.run`; witness: the tables' count of tables made on the
 *     synchronous path (`fastTables`).
 *   - `liveSnapshots()`: the simulator's live snapshot, followed incrementally, against a
 *     fresh Snapshot.build of the same running jobs; witness: the DenseKernel's counts
 *     (loaded once, then only adds and removes: never a reload).
 */
import { expect } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { DenseKernel } from '../../src/engine/dense-kernel.js';
import { ReferenceKernel } from '../../src/kernel/reference.js';
import type { Kernel, KernelSnapshot } from '../../src/kernel/types.js';
import { WasmKernel } from '../../src/kernel/wasm-kernel.js';
import type { Module, Standing } from '../../src/model/policy.js';
import { fastParse } from '../../src/policy/parse/fast-parse.js';
import { readSubset } from '../../src/policy/parse/subset-yaml.js';
import { eligibleBy, makeEngine } from '../../src/rules/evaluate-rules.js';
import type { EligibilityTable, EligibilityTables, PreemptorTarget } from '../../src/rules/eligibility-table.js';
import type { CompiledRule } from '../../src/rules/compile-rules.js';
import type { QuotaTree } from '../../src/model/quota-tree.js';

/** A fast path's own evidence that it answered: a count that moves when it does. */
export type Witness = () => number;

/** One fast/slow pair under test; see the module comment. */
export class Differential {
  /** Comparisons made. */
  compared = 0;
  /** Of those, the ones the fast path answered (for fast paths that may decline). */
  answered = 0;

  constructor(
    readonly name: string,
    private readonly witness: Witness,
  ) {}

  /**
   * Runs `fast` and `slow` on one input and expects equal results; the witness must move
   * by `runs` (default: at least once) during `fast`, so the fast path really answered.
   * Returns the fast result.
   */
  same<T>(fast: () => T, slow: () => T, o: { runs?: number; label?: string } = {}): T {
    const before = this.witness();
    const got = fast();
    this.expectRan(this.witness() - before, o);
    expect(got, this.labelled(o.label)).toEqual(slow());
    this.compared++;
    this.answered++;
    return got;
  }

  /** `same` for asynchronous paths. */
  async sameAsync<T>(fast: () => Promise<T>, slow: () => Promise<T>, o: { runs?: number; label?: string } = {}): Promise<T> {
    const before = this.witness();
    const got = await fast();
    this.expectRan(this.witness() - before, o);
    expect(got, this.labelled(o.label)).toEqual(await slow());
    this.compared++;
    this.answered++;
    return got;
  }

  /**
   * For a fast path that may decline (undefined): when it answers, its result must equal
   * the slow one and the witness must have moved; a decline is counted, never compared.
   */
  sameOrDeclined<T>(fast: () => T | undefined, slow: () => T, label?: string): T | undefined {
    const before = this.witness();
    const got = fast();
    this.compared++;
    if (got === undefined) {
      expect(this.witness() - before, `${this.name}: a declined input moved the witness`).toBe(0);
      return undefined;
    }
    this.expectRan(this.witness() - before, {});
    expect(got, this.labelled(label)).toEqual(slow());
    this.answered++;
    return got;
  }

  /**
   * After a run: it was not vacuous. At least `compared` comparisons were made, and the
   * fast path answered at least `answered` of them (a share when below 1).
   */
  expectCovered(o: { compared?: number; answered?: number }): void {
    if (o.compared !== undefined) expect(this.compared, `${this.name}: comparisons made`).toBeGreaterThanOrEqual(o.compared);
    if (o.answered !== undefined) {
      const floor = o.answered < 1 ? Math.ceil(this.compared * o.answered) : o.answered;
      expect(this.answered, `${this.name}: inputs the fast path answered`).toBeGreaterThanOrEqual(floor);
    }
  }

  private expectRan(moved: number, o: { runs?: number }): void {
    if (o.runs !== undefined) expect(moved, `${this.name}: the fast path's witness moved ${moved} times, not ${o.runs}`).toBe(o.runs);
    else expect(moved, `${this.name}: the fast path did not run (its witness did not move)`).toBeGreaterThan(0);
  }

  private labelled(label?: string): string {
    return label ? `${this.name}: ${label}` : this.name;
  }
}

/** The wasm kernel and its TypeScript twin, loaded and changed together. */
export class KernelTwins {
  readonly wasm = new WasmKernel();
  readonly twin = new ReferenceKernel();
  /** wasm place and selectVictims count one query each (assembly/index.ts `calls`); room and changes count none. */
  readonly diff = new Differential('wasm kernel vs TypeScript twin', () => this.wasm.wasmCallCount());

  constructor() {
    expect(this.wasm.backend).toBe('wasm');
  }

  /** Loads one snapshot into both. */
  load(snapshot: KernelSnapshot): void {
    this.wasm.load(snapshot);
    this.twin.load(snapshot);
  }

  /**
   * Asks both kernels the same query and expects deep-equal answers; the wasm must count
   * `calls` queries of its own for it (1 for place; one per wasm selectVictims call).
   */
  ask<T>(query: (k: Kernel) => T, calls: number, label?: string): T {
    return this.diff.same(
      () => query(this.wasm),
      () => query(this.twin),
      { runs: calls, ...(label === undefined ? {} : { label }) },
    );
  }

  /** Changes both kernels alike (addJob, removeJob): equal results, no query counted. */
  change<T>(change: (k: Kernel) => T, label?: string): T {
    const before = this.wasm.wasmCallCount();
    const got = change(this.wasm);
    expect(got, label).toEqual(change(this.twin));
    expect(this.wasm.wasmCallCount(), 'a change is not a query').toBe(before);
    return got;
  }

  /** Expects both to throw the same coded error for the query. */
  refuse(query: (k: Kernel) => unknown, code: string): void {
    expect(() => query(this.wasm)).toThrow(expect.objectContaining({ code }));
    expect(() => query(this.twin)).toThrow(expect.objectContaining({ code }));
  }
}

/** A fresh pair of kernels for a differential test. */
export function kernelTwins(): KernelTwins {
  return new KernelTwins();
}

/** Which reader read a text: the loader's order, fastest first (policy/parse/source-doc.ts `parseFiles`). */
export type Reader = 'subset' | 'js-yaml' | 'positioned';

/** The positioned parse's values, empty documents left out (as the loader leaves them), or undefined on any error or warning. */
export function positionedValues(text: string): unknown[] | undefined {
  const docs = parseAllDocuments(text, { uniqueKeys: true });
  if (!Array.isArray(docs) || docs.some((d) => d.errors.length > 0 || d.warnings.length > 0)) return undefined;
  return docs.filter((d) => d.contents !== null).map((d) => d.toJS({ maxAliasCount: 100 }));
}

/**
 * The YAML readers against the positioned parse. `read(text)` tries them in the loader's
 * order and tags what read the text; whatever a fast reader read must equal the
 * positioned parse. `tags` counts the texts each reader read.
 */
export class YamlReaders {
  readonly tags: Record<Reader, number> = { subset: 0, 'js-yaml': 0, positioned: 0 };
  readonly subset = new Differential('YAML subset reader vs positioned parse', () => this.tags.subset);
  readonly jsYaml = new Differential('js-yaml fast path vs positioned parse', () => this.tags['js-yaml']);

  constructor(private readonly limits = { maxDepth: 100, maxEntries: 2_000_000 }) {}

  /** The subset reader's documents of `text` held to the positioned parse, or undefined when it declines. */
  bySubset(text: string, label?: string): unknown[] | undefined {
    return this.subset.sameOrDeclined(
      () => {
        const r = readSubset(text, this.limits);
        if (r) this.tags.subset++;
        return r?.values;
      },
      () => positionedValues(text),
      label,
    );
  }

  /** js-yaml's documents of `text` (the fast path's own checks first) held to the positioned parse, or undefined when it declines. */
  byJsYaml(text: string, label?: string): unknown[] | undefined {
    return this.jsYaml.sameOrDeclined(
      () => {
        const r = fastParse(text, this.limits);
        if (r.ok) this.tags['js-yaml']++;
        return r.ok ? r.values : undefined;
      },
      () => positionedValues(text),
      label,
    );
  }

  /** The text's documents and the reader that read them, in the loader's order, each fast read held to the positioned parse. */
  read(text: string, label?: string): { reader: Reader; values: unknown[] | undefined } {
    const bySubset = this.bySubset(text, label);
    if (bySubset) return { reader: 'subset', values: bySubset };
    const byJsYaml = this.byJsYaml(text, label);
    if (byJsYaml) return { reader: 'js-yaml', values: byJsYaml };
    this.tags.positioned++;
    return { reader: 'positioned', values: positionedValues(text) };
  }
}

/** The YAML readers, counted afresh. */
export function yamlReaders(limits?: { maxDepth: number; maxEntries: number }): YamlReaders {
  return new YamlReaders(limits);
}

/**
 * Eligibility tables (rule predicates, rules/rule-predicate.ts) against json-rules-engine:
 * `table(q, priority, target)` must come from the synchronous path (the witness), and
 * `lookup` must name the rule a full `Engine.run` of the relevant rules names.
 */
export class RuleTables {
  readonly diff: Differential;

  constructor(
    private readonly tables: EligibilityTables,
    private readonly rules: CompiledRule[],
    private readonly tree: QuotaTree,
  ) {
    this.diff = new Differential('rule predicates vs json-rules-engine Engine.run', () => tables.fastTables);
  }

  private readonly made = new Set<string>();

  /**
   * Makes (or reads) the table of one preemptor class: a class asked for the first time
   * must have been tabulated by the predicates (the witness moves by one), never by the
   * engine fallback; a class asked again is read from the cache (it does not move).
   */
  async table(q: number, priority: number, target: PreemptorTarget): Promise<EligibilityTable> {
    const key = `${q}/${priority}/${target}`;
    const fresh = !this.made.has(key);
    this.made.add(key);
    const before = this.tables.fastTables;
    const table = await this.tables.tableFor(q, priority, target);
    expect(this.tables.fastTables - before, `${this.diff.name}: class ${key} ${fresh ? 'was not tabulated by the predicates' : 'was tabulated again'}`).toBe(fresh ? 1 : 0);
    if (fresh) this.diff.answered++;
    return table;
  }

  /** The table's rule for one victim against the full rule set run by json-rules-engine (SEMANTICS 4, 5.1 for a borrowing target). */
  async lookup(q: number, priority: number, target: PreemptorTarget, victim: { quota: number; priority: number; module: Module; standing: Standing }): Promise<string | undefined> {
    const table = await this.table(q, priority, target);
    const relation = this.tree.relation(q, victim.quota);
    const lenderIdx = relation === 'sibling' || relation === 'lent' ? this.tree.lender(q, victim.quota) : -1;
    // The full rule set: which rules serve a borrowing target is the rules' own condition
    // on preemptorTarget (reclaim of a lent share serves only in-quota, SEMANTICS 5.1).
    const rules = this.rules;
    const fromRules = await eligibleBy(makeEngine(rules), rules, {
      preemptorQuota: this.tree.at(q).name,
      preemptorPriority: priority,
      preemptorTarget: target,
      relation,
      lender: lenderIdx >= 0 ? this.tree.at(lenderIdx).name : '',
      victimPriority: victim.priority,
      victimModule: victim.module,
      victimStanding: victim.standing,
    });
    const fromTable = table.lookup(victim.quota, victim.priority, victim.module, victim.standing);
    expect(fromTable?.name, `${this.diff.name}: quota ${victim.quota}, priority ${victim.priority}, ${victim.module}, ${victim.standing}`).toBe(fromRules?.name);
    this.diff.compared++;
    return fromTable?.name;
  }

  /** After a run: every table the session made came from the synchronous path. */
  expectAllFast(): void {
    expect(this.tables.fastTables, `${this.diff.name}: tables made by the predicates`).toBe(this.made.size);
  }
}

/** Rule predicates against the engine, for one session's tables. */
export function ruleTables(tables: EligibilityTables, rules: CompiledRule[], tree: QuotaTree): RuleTables {
  return new RuleTables(tables, rules, tree);
}

/**
 * The simulator's live snapshot (followed through a DenseKernel) against a fresh build:
 * the witness is the DenseKernel's counts. `expectIncremental` asserts it was loaded once
 * and then only changed job by job, never reloaded.
 */
export function expectIncremental(kernel: Kernel, changes: number): void {
  expect(kernel, 'the live snapshot follows a DenseKernel').toBeInstanceOf(DenseKernel);
  const { loads, adds, removes } = (kernel as DenseKernel).stats;
  expect(loads, 'the live snapshot reloaded its kernel').toBe(1);
  expect(adds + removes, 'the live snapshot changed its kernel job by job').toBeGreaterThanOrEqual(changes);
}
