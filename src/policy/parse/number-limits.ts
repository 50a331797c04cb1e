/**
 * The largest value every number Quotient reads may take, in one table (docs/cli.md and
 * docs/policy-format.md "Limits" list them). A number past its limit is refused where it
 * is read (number-text.ts for text; the schema or the builder for YAML numbers), with the
 * limit in the message: nothing downstream then meets a time of 1e308 ms, a series of a
 * billion points or a billion jobs, each of which once ran until memory ran out (issue 18).
 *
 * The limits sit far above real use and far below what breaks: a simulated decade of
 * hourly market points is 87,600 of them; a PAI-2020-sized workload is about a million
 * jobs and takes about 0.5 GB.
 */

const DAY_MS = 86_400_000;

/** The longest simulated run and any duration, in days: about ten years. */
export const MAX_DAYS = 3650;

/**
 * The latest simulated time (a trace's `submit`, a market point's `at`, `--until`, the
 * time of `whatif --market`) and the longest duration (a trace's `duration`, `--cycle`,
 * every duration of a policy), in ms: 3650 days.
 */
export const MAX_TIME_MS = MAX_DAYS * DAY_MS;

/** MAX_TIME_MS as people read it in a message. */
export const MAX_TIME_TEXT = `${MAX_DAYS}d (${MAX_TIME_MS / 1000} seconds)`;

/** The highest price per instance-hour: a bid (`priceLimit`, `--market TYPE=PRICE@T`), a market price, pay-as-you-go. */
export const MAX_PRICE = 1_000_000;

/** The most spot instances of one type at once: an inventory count, inline, in a CSV, synthetic or `--market TYPE=inventory:N@T`. */
export const MAX_INVENTORY = 1_000_000;

/** The largest seed (`--seed`, `--seeds`, `synthetic.seed`): seeds are 32 bits, and a larger one would silently wrap onto a smaller. */
export const MAX_SEED = 2 ** 32 - 1;

/** The most jobs one workload may hold: rows of a jobs file, or `--generate pai --jobs N` (about 0.5 GB of jobs). */
export const MAX_JOBS = 1_000_000;

/** The most synthetic market points one run may generate, over all its instance types (horizon ÷ `synthetic.every` each). */
export const MAX_SYNTHETIC_POINTS = 1_000_000;

/** The most seeds `--seeds` may list. */
export const MAX_SEEDS = 100_000;

/** The most runs of a sweep one process runs (each keeps its report until the sweep prints): more is split with `--shard i/N`. */
export const MAX_SWEEP_RUNS = 1_000;

/** The most shards a sweep may be split into (`--shard i/N`). */
export const MAX_SHARDS = MAX_SEEDS;

/** The most nodes one policy's Cluster may hold, `nodeGroups` counted out (100,000 nodes take about 0.2 GB to check). */
export const MAX_CLUSTER_NODES = 100_000;

/** `1000000` → `1,000,000`: limits as people read them. */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}
