/** `quotient risk POLICY`: which running jobs go next (docs/risk.md). Parses, calls simulate/risk*.ts, renders. */
import type { Command } from 'commander';
import { QuotientError, sortFindings, type Finding } from '../errors.js';
import type { Viewer } from '../engine/visibility.js';
import { Session } from '../engine/session.js';
import { readBundles } from '../policy/parse/read-files.js';
import { readSimTime, readWhole, readPositive } from '../policy/parse/number-text.js';
import type { ArrivalSource } from '../simulate/risk-arrivals.js';
import { riskBody } from '../simulate/risk-document.js';
import { checkHorizonWork, horizonRisk, type HorizonOptions, type HorizonProgress, type HorizonRisk } from '../simulate/risk-horizon.js';
import { assessRisk } from '../simulate/risk.js';
import { asUser, unknownUser } from './as-user.js';
import { EXIT } from './exit.js';
import { kernelFlag, kernelOption, numberFlag, outputOptions, seedFlag } from './flags.js';
import { formatOf, log, printDocument, report, say, type OutputOptions } from './output.js';
import { renderFindings, countFindings } from './render-findings.js';
import { progressBar } from './progress-bar.js';
import { renderRisk } from './render-risk.js';
import { readWorkload } from '../simulate/sim-inputs.js';
import { stderrSimLog } from './sim-log.js';

/** Most arrivals one run asks (each is one answer; and each exposed job's protections ask them again). */
export const MAX_SAMPLES = 100_000;
/** Most simulated runs over a horizon. */
export const MAX_HORIZON_RUNS = 1_000;
/** Most arrivals per hour over a horizon. */
export const MAX_RATE = 1_000_000;

interface RiskOptions extends OutputOptions {
  as?: string;
  horizon?: string;
  runs: string;
  rate: string;
  samples: string;
  seed: string;
  trace?: string;
  kernel?: string;
}

/** Registers the command. */
export function registerRisk(program: Command): void {
  const cmd = program
    .command('risk')
    .description('rank the running jobs by preemption exposure: the share of plausible arrivals that would preempt each, the rule that exposes it, and what would protect it')
    .argument('<policy>', 'the policy folder (or files) with a Cluster snapshot')
    .option('--as <user>', 'rank only the jobs this user may see (default: $QUOTIENT_USER; unset = everything)')
    .option('--samples <n>', `arrivals to ask about (1 to ${MAX_SAMPLES.toLocaleString('en-US')})`, '200')
    .option('--seed <n>', 'seed of the arrivals (same seed, same report)', '1')
    .option('-t, --trace <file>', 'draw arrivals from this jobs file\'s mix (docs/simulate.md "Jobs file") instead of the policy\'s workspaces')
    .option('--horizon <duration>', 'also simulate this long from the snapshot (e.g. 24h) and count how often each job is preempted')
    .option('--runs <n>', `with --horizon: simulated runs (1 to ${MAX_HORIZON_RUNS})`, '20')
    .option('--rate <n>', "with --horizon and no --trace: arrivals per hour (a trace's rate is its own)", '2')
    .addHelpText(
      'after',
      '\nExamples:\n  quotient risk policies/inference-preempts-training\n  quotient risk policies/inference-preempts-training --as bob --horizon 24h --json\n\nExit codes: 0 ranked, 1 ranked but rows of the --trace file were left out, 2 could not run (a policy with errors or no Cluster, a bad flag, an unknown user).',
    )
    .action(async (path: string, opts: RiskOptions) => {
      const format = formatOf(opts);
      const flags = riskFlags(opts);
      const { label, session, findings, viewer, user } = openRisk(path, opts, flags.backend);
      let exit: number = EXIT.ok;
      let source: ArrivalSource = { kind: 'policy' };
      if (opts.trace !== undefined) {
        const workload = readWorkload(opts.trace, session.policy, false, stderrSimLog, session.snapshot!.jobs);
        if (workload.rejected.length) exit = EXIT.findings;
        if (!workload.jobs.some((j) => !j.spot))
          throw new QuotientError('risk/no-arrivals', `${opts.trace} holds only spot jobs`, 'spot jobs bid on a market and never preempt a quota job: give a jobs file with quota jobs');
        source = { kind: 'trace', path: opts.trace, jobs: workload.jobs };
      }
      const { samples, seed, horizon, runs, rate, backend } = flags;
      // A horizon too long for one report is refused before the instant's answers are asked.
      if (horizon !== undefined) checkHorizonWork({ horizon, runs, source, ratePerHour: rate });
      const assessment = await assessRisk(session, { samples, seed, source, viewer, backend });
      if (assessment.asked === 0) throw new QuotientError('risk/no-arrivals', `the policy ${label} lets no one submit a job`, 'add a Workspace with members, quotas and modules, or give --trace');
      const h = horizon === undefined ? undefined : await runHorizon(session, { horizon, runs, seed, source, ratePerHour: rate, backend });
      const body = riskBody(label, user, source, assessment, h);
      if (format === 'table') say(renderRisk(body));
      else printDocument(format, report('RiskReport', { findings: sortFindings(findings), ...body }));
      process.exitCode = exit;
    });
  kernelOption(cmd);
  outputOptions(cmd, 'print a RiskReport as JSON: {apiVersion, kind, findings, policy, as, arrivals, horizon, jobs: [...], hiddenJobs} (schemas/risk-report.json)');
}

/** The horizon's runs, with their progress on stderr once they take more than a second. */
async function runHorizon(session: Session, options: HorizonOptions): Promise<HorizonRisk> {
  const progress = progressBar({ label: 'risk over the horizon', unit: 'arrivals' });
  const onProgress = (p: HorizonProgress): void => progress.update(p.arrived, p.arrivals, `run ${p.run + 1}/${p.runs}`);
  return horizonRisk(session.policy, { ...options, onProgress }).finally(progress.stop);
}

/** The checked flags of `quotient risk`. */
export interface RiskFlags {
  samples: number;
  seed: number;
  runs: number;
  rate: number;
  /** ms; undefined without --horizon. */
  horizon: number | undefined;
  backend: 'wasm' | 'reference';
}

/** Checks the flags; a bad value is exit 2 naming the flag (`cli/bad-samples`, `cli/bad-horizon`, `cli/out-of-range` ...). */
export function riskFlags(opts: Pick<RiskOptions, 'samples' | 'seed' | 'runs' | 'rate' | 'horizon' | 'kernel'>): RiskFlags {
  const backend = kernelFlag(opts.kernel ?? 'wasm');
  const samples = numberFlag('--samples', opts.samples, readWhole(opts.samples, 1, MAX_SAMPLES), 'cli/bad-samples');
  const seed = seedFlag(opts.seed);
  const runs = numberFlag('--runs', opts.runs, readWhole(opts.runs, 1, MAX_HORIZON_RUNS), 'cli/bad-runs');
  const rate = numberFlag('--rate', opts.rate, readPositive(opts.rate, MAX_RATE), 'cli/bad-rate');
  const horizon = opts.horizon === undefined ? undefined : numberFlag('--horizon', opts.horizon, readSimTime(opts.horizon, 'duration'), 'cli/bad-horizon');
  if (horizon === 0) throw new QuotientError('cli/bad-horizon', '--horizon 0 simulates nothing', 'give a duration such as 24h, or leave --horizon out');
  return { samples, seed, runs, rate, horizon, backend };
}

/** Opens the policy for `risk`: one policy with a Cluster, and the user to see it as (known to it). */
export function openRisk(
  path: string,
  opts: { as?: string },
  backend: 'wasm' | 'reference',
): { label: string; session: Session; findings: Finding[]; viewer: Viewer | undefined; user: string | undefined } {
  const user = asUser(opts);
  const bundles = readBundles([path]);
  if (bundles.length !== 1) throw new QuotientError('cli/one-policy', 'quotient risk ranks the jobs of one policy', 'name one policy folder (or its files)');
  const b = bundles[0]!;
  const { session, findings } = Session.open(b.files, { backend, label: b.label });
  if (!session) {
    log(renderFindings(sortFindings(findings)));
    throw new QuotientError('risk/invalid-policy', `the policy ${b.label} has errors (${countFindings(findings)})`, 'run `quotient check` on it and fix the errors first');
  }
  if (findings.length) log(renderFindings(findings));
  if (!session.snapshot) throw new QuotientError('risk/no-cluster', `the policy ${b.label} has no Cluster document`, 'risk ranks running jobs: add a Cluster document with nodes and running jobs');
  if (user !== undefined && !session.knows(user)) throw unknownUser(user, [session]);
  return { label: b.label, session, findings, viewer: user === undefined ? undefined : session.viewer(user), user };
}
