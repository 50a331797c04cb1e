/**
 * SEMANTICS 5.3's criteria for choosing victims, as one table (id, name, sentences):
 * the policy's words (a QuotaTree's `victimOrder`, in SEMANTICS' own order, the default),
 * the kernel's number of each, what it prefers in an explanation, and what it compares
 * for one job and for a set (the columns docs/semantics.md section 7 prints). Everything
 * that names a criterion reads it: the schema and the policy check, the engine (which
 * hands the kernel an order in these ids), the explanations, and the docs (a test holds
 * docs/semantics.md's table to it).
 *
 * The kernel cannot read this module (kernel/ imports only errors.ts, assembly/ nothing of
 * ours), so its TypeScript twin (src/kernel/victim-order.ts `CRITERIA`) and the
 * AssemblyScript side (assembly/criteria.ts) keep their own numbers:
 * test/unit/model/victim-order.test.ts holds this table's ids to the twin's, and the
 * wasm's to the twin's are checked when the kernel loads (`checkMirrors`).
 *
 * The spot market's release order (SEMANTICS 6, ours) is named here too.
 */

/** One criterion of SEMANTICS 5.3. */
export interface VictimCriterionRow {
  /** The kernel's number (1..5): src/kernel/victim-order.ts `CRITERIA`, assembly/criteria.ts. */
  readonly id: 1 | 2 | 3 | 4 | 5;
  /** The policy's word (`victimOrder`). */
  readonly name: string;
  /** What it prefers, as an answer says it. */
  readonly sentence: string;
  /** What it compares for one job, in the greedy's order ('—' when it says nothing of one job). */
  readonly job: string;
  /** What it compares for a set of victims (lower is better). */
  readonly set: string;
}

/** The table, in SEMANTICS' own order (the default). */
export const VICTIM_CRITERION_TABLE = [
  {
    id: 1,
    name: 'priority',
    sentence: 'the least important most important victim (idle before borrowing before in-quota, then the lower priority)',
    job: 'standing rank (`idle` < `borrowing` < `in-quota`), then priority',
    set: 'the most important victim: the highest (rank, priority)',
  },
  {
    id: 2,
    name: 'lost-work',
    sentence: 'less work lost in total',
    job: 'lost GPU-hours (section 10)',
    set: 'total lost GPU-hours, compared in rounded millionths so sums are exact',
  },
  { id: 3, name: 'gpus', sentence: 'fewer GPUs freed', job: 'GPUs held', set: 'total GPUs' },
  { id: 4, name: 'count', sentence: 'fewer victims', job: '—', set: 'number of victims' },
  { id: 5, name: 'recency', sentence: 'more recently started victims', job: 'more recently started first', set: "the oldest victim's start: later is better" },
] as const satisfies readonly VictimCriterionRow[];

/** One criterion's name in a policy. */
export type VictimCriterion = (typeof VICTIM_CRITERION_TABLE)[number]['name'];

/** The criteria's names, in SEMANTICS' own order (the default `victimOrder`). */
export const VICTIM_CRITERIA = VICTIM_CRITERION_TABLE.map((c) => c.name) as unknown as readonly [VictimCriterion, ...VictimCriterion[]];

const BY_NAME: ReadonlyMap<string, VictimCriterionRow> = new Map(VICTIM_CRITERION_TABLE.map((c) => [c.name, c]));

/** The row of a criterion by its policy name. */
export function victimCriterion(name: VictimCriterion): VictimCriterionRow {
  return BY_NAME.get(name)!; // every VictimCriterion is a row's name
}

/** What each criterion prefers, as an answer explains it (the table's `sentence`). */
export const VICTIM_CRITERION_TEXT: Readonly<Record<VictimCriterion, string>> = Object.fromEntries(VICTIM_CRITERION_TABLE.map((c) => [c.name, c.sentence])) as Record<VictimCriterion, string>;

/** True when `order` is SEMANTICS 5.3's own. */
export function isDefaultVictimOrder(order: readonly VictimCriterion[]): boolean {
  return order.length === VICTIM_CRITERIA.length && order.every((c, i) => c === VICTIM_CRITERIA[i]);
}

/**
 * The spot market's release order when its inventory falls short (SEMANTICS 6: "lowest
 * bids first", ours), criteria first-deciding first: engine/spot-rules.ts
 * `selectReleases` sorts by it and says `SPOT_RELEASE_TEXT` in each release's reason.
 */
export const SPOT_RELEASE_ORDER = [
  { name: 'bid', sentence: 'the lowest bid first' },
  { name: 'recency', sentence: 'then the most recently started' },
  { name: 'name', sentence: 'then by job name' },
] as const;

/** The release order as a release's reason says it. */
export const SPOT_RELEASE_TEXT = 'the lowest bids go first';
