/**
 * Reading what a simulation runs on — the policy, its nodes, the jobs file, the spot
 * market's series — for every command that runs the simulator (`simulate`, `whatif
 * --market`). What a person should read on the way (rows left out, warnings) goes to the
 * caller's SimLog (the CLI's writes to stderr); what stops the run is a QuotientError.
 */
import { readFileSync } from 'node:fs';
import { QuotientError, sortFindings, type Finding } from '../errors.js';
import { noteReadFile } from '../io/input-registry.js';
import { display, type Display } from '../model/display-text.js';
import type { ClusterNode, Policy, RunningJob } from '../model/policy.js';
import { loadPolicy } from '../policy/load-policy.js';
import type { Bundle } from '../policy/parse/read-files.js';
import { marketSeries, readMarketFiles, type TypeSeries } from './market.js';
import { readJobs } from './read-jobs.js';
import type { Workload } from './workload.js';

/** Where reading the inputs tells people what it left out or assumed. */
export interface SimLog {
  findings(findings: Finding[]): void;
  note(text: Display): void;
}

/** Loads one policy; a policy with errors stops the run (exit 2). Warnings go to `log`. */
export function loadBundle(b: Bundle, log: SimLog): { policy: Policy; label: string } {
  const loaded = loadPolicy(b.files, { now: 0 });
  if (!loaded.policy) {
    log.findings(loaded.findings);
    throw new QuotientError('simulate/invalid-policy', `the policy ${b.label} has errors; no simulation runs on a policy with errors`, 'run `quotient check` on it and fix the errors first');
  }
  const warnings = loaded.findings.filter((f) => f.severity === 'warning');
  if (warnings.length) log.findings(warnings);
  return { policy: loaded.policy, label: b.label };
}

/** The nodes of the policy's Cluster document. */
export function clusterNodes(policy: Policy, label: string): ClusterNode[] {
  const c = policy.cluster;
  if (!c || c.nodes.length === 0) throw new QuotientError('simulate/no-cluster', `the policy ${label} has no Cluster nodes to simulate on`, 'add a Cluster document with nodes or nodeGroups');
  return c.nodes;
}

/**
 * Reads the jobs file; tells `log` the rows left out (or stops at the first with
 * `strict`). `running`: the snapshot's jobs that start the run, whose names no row may take.
 */
export function readWorkload(path: string, policy: Policy, strict: boolean, log: SimLog, running?: RunningJob[]): Workload {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
    noteReadFile(path);
  } catch (e) {
    throw new QuotientError('cli/unreadable-file', `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'check the path');
  }
  const instanceTypes = new Map((policy.spotMarkets ?? []).flatMap((m) => m.instanceTypes.map((t) => [t.name, { pool: t.pool }] as const)));
  const workload = readJobs(path, text, { policy, instanceTypes, ...(running ? { running } : {}) }, { strict });
  if (workload.rejected.length > 0) {
    log.findings(workload.rejected.slice(0, 20));
    if (strict) throw new QuotientError('simulate/bad-row', `${path} has a bad row; --strict stops at the first`, 'fix the row above, or drop --strict to leave bad rows out');
    const rows = new Set(workload.rejected.map((f) => f.line)).size;
    // A file none of whose rows can be read is not a workload: no report of 0 jobs is
    // printed as if a simulation had run (exit 2, like a file that cannot be opened).
    if (workload.jobs.length === 0)
      throw new QuotientError(
        'simulate/no-jobs',
        `${path}: no job can be simulated (${workload.rejected.length} finding(s)${workload.rejected.length > 20 ? ', the first 20 shown' : ''} above)`,
        'fix the file or the rows named above',
      );
    log.note(
      display`${path}: ${rows} row(s) left out (${workload.rejected.length} finding(s)${workload.rejected.length > 20 ? ', the first 20 shown' : ''}); ${workload.jobs.length} job(s) simulated`,
    );
  }
  if (workload.jobs.length === 0)
    throw new QuotientError('simulate/no-jobs', `${path} holds no jobs`, 'a CSV jobs file is a header row and one job a row; a YAML one a list of jobs (docs/simulate.md "Jobs file")');
  return workload;
}

/** The market series: inline, the SpotMarket's CSV files (read as `check` reads them: market.ts), or synthetic. */
export function readMarket(policy: Policy, seed: number, horizon: number, log: SimLog): TypeSeries[] {
  const markets = policy.spotMarkets ?? [];
  const files = readMarketFiles(markets);
  if (files.findings.length) {
    log.findings(sortFindings(files.findings));
    throw new QuotientError('simulate/bad-market', "the spot market's CSV files have errors", 'fix the rows named above (`quotient check` reports them too)');
  }
  return marketSeries(markets, files, seed, horizon);
}
