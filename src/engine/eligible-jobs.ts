/**
 * The running jobs an eligibility table makes eligible, found through an index of the
 * jobs instead of a read of every one (issue 22: a distinct question builds a new table,
 * and reading 40,000 jobs for each was most of a distinct answer's time).
 *
 * A table gives each victim quota a relation key and each key a row of cells, one per
 * victim combo (rules/eligibility-table.ts). Most quotas share one key — those unrelated
 * to the preemptor's — whose row is nonzero for few combos (typically idle jobs, which
 * any quota may reclaim). So: the jobs of the quotas with another key are read through
 * the jobs-by-quota lists, those of the common key off one block per snapshot state of
 * the jobs whose combo is nonzero in its row (`comboBlock`: tables share few such rows);
 * each found job is marked in a bitmap over the jobs, and reading the bitmap's words in
 * order gives them back in job order without a sort (a sort of the pairs was most of a
 * preempting answer's time on the flat shape). The result is
 * `EligibilityTable.eligibleAmong`'s, element for element (test/unit/engine/eligible-jobs.test.ts);
 * when the index would read more than one entry per job, that scan runs instead.
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
  /** Jobs by set of combos (`comboBlock`), made on first use. */
  blocks?: Map<string, Int32Array>;
  /** Where `eligibleThroughIndex` marks a table's eligible jobs (all zero between uses). */
  scratch?: { bits: Int32Array; cellAt: Uint16Array };
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

/**
 * The jobs whose combo has a nonzero cell in `row` (one relation key's row: `keyCells`), in
 * job order, whatever their quota: made once per snapshot state and per set of nonzero
 * combos (tables share few such sets — reclaim of idle jobs at any priority, say), so a
 * new table's common key is read as one list instead of per-combo lists sorted back.
 */
function comboBlock(lists: JobLists, facts: JobFacts, row: Uint16Array): Int32Array {
  let name = '';
  for (let c = 0; c < COMBOS_PER_RELATION; c++) if (row[c] !== 0) name += `${c},`;
  const blocks = (lists.blocks ??= new Map<string, Int32Array>());
  let block = blocks.get(name);
  if (!block) {
    const jobCombo = facts.jobCombo;
    let n = 0;
    for (let c = 0; c < COMBOS_PER_RELATION; c++) if (row[c] !== 0) n += lists.comboStart[c + 1]! - lists.comboStart[c]!;
    block = new Int32Array(n);
    let at = 0;
    for (let i = 0; i < jobCombo.length; i++) if (row[jobCombo[i]!] !== 0) block[at++] = i;
    blocks.set(name, block);
  }
  return block;
}

/** The jobs `table` makes eligible among `facts`, read through `lists` when that reads fewer jobs. */
export function eligibleThroughIndex(table: EligibilityTable, facts: JobFacts, lists: JobLists): Eligible {
  const keys = table.victimKeys();
  const { quotaStart, byQuota, comboStart } = lists;
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
  let special = 0;
  for (let k = 0; k < perKey.length; k++) if (k !== common) special += perKey[k] ?? 0;
  let inCommon = 0;
  if (commonRow) for (let c = 0; c < COMBOS_PER_RELATION; c++) if (commonRow[c] !== 0) inCommon += comboStart[c + 1]! - comboStart[c]!;
  // Past about one read per job, the plain scan of every job reads as much and marks nothing.
  if (special + inCommon > jobQuota.length) return table.eligibleAmong(jobQuota, jobCombo);

  // Every eligible job marked in a bitmap over the jobs, its cell beside it: reading the
  // bitmap's words in order gives them in job order without a sort (the other keys' jobs
  // come quota by quota, the common key's off the block of its nonzero combos).
  const scratch = scratchOf(lists, jobQuota.length);
  const { bits, cellAt } = scratch;
  const rows: Array<Uint16Array | undefined> = [];
  let n = 0;
  for (let v = 0; v < keys.length; v++) {
    const k = keys[v]!;
    if (k < 0 || k === common) continue;
    const row = (rows[k] ??= table.keyCells(k));
    for (let p = quotaStart[v]!; p < quotaStart[v + 1]!; p++) {
      const i = byQuota[p]!;
      const cell = row[jobCombo[i]!]!;
      if (cell === 0) continue;
      bits[i >>> 5]! |= 1 << (i & 31);
      cellAt[i] = cell;
      n++;
    }
  }
  if (commonRow) {
    const block = comboBlock(lists, facts, commonRow);
    for (let b = 0; b < block.length; b++) {
      const i = block[b]!;
      if (keys[jobQuota[i]!] !== common) continue;
      bits[i >>> 5]! |= 1 << (i & 31);
      cellAt[i] = commonRow[jobCombo[i]!]!;
      n++;
    }
  }
  const jobs = new Int32Array(n);
  const cells = new Int32Array(n);
  let out = 0;
  for (let w = 0; w < bits.length && out < n; w++) {
    let word = bits[w]!;
    if (word === 0) continue;
    bits[w] = 0;
    while (word !== 0) {
      const i = (w << 5) + 31 - Math.clz32(word & -word);
      word &= word - 1;
      jobs[out] = i;
      cells[out++] = cellAt[i]!;
    }
  }
  return { jobs, cells };
}

/** The bitmap and cells `eligibleThroughIndex` marks eligible jobs in, one per lists (so per snapshot state); left all zero after each use. */
function scratchOf(lists: JobLists, jobs: number): { bits: Int32Array; cellAt: Uint16Array } {
  if (!lists.scratch || lists.scratch.cellAt.length < jobs) lists.scratch = { bits: new Int32Array((jobs + 31) >>> 5), cellAt: new Uint16Array(jobs) };
  return lists.scratch;
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
