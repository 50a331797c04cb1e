/** `quotient simulate POLICY --trace FILE`: replay a workload over time on the engine whatif uses. */
import { readFileSync } from 'node:fs';
import { checkOutputFile, refuseEmptyPath, writeOutputFile, type OutputFileOptions } from '../io/write-in-folder.js';
import { noteReadFile } from '../io/input-registry.js';
import type { Command } from 'commander';
import { QuotientError } from '../errors.js';
import type { ClusterNode, Policy, RunningJob } from '../model/policy.js';
import { queuedAtStart, runningAtStart } from '../simulate/snapshot-start.js';
import { noteSnapshot } from './snapshot-note.js';
import { readBundles, type Bundle } from '../policy/parse/read-files.js';
import { parseSeeds, parseShard, planSweep, type SweepDocument, type SweepRun } from '../simulate/sweep.js';
import { clusterNodes, loadBundle, readMarket, readWorkload } from '../simulate/sim-inputs.js';
import { renderSweep, simulateReport, sweepReport } from '../simulate/report-document.js';
import { stderrSimLog } from './sim-log.js';
import type { Report } from '../simulate/report.js';
import { simulate } from '../simulate/simulator.js';
import type { SimJob, Workload } from '../simulate/workload.js';
import { display } from '../model/display-text.js';
import { EXIT } from './exit.js';
import { cycleFlag, kernelFlag, kernelOption, numberFlag, outputOptions, seedFlag, untilFlag } from './flags.js';
import { formatCount, MAX_DAYS, MAX_JOBS, MAX_SWEEP_RUNS } from '../policy/parse/number-limits.js';
import { readPositive, readWhole } from '../policy/parse/number-text.js';
import { formatOf, log, printDocument, say, type OutputOptions } from './output.js';
import { progressBar } from './progress-bar.js';
import { renderFindings } from './render-findings.js';
import { renderReport } from './render-report.js';
import { renderHtml, withSectionBeforeNotes } from './render-html.js';
import { snapshotRiskHtml } from '../simulate/risk-html.js';
import { CLUSTER_FORMATS, loadCluster, type ClusterFormat } from '../simulate/cluster-loaders.js';
import { defaultTeams, DEFAULT_QOS, parseQosFlag, parseTeamsFlag, readOpenb } from '../simulate/openb-trace.js';
import { generatePai, type GenTeam } from '../simulate/pai-generator.js';

interface SimulateOptions extends OutputOptions {
  trace?: string;
  openb?: string;
  openbQos?: string;
  openbTeams?: string;
  generate?: string;
  jobs: string;
  days: string;
  cluster?: string;
  pool?: string;
  html?: string;
  force?: boolean;
  seeds?: string;
  shard?: string;
  cycle?: string;
  seed: string;
  until?: string;
  strict?: boolean;
  kernel?: string;
}

/** Registers the command. */
export function registerSimulate(program: Command): void {
  const cmd = program
    .command('simulate')
    .description('replay jobs over simulated time on the policy — queues, preemption, idle resources, the spot market, checkpoints and restarts — and report per team and quota')
    .argument('<paths...>', 'the policy: files (merged) or one folder')
    .option('-t, --trace <file>', 'the jobs file: CSV with a header row, or YAML (docs/simulate.md "Jobs file")')
    .option('--seed <n>', 'seed of everything random (synthetic series and workloads): the same seed gives the same report', '1')
    .option('--until <time>', 'stop at this simulated time: seconds, or a duration such as 72h')
    .option('--strict', 'stop at the first bad row of the jobs file instead of leaving bad rows out')
    .option('--openb <file>', 'replay an openb pod list (../shared/data/openb/openb_pod_list_default.csv) instead of a jobs file')
    .option('--openb-qos <map>', 'openb QoS → priority/idle mode, e.g. LS=7/none,BE=1/only (defaults in docs/simulate.md)')
    .option('--openb-teams <map>', 'openb pods → quotas by weight, e.g. TeamA=2,TeamB=1 (default: every quota that one workspace uses)')
    .option('--generate <shape>', 'generate a synthetic workload instead: pai (shaped like the PAI 2020 trace)')
    .option('--jobs <n>', 'jobs to generate (--generate)', '10000')
    .option('--days <n>', 'days the generated jobs arrive over (--generate)', '7')
    .option('--cluster <format:file>', 'the nodes from a public node list instead of the Cluster document: pai:FILE, openb:FILE or spot:FILE')
    .option('--pool <name>', "the pool the --cluster nodes join (default: the policy's only pool)")
    .option('--html <file>', 'also write the report as one self-contained HTML file with charts (never over an input or a file quotient did not write: docs/cli.md "Output files")')
    .option('--force', 'let --html replace an existing file that quotient did not write (never an input of the command)')
    .option('--cycle <time>', 'run the queues every TIME of simulated time (e.g. 30s), as real schedulers run in cycles; default after every event')
    .option('--seeds <list>', 'a sweep over seeds: 1-8 or 1,5,9 (prints a SweepReport)')
    .option('--shard <i/N>', 'run only shard i of N of the sweep (runs k with k mod N = i); merge the shards with `quotient report merge`')
    .addHelpText(
      'after',
      '\nExamples:\n  quotient simulate policies/spot-market --trace policies/spot-market/jobs.csv\n  quotient simulate policies/idle-resources --trace jobs.yaml --json\n\nExit codes: 0 ran, 1 ran but rows of the jobs file were left out, 2 could not run.',
    )
    .action(async (paths: string[], opts: SimulateOptions) => {
      const format = formatOf(opts);
      const backend = kernelFlag(opts.kernel);
      const seed = seedFlag(opts.seed);
      const until = opts.until === undefined ? undefined : untilFlag(opts.until);
      if (opts.html !== undefined) refuseEmptyPath('--html', opts.html);
      const bundles = readBundles(paths);
      const sources = [opts.trace, opts.openb, opts.generate].filter((x) => x !== undefined).length;
      if (sources === 0)
        throw new QuotientError('cli/no-workload', 'no workload given', 'name a jobs file with --trace FILE, an openb pod list with --openb FILE, or --generate pai (docs/simulate.md)');
      if (sources > 1) throw new QuotientError('cli/conflicting-flags', '--trace, --openb and --generate each give the whole workload', 'give one of them');
      if (opts.seeds !== undefined || opts.shard !== undefined || bundles.length > 1) {
        process.exitCode = await runSweep(bundles, opts, format, backend, until);
        return;
      }
      const { policy, label } = loadOne(bundles[0]!);
      const { report, rejected } = await runOne(policy, label, opts, seed, backend, until, format);
      // The snapshot's jobs ranked by exposure (quotient risk), a section of the HTML report.
      const risk = opts.html === undefined ? '' : await snapshotRiskHtml(bundles[0]!.files, label, { seed, backend, otherNodes: !!opts.cluster });
      if (opts.html !== undefined)
        writeOutputFile(
          opts.html,
          await renderHtml(
            report,
            withSectionBeforeNotes(() => risk),
          ),
          htmlOutput(opts),
        );
      print(report, format);
      process.exitCode = rejected > 0 ? EXIT.findings : EXIT.ok;
    });
  kernelOption(cmd);
  outputOptions(cmd, 'print a SimulateReport as JSON (a SweepReport with --seeds or --shard): docs/simulate.md "Report fields", schemas/simulate-report.json');
}

/** How --html is written (write-in-folder.ts). */
function htmlOutput(opts: SimulateOptions): OutputFileOptions {
  return { flag: '--html', kind: 'html', force: opts.force };
}

/** One simulation of one policy with one seed. */
async function runOne(
  policy: Policy,
  label: string,
  opts: SimulateOptions,
  seed: number,
  backend: 'wasm' | 'reference',
  until: number | undefined,
  format: 'table' | 'json' | 'yaml',
): Promise<{ report: Report; rejected: number }> {
  const nodes = opts.cluster ? loadNodes(opts.cluster, opts.pool, policy) : clusterNodes(policy, label);
  checkRootsFit(policy, nodes);
  const start = snapshotStart(policy, !!opts.cluster);
  const workload = opts.trace ? readWorkload(opts.trace, policy, !!opts.strict, stderrSimLog, start.running) : opts.openb ? readOpenbFlag(opts, policy) : generateFlag(opts, policy, seed);
  const market = readMarket(policy, seed, horizonOf(workload, until), stderrSimLog);
  const progress = progressBar({ label: 'simulating', unit: 'jobs arrived', quietOffTerminal: format !== 'table' });
  const cycle = opts.cycle === undefined ? 0 : cycleFlag(opts.cycle);
  // Every input is read by now: a --html that would replace one is refused before the run, not after it.
  if (opts.html !== undefined) checkOutputFile(opts.html, htmlOutput(opts));
  const report = await simulate(
    { policy, label, nodes, workload, market, ...start },
    { seed, backend, cycle, ...(until !== undefined ? { until } : {}), onProgress: (done, total) => progress.update(done, total) },
  ).finally(progress.stop);
  return { report, rejected: workload.rejected.length };
}

/** A sweep over the policies and seeds, or one shard of it (docs/simulate.md "Sweeps and shards"). */
async function runSweep(bundles: Bundle[], opts: SimulateOptions, format: 'table' | 'json' | 'yaml', backend: 'wasm' | 'reference', until: number | undefined): Promise<number> {
  if (opts.html !== undefined) throw new QuotientError('cli/conflicting-flags', '--html writes one report, and a sweep makes several', 'drop --html, or run one policy with one --seed');
  const seeds = opts.seeds === undefined ? [seedFlag(opts.seed)] : parseSeeds(opts.seeds);
  if ('refused' in seeds) throw new QuotientError(seeds.pastLimit ? 'cli/out-of-range' : 'cli/bad-seeds', `--seeds: ${seeds.refused}`, 'for example --seeds 1-8 or --seeds 1,5,9');
  const shard = opts.shard === undefined ? undefined : parseShard(opts.shard);
  if (typeof shard === 'string') throw new QuotientError('cli/bad-shard', `--shard: ${shard}`, 'for example --shard 0/4 (with JOB_COMPLETION_INDEX as i in a Kubernetes Indexed Job)');
  const policies = bundles.map(loadOne);
  const plan = planSweep(policies.length, seeds, shard);
  checkSweepSize(plan, shard);
  const runs: SweepRun[] = [];
  let rejected = 0;
  for (const r of plan.runs) {
    const { policy, label } = policies[r.policy]!;
    const one = await runOne(policy, label, opts, r.seed, backend, until, format);
    rejected += one.rejected;
    runs.push({ index: r.index, policy: label, seed: r.seed, report: one.report });
  }
  const doc: SweepDocument = { version: 1, kind: 'SimulationSweep', total: plan.total, ...(shard ? { shard } : {}), runs };
  if (format === 'table') say(renderSweep(doc));
  else printDocument(format, sweepReport(doc));
  return rejected > 0 ? EXIT.findings : EXIT.ok;
}

/** A process runs at most MAX_SWEEP_RUNS runs of a sweep (each report is kept until the sweep prints): more is refused, with the shards that fit. */
function checkSweepSize(plan: { total: number; runs: unknown[] }, shard: { index: number; count: number } | undefined): void {
  if (plan.runs.length <= MAX_SWEEP_RUNS) return;
  const shards = Math.ceil(plan.total / MAX_SWEEP_RUNS);
  throw new QuotientError(
    'cli/out-of-range',
    `the sweep${shard ? `'s shard ${shard.index}/${shard.count}` : ''} holds ${formatCount(plan.runs.length)} runs, more than the ${formatCount(MAX_SWEEP_RUNS)} one process runs`,
    `split it with --shard i/${shards} (i from 0 to ${shards - 1}) and join the shards with \`quotient report merge\``,
  );
}

function print(report: Report, format: 'table' | 'json' | 'yaml'): void {
  if (format === 'table') say(renderReport(report));
  else printDocument(format, simulateReport(report));
}

/** Loads one policy (sim-inputs.ts) and says on stderr which snapshot it uses. */
function loadOne(b: Bundle): { policy: Policy; label: string } {
  const loaded = loadBundle(b, stderrSimLog);
  noteSnapshot(loaded.label, loaded.policy);
  return loaded;
}

/**
 * The Cluster snapshot's running jobs start the run, on its nodes (snapshot-start.ts). On
 * the nodes of --cluster they have nowhere to be: the run starts empty, and the report's
 * notes and stderr say so.
 */
function snapshotStart(policy: Policy, otherNodes: boolean): { running?: RunningJob[]; queued?: SimJob[]; notes?: string[] } {
  const c = policy.cluster;
  const queued = c?.queue?.length ?? 0;
  if (!c || (c.jobs.length === 0 && queued === 0)) return {};
  if (!otherNodes) return { running: runningAtStart(c), ...(queued ? { queued: queuedAtStart(c) } : {}) };
  const jobs = [`${c.jobs.length} running job(s)`, ...(queued ? [`${queued} queued job(s)`] : [])].join(' and ');
  const note = `the ${jobs} of Cluster "${c.name}" are not part of the run: they are placed on its nodes, and --cluster replaces them`;
  log(display`note: ${note}`);
  return { notes: [note] };
}

/** How far synthetic series must reach: --until, or well past the last arrival. */
function horizonOf(w: Workload, until: number | undefined): number {
  if (until !== undefined) return until;
  const last = w.jobs.reduce((m, j) => Math.max(m, j.submit + j.duration * 4), 0);
  return last + 86_400_000;
}

/** `--cluster FORMAT:FILE` → nodes of the pool `--pool` names (or the policy's only pool). */
function loadNodes(value: string, poolFlag: string | undefined, policy: Policy): ClusterNode[] {
  const m = /^(\w+):(.+)$/.exec(value);
  if (!m || !(CLUSTER_FORMATS as readonly string[]).includes(m[1]!))
    throw new QuotientError(
      'cli/bad-cluster',
      `--cluster must be FORMAT:FILE with FORMAT one of ${CLUSTER_FORMATS.join(', ')}, got "${value}"`,
      'for example --cluster openb:../shared/data/openb/openb_node_list_gpu_node.csv',
    );
  const pool = poolFlag ?? (policy.pools.length === 1 ? policy.pools[0]!.name : undefined);
  if (pool === undefined)
    throw new QuotientError('cli/no-pool', `the policy has ${policy.pools.length} pools; --cluster nodes need one`, `name it with --pool (${policy.pools.map((p) => p.name).join(', ')})`);
  if (!policy.pools.some((p) => p.name === pool)) throw new QuotientError('cli/unknown-pool', `no pool named "${pool}"`, `pools: ${policy.pools.map((p) => p.name).join(', ')}`);
  const loaded = loadCluster(m[1] as ClusterFormat, m[2]!, readText(m[2]!), pool);
  if (loaded.findings.length) {
    log(renderFindings(loaded.findings.slice(0, 20)));
    throw new QuotientError('simulate/bad-cluster', `${m[2]} has ${loaded.findings.length} bad row(s)`, 'fix the rows named above');
  }
  for (const n of loaded.notes) log(display`note: ${n}`);
  if (loaded.nodes.length === 0) throw new QuotientError('simulate/no-cluster', `${m[2]} holds no GPU node`, 'check the file and the format');
  return loaded.nodes;
}

/** SEMANTICS 1: the roots of a pool must not guarantee more than its nodes hold. */
function checkRootsFit(policy: Policy, nodes: ClusterNode[]): void {
  for (const pool of policy.pools) {
    const gpus = nodes.filter((n) => n.pool === pool.name).reduce((s, n) => s + n.gpus, 0);
    const roots = policy.quotas.filter((q) => q.parent === null && q.pool === pool.name);
    const min = roots.reduce((s, q) => s + q.min.gpu, 0);
    if (min > gpus)
      throw new QuotientError(
        'simulate/roots-exceed-pool',
        `the root quotas of pool "${pool.name}" guarantee ${min} GPUs but its nodes hold ${gpus}`,
        "lower the roots' min.gpu or simulate on a bigger cluster",
      );
  }
}

function readText(path: string): string {
  try {
    noteReadFile(path);
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new QuotientError('cli/unreadable-file', `cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'check the path');
  }
}

function readOpenbFlag(opts: SimulateOptions, policy: Policy): Workload {
  const qos = opts.openbQos === undefined ? DEFAULT_QOS : parseQosFlag(opts.openbQos);
  if (typeof qos === 'string') throw new QuotientError('cli/bad-openb-qos', `--openb-qos: ${qos}`, 'for example --openb-qos LS=7/none,BE=1/only');
  const teams = opts.openbTeams === undefined ? defaultTeams(policy) : parseTeamsFlag(opts.openbTeams, policy);
  if (typeof teams === 'string') throw new QuotientError('cli/bad-openb-teams', `--openb-teams: ${teams}`, 'for example --openb-teams TeamA=2,TeamB=1');
  if (teams.length === 0)
    throw new QuotientError('cli/bad-openb-teams', 'the policy has no leaf quota with exactly one workspace to map openb pods to', 'name the quotas with --openb-teams QUOTA=WEIGHT,...');
  const w = readOpenb(opts.openb!, readText(opts.openb!), { qos, teams });
  if (w.rejected.length) {
    log(renderFindings(w.rejected.slice(0, 20)));
    log(display`${opts.openb ?? ''}: ${new Set(w.rejected.map((f) => f.line)).size} row(s) left out`);
  }
  for (const n of w.notes) log(display`note: ${n}`);
  return w;
}

function generateFlag(opts: SimulateOptions, policy: Policy, seed: number): Workload {
  if (opts.generate !== 'pai') throw new QuotientError('cli/bad-generate', `unknown generator "${opts.generate}"`, 'use --generate pai');
  const jobs = numberFlag('--jobs', opts.jobs, readWhole(opts.jobs, 1, MAX_JOBS), 'cli/bad-jobs');
  const days = numberFlag('--days', opts.days, readPositive(opts.days, MAX_DAYS), 'cli/bad-days');
  // Inference services are important and never idle or spot; training and notebooks are flexible (docs/simulate.md).
  const teams: GenTeam[] = defaultTeams(policy).map((t) => (t.module === 'EAS' ? { ...t, priority: [7, 9], flexible: false } : { ...t, priority: [1, 6], flexible: true }));
  if (teams.length === 0) throw new QuotientError('cli/bad-generate', 'the policy has no leaf quota with exactly one workspace to generate jobs for', 'add workspaces to the leaf quotas');
  return generatePai({ jobs, days, seed, teams, markets: policy.spotMarkets ?? [] });
}
