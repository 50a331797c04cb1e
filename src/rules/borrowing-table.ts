/**
 * Who may run `borrowing` (SEMANTICS 5.2), tabulated like eligibility: per quota, the
 * `borrow` rules (compile-rules.ts `<Q>/borrowing`) run once over the nine priorities and
 * the winner stored, so the engine's answer context reads one cell, and every sentence
 * about borrowing names the rule and its policy line. The conditions are evaluated with
 * json-rules-engine's own operators (rule-predicate.ts); test/unit/rules/borrowing-table
 * holds the table to full engine runs.
 *
 *   cells[quota][priority] = 0      nobody of that priority borrows on that quota
 *                          = k + 1  rules[k] lets them
 */
import type { QuotaTree } from '../model/quota-tree.js';
import type { CompiledRule } from './compile-rules.js';
import type { Engine } from 'json-rules-engine';
import { makeEngine } from './evaluate-rules.js';
import { PRIORITIES, preemptorFacts } from './facts.js';
import { rulePredicate } from './rule-predicate.js';

export class BorrowingTable {
  /** Per quota index, its cells by priority (index 0 unused), made on first use. */
  private readonly cells = new Map<number, Uint16Array>();
  /** The `borrow` rules' indices in `rules`, by the quota they belong to. */
  private readonly byQuota = new Map<string, number[]>();
  /** An engine with no rules, made on first use (a command that answers nothing never loads json-rules-engine): its operator map judges every condition. */
  private operatorEngineMade?: Engine;
  private get operatorEngine(): Engine {
    return (this.operatorEngineMade ??= makeEngine([]));
  }

  constructor(
    private readonly rules: readonly CompiledRule[],
    private readonly tree: QuotaTree,
  ) {
    rules.forEach((r, i) => {
      if (r.kind !== 'borrow') return;
      const list = this.byQuota.get(r.quota);
      if (list) list.push(i);
      else this.byQuota.set(r.quota, [i]);
    });
  }

  /** The rule that lets a job of `priority` on quota `q` run borrowing, or undefined. */
  ruleFor(q: number, priority: number): CompiledRule | undefined {
    const row = this.rowOf(q);
    const cell = Number.isInteger(priority) && priority >= 1 && priority <= 9 ? row[priority]! : 0;
    return cell === 0 ? undefined : this.rules[cell - 1];
  }

  /** Quota `q`'s cells: for each priority, the first of its `borrow` rules that fires (rule order). */
  private rowOf(q: number): Uint16Array {
    let row = this.cells.get(q);
    if (row) return row;
    row = new Uint16Array(PRIORITIES.length + 1);
    const name = this.tree.at(q).name;
    const facts = preemptorFacts(name, 0, 'borrowing', 1);
    for (const i of this.byQuota.get(name) ?? []) {
      const pred = rulePredicate(this.rules[i]!.rule, this.operatorEngine);
      // compile-rules.ts writes a `borrow` rule as one `all` of plain conditions on the preemptor.
      if (!pred || pred.hasMixed) throw new Error(`rule ${this.rules[i]!.name}: a borrow rule must be plain conditions on the preemptor`);
      for (const p of PRIORITIES) {
        if (row[p] !== 0) continue;
        facts.preemptorPriority = p;
        if (pred.victimOnly(facts) && pred.key(facts)) row[p] = i + 1;
      }
    }
    this.cells.set(q, row);
    return row;
  }
}
