/**
 * The running jobs an eligibility table makes eligible, found through an index of the
 * jobs instead of a read of every one (issue 22: a distinct question builds a new table,
 * and reading 40,000 jobs for each was most of a distinct answer's time).
 *
 * A table gives each victim quota a relation key and each key a row of cells, one per
 * victim combo (rules/eligibility-table.ts). Most quotas share one key — those unrelated
 * to the preemptor's — whose row is nonzero for few combos (typically idle jobs, which
 * any quota may reclaim). So: the jobs of the quotas with another key are read through
 * the jobs-by-quota lists, those of the common key through the jobs-by-combo lists of its
 * nonzero combos only; the pairs found are sorted back into job order. The result is
 * `EligibilityTable.eligibleAmong`'s, element for element (test/unit/engine/eligible-jobs.test.ts);
 * when the index would read more than a third of the jobs, that scan runs instead.
 */
import type { Standing } from '../model/job-kinds.js';
import type { CompiledRule } from '../rules/compile-rules.js';
import type { EligibilityTable } from '../rules/eligibility-table.js';
import { COMBOS_PER_RELATION, VICTIM_STANDINGS } from '../rules/facts.js';
import type { Snapshot } from './snapshot.js';

/** The per-job facts the index is made of (the snapshot's JobIndex). */
export interface JobFacts {
  jobQuota: Int32Array;
  jobCombo: Int32Array;
}

/** Running jobs by quota and by combo, in job order within each list (CSR: `start[x]..start[x + 1]`). */
export interface JobLists {
  quotaStart: Int32Array;
  byQuota: Int32Array;
  comboStart: Int32Array;
  byCombo: Int32Array;
}

/** Groups job indices by `of[i]` (values in [0, groups)), keeping job order within a group: a counting sort. */
function group(of: Int32Array, groups: number): { start: Int32Array; list: Int32Array } {
  const start = new Int32Array(groups + 1);
  for (let i = 0; i < of.length; i++) start[of[i]! + 1]!++;
  for (let g = 0; g < groups; g++) start[g + 1]! += start[g]!;
  const next = start.slice(0, groups);
  const list = new Int32Array(of.length);
  for (let i = 0; i < of.length; i++) list[next[of[i]!]!++] = i;
  return { start, list };
}

/** The lists of `facts` for a tree of `quotas` quotas: O(jobs), once per snapshot state. */
export function jobLists(facts: JobFacts, quotas: number): JobLists {
  const q = group(facts.jobQuota, quotas);
  const c = group(facts.jobCombo, COMBOS_PER_RELATION);
  return { quotaStart: q.start, byQuota: q.list, comboStart: c.start, byCombo: c.list };
}

/** The standing a combo index (`comboIndex`) encodes: its last digit. */
export function standingOfCombo(combo: number): Standing {
  return VICTIM_STANDINGS[combo % VICTIM_STANDINGS.length]!;
}

/**
 * The snapshot's job lists, made once per state and per published index (a live snapshot
 * publishes new arrays when its jobs change: lists of older arrays are never read).
 */
export function jobListsOf(snap: Snapshot): JobLists {
  const facts = snap.index;
  const made = snap.memo('job-lists', () => ({ of: facts.jobQuota, lists: jobLists(facts, snap.tree.quotas.length) }));
  if (made.of === facts.jobQuota) return made.lists;
  made.of = facts.jobQuota;
  made.lists = jobLists(facts, snap.tree.quotas.length);
  return made.lists;
}

/** Eligible jobs and their cells, in job order: what `EligibilityTable.eligibleAmong` returns. */
export interface Eligible {
  jobs: Int32Array;
  cells: Int32Array;
}

/** The jobs `table` makes eligible among `facts`, read through `lists` when that reads fewer jobs. */
export function eligibleThroughIndex(table: EligibilityTable, facts: JobFacts, lists: JobLists): Eligible {
  const keys = table.victimKeys();
  const { quotaStart, byQuota, comboStart, byCombo } = lists;
  const { jobQuota, jobCombo } = facts;
  // Jobs per key; the key holding most jobs is read by combo, the others by quota.
  const perKey: number[] = [];
  for (let v = 0; v < keys.length; v++) {
    const k = keys[v]!;
    if (k >= 0) perKey[k] = (perKey[k] ?? 0) + quotaStart[v + 1]! - quotaStart[v]!;
  }
  let common = -1;
  for (let k = 0; k < perKey.length; k++) if ((perKey[k] ?? 0) > (common < 0 ? -1 : perKey[common]!)) common = k;
  const commonRow = common < 0 ? undefined : table.keyCells(common);
  let reads = 0;
  for (let k = 0; k < perKey.length; k++) if (k !== common) reads += perKey[k] ?? 0;
  if (commonRow) for (let c = 0; c < COMBOS_PER_RELATION; c++) if (commonRow[c] !== 0) reads += comboStart[c + 1]! - comboStart[c]!;
  if (3 * reads > jobQuota.length) return table.eligibleAmong(jobQuota, jobCombo);

  // (job, cell) packed in one number (cells < 2^16), so one numeric sort restores job order.
  const found = new Float64Array(reads);
  let n = 0;
  const rows: Array<Uint16Array | undefined> = [];
  for (let v = 0; v < keys.length; v++) {
    const k = keys[v]!;
    if (k < 0 || k === common) continue;
    const row = (rows[k] ??= table.keyCells(k));
    for (let p = quotaStart[v]!; p < quotaStart[v + 1]!; p++) {
      const i = byQuota[p]!;
      const cell = row[jobCombo[i]!]!;
      if (cell !== 0) found[n++] = i * 65536 + cell;
    }
  }
  if (commonRow) {
    for (let c = 0; c < COMBOS_PER_RELATION; c++) {
      const cell = commonRow[c]!;
      if (cell === 0) continue;
      for (let p = comboStart[c]!; p < comboStart[c + 1]!; p++) {
        const i = byCombo[p]!;
        if (keys[jobQuota[i]!] === common) found[n++] = i * 65536 + cell;
      }
    }
  }
  const sorted = found.subarray(0, n).sort();
  const jobs = new Int32Array(n);
  const cells = new Int32Array(n);
  for (let e = 0; e < n; e++) {
    const x = sorted[e]!;
    const cell = x % 65536;
    jobs[e] = (x - cell) / 65536;
    cells[e] = cell;
  }
  return { jobs, cells };
}

/**
 * The rule that makes each of a table's eligible jobs eligible, read on demand from its
 * cells (a binary search in job order) instead of a Map filled per candidate: a distinct
 * question's candidate set runs to thousands of jobs, and only its victims' rules are
 * read. A Map to its readers, who only `get` and `has` it (size and iteration see no
 * entries); it answers for every eligible job of the table, so for every candidate.
 */
export class EligibleRules extends Map<number, CompiledRule> {
  constructor(
    private readonly eligible: Eligible,
    private readonly table: EligibilityTable,
  ) {
    super();
  }

  /** Position of `job` among the eligible jobs, or -1. */
  private find(job: number): number {
    const jobs = this.eligible.jobs;
    let lo = 0;
    let hi = jobs.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const x = jobs[mid]!;
      if (x === job) return mid;
      if (x < job) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  override get(job: number): CompiledRule | undefined {
    const e = this.find(job);
    return e < 0 ? undefined : this.table.ruleAt(this.eligible.cells[e]!);
  }

  override has(job: number): boolean {
    return this.find(job) >= 0;
  }
}
