/** `quotient whatif FILES...`: answer the WhatIf documents (or an ad-hoc --submit job). */
import type { Command } from 'commander';
import { QuotientError, sortFindings, type Finding } from '../errors.js';
import type { StartEstimator } from '../engine/estimate.js';
import type { FullAnswer } from '../engine/pipeline.js';
import type { AnswerRequest, RequestOrigin } from '../engine/request.js';
import { SessionCore } from '../engine/session-core.js';
import { readBundles } from '../policy/parse/read-files.js';
import { display, joinDisplay } from '../model/display-text.js';
import { asUser, unknownUser } from './as-user.js';
import { EXIT } from './exit.js';
import { isName, isPair, kernelFlag, kernelOption, outputOptions, takeBackPaths, workersFlag } from './flags.js';
import { colour, formatOf, log, printDocument, report, say, type Format, type OutputOptions } from './output.js';
import { renderAnswer } from './render-answer.js';
import { countFindings, renderFindings } from './render-findings.js';
import { submitFlags } from './submit-flags.js';
import { marketFileFindings } from './market-files.js';
import { BadJobInput, jobRequest, readJobInput, type JobInput } from './whatif-job.js';

/**
 * A job asked about (a PAI request or a --submit job) that is bad input, not a failure to
 * run: exit 1 with its findings, like any finding (an unknown quota is exit 1 in `scale
 * --set` and in `whatif --submit` alike).
 */
class InvalidJob extends QuotientError {
  constructor(
    code: string,
    message: string,
    hint: string,
    readonly findings: Finding[] = [],
  ) {
    super(code, message, hint);
  }
}

/** Runs `body`; an InvalidJob is reported (a WhatIfReport with its findings in a machine format) and ends with exit 1. */
async function exitOneOnBadJob(format: Format, body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (thrown) {
    const e = thrown instanceof BadJobInput ? new InvalidJob(thrown.code, thrown.message, thrown.hint, thrown.findings) : thrown;
    if (!(e instanceof InvalidJob)) throw e;
    if (format !== 'table') printDocument(format, report('WhatIfReport', { findings: sortFindings(e.findings), answers: [] }));
    log(display`${colour.red('quotient:')} ${e.message}\n  ${colour.cyan('hint:')} ${e.hint}`);
    process.exitCode = EXIT.findings;
  }
}

/**
 * The error of an ad-hoc job (--submit, --job) a policy cannot take: its findings on
 * stderr and in a machine format, exit 1. The policy's own warnings were told when it
 * was opened; the report is about the job.
 */
function invalidJob(request: Finding[], label: string, job: JobInput | undefined): InvalidJob {
  log(renderFindings(sortFindings(request)));
  const errors = request.filter((f) => f.severity === 'error');
  const findings = request;
  if (job !== undefined)
    return new InvalidJob(
      'whatif/invalid-job',
      `the ${job.kind === 'pai' ? 'PAI request' : 'Kubernetes manifest'} ${job.path} does not fit the policy ${label} (${countFindings(errors)})`,
      `fix the ${job.kind === 'pai' ? 'request' : 'manifest'} fields named above`,
      findings,
    );
  return new InvalidJob(
    'whatif/invalid-submit',
    `the --submit job is not valid (${countFindings(errors)})`,
    'fix the key=value pairs named above (see `quotient whatif --help` for the keys)',
    findings,
  );
}

interface WhatIfOptions extends OutputOptions {
  query?: string[];
  submit?: string[];
  job?: string;
  kueue?: string[];
  namespace?: string;
  gpuResource?: string;
  failOnPreempt?: boolean;
  kernel?: string;
  as?: string;
  workers: string;
  market?: string;
  trace?: string;
  seed: string;
}

/** Registers the command. */
export function registerWhatIf(program: Command): void {
  const cmd = program
    .command('whatif')
    .description('answer "what if this job were submitted now?" against the Cluster snapshot: admit, preempt (whom, under which rule), wait or reject, and why')
    .argument('[paths...]', "policy folders (one policy each) and files (merged into one policy, or joining each folder's policy; a Cluster among them replaces the folder's)")
    .option('-q, --query <name...>', 'answer only the WhatIf documents with these names')
    .option(
      '-s, --submit <key=value...>',
      'an ad-hoc job instead: name, workspace, quota, module, priority, pods, gpu, cpu, memory, idleResources, submittedBy, maxRuntime, gpuModel (repeatable) or gpuModels=A|B',
    )
    .option(
      '--job <file>',
      'a job to ask about instead: a Kubernetes manifest (Job, JobSet, PyTorchJob/TFJob/MPIJob, RayJob/RayCluster, Pod, Deployment/StatefulSet, LeaderWorkerSet or a Kueue Workload; YAML or JSON) or a PAI DLC CreateJob request body; see docs/interop.md',
    )
    .option(
      '--kueue <file>',
      'with a manifest --job: Kueue objects (LocalQueues, ClusterQueues, WorkloadPriorityClasses, PriorityClasses; repeatable) its queue-name label and priority class are looked up in',
      (v: string, prev: string[] | undefined) => [...(prev ?? []), v],
    )
    .option('-n, --namespace <namespace>', 'with a manifest --job: the namespace of an object that names none (default: default)')
    .option('--gpu-resource <name>', 'with a manifest --job: the extended resource counted as GPUs (default: nvidia.com/gpu, as import kubectl)')
    .option('--as <user>', "answer as this user sees it: other teams' jobs only as anonymous usage (default: $QUOTIENT_USER; unset = everything)")
    .option('--fail-on-preempt', 'exit 1 when an answer would preempt a running job')
    .option('-w, --workers <n>', 'answer on n worker threads in batches (Piscina); worth it for hundreds of queries, 1 = this thread', '1')
    .option('--market <event>', 'a spot market event instead: TYPE=PRICE@TIME or TYPE=inventory:COUNT@TIME; which spot jobs of --trace are released then, and what they lose (docs/simulate.md)')
    .option('--trace <file>', 'with --market: the jobs file whose spot jobs run on the market')
    .option('--seed <n>', 'with --market: the seed of a synthetic market', '1')
    .addHelpText(
      'after',
      '\nExamples:\n  quotient whatif policies/inference-preempts-training\n  quotient whatif policies/inference-preempts-training --submit quota=Quota1 workspace=workspace-a module=EAS priority=9 pods=2 gpu=8 --json\n  quotient whatif policies/team-isolation --as bob --json\n\nExit codes: 0 answered, 1 an answer would preempt (with --fail-on-preempt) or the job asked about (--submit, --job) is invalid, 2 could not run (including an invalid policy).',
    )
    .action(async (given: string[], opts: WhatIfOptions) =>
      exitOneOnBadJob(formatOf(opts), async () => {
        // Paths written after -q or --submit were taken as their values; give them back.
        const paths = takeBackPaths(given, opts, { submit: isPair, query: isName });
        const format = formatOf(opts);
        const kernel = kernelFlag(opts.kernel);
        if (opts.market !== undefined) {
          if (opts.submit || opts.query || opts.job) throw new QuotientError('cli/conflicting-flags', '--market asks about the spot market, not a submission', 'drop --submit, --query and --job');
          // The market's simulator (and simulate's charts) load only for a market question.
          const { answerMarketFlag } = await import('./whatif-market.js');
          process.exitCode = await answerMarketFlag(paths, opts.market, opts.trace, opts.seed, kernel, format);
          return;
        }
        if (opts.submit && opts.query)
          throw new QuotientError('cli/conflicting-flags', '--submit and --query cannot be used together', "ask about the files' WhatIf documents or about one ad-hoc job");
        if (opts.job && (opts.submit || opts.query))
          throw new QuotientError('cli/conflicting-flags', '--job cannot be used with --submit or --query', "ask about one PAI request, one ad-hoc job, or the files' WhatIf documents");
        if ((opts.kueue || opts.namespace !== undefined) && opts.job === undefined)
          throw new QuotientError('cli/conflicting-flags', '--kueue and --namespace go with a manifest --job', 'give the manifest with --job FILE');
        const jobInput =
          opts.job === undefined ? undefined : await readJobInput(opts.job, { ...(opts.kueue ? { kueue: opts.kueue } : {}), ...(opts.namespace !== undefined ? { namespace: opts.namespace } : {}) });
        const workers = workersFlag(opts.workers);
        const bundles = readBundles(paths);
        // One clock reading for every thread: a snapshot without `at` is taken at the same moment everywhere.
        const now = Date.now();
        const user = asUser(opts);
        if (workers > 1 && user !== undefined) throw new QuotientError('cli/conflicting-flags', '--workers and --as cannot be used together yet', 'answer as a user on this thread (drop --workers)');
        // A wait answer's start estimate is the simulator run forward (docs/cli.md "Start estimates").
        // The simulator loads only when an answer is `wait` and asks for an estimate.
        const estimator: StartEstimator = async (policy, job, o) => (await import('../simulate/start-estimate.js')).estimateStart(policy, job, { backend: kernel, ...o });
        const answers: FullAnswer[] = [];
        // Warnings of the policies answered from: in the report beside the answers, and on stderr.
        const warnings: Finding[] = [];
        const wanted = new Set(opts.query ?? []);
        const found = new Set<string>();
        // One ad-hoc question (--submit, --job) is asked of every policy; else each policy's WhatIf documents.
        const submitted = opts.submit
          ? { request: { submit: submitFlags(opts.submit, user) } as AnswerRequest, origin: { file: '--submit', path: ['spec', 'submit'], query: 'submit' } as RequestOrigin }
          : undefined;
        // Open and validate every policy first, in order: nothing is answered from a set with errors.
        // Through the cache first: the loader (zod, the builders) loads only on a miss.
        const opened: Array<{ b: (typeof bundles)[number]; session: SessionCore }> = [];
        for (const b of bundles) {
          const loaded = await SessionCore.load(b.files, { backend: kernel, now, label: b.label, estimator });
          // The market CSVs belong to the policy (market-files.ts): their errors refuse it as check does.
          const findings = [...loaded.findings, ...(await marketFileFindings(loaded.session?.policy))];
          const session = findings.some((f) => f.severity === 'error') ? undefined : loaded.session;
          if (!session) {
            log(renderFindings(sortFindings(findings)));
            throw new QuotientError(
              'whatif/invalid-policy',
              `the policy ${b.label} has errors (${countFindings(findings)}); no answer is given from a policy with errors`,
              'run `quotient check` on it and fix the errors first',
            );
          }
          if (findings.length) log(renderFindings(findings));
          warnings.push(...findings);
          if (!session.snapshot)
            throw new QuotientError('whatif/no-cluster', `the policy ${b.label} has no Cluster document`, 'a what-if needs a snapshot: add a Cluster document with nodes and running jobs');
          opened.push({ b, session });
        }
        // A user unknown to every policy is a typo: refuse (the error lists the known users).
        if (user !== undefined && !opened.some((o) => o.session.knows(user)))
          throw unknownUser(
            user,
            opened.map((o) => o.session),
          );
        const as = user === undefined ? {} : { as: user };
        if (submitted || jobInput) {
          // Every policy's answer first: a job one policy refuses is told before any answer is printed.
          for (const { b, session } of opened) {
            // A manifest's quota may lead through the policy's workspaces: its request is made per policy.
            const adhoc = submitted ?? (await jobRequest(jobInput!, session.policy, user));
            const asked = await session.ask({ ...adhoc.request, ...as }, { ...adhoc.origin, outsider: true });
            if (!asked.answer) throw invalidJob(asked.findings, b.label, jobInput);
            answers.push(asked.answer);
          }
        } else {
          // The worker pool (and Piscina) loads only with --workers.
          const pool = workers > 1 ? new (await import('../pool/batch-pool.js')).BatchPool({ workers, backend: kernel }) : undefined;
          try {
            for (const { b, session } of opened) {
              const queries = session.policy.whatIfs.filter((w) => wanted.size === 0 || wanted.has(w.name));
              queries.forEach((w) => found.add(w.name));
              if (pool) {
                // The policy was validated here; the workers open it once each and answer in batches.
                answers.push(
                  ...(await pool.answerAll(
                    b.label,
                    b.files,
                    queries.map((w) => ({ request: { query: w.name } })),
                    { now, label: b.label },
                  )),
                );
              } else {
                for (const w of queries) {
                  const asked = await session.ask({ query: w.name, ...as }, { outsider: true });
                  // A WhatIf of a loaded policy is checked already; only a bug could refuse it.
                  if (!asked.answer)
                    throw new QuotientError('whatif/internal', `the WhatIf ${w.name} of ${b.label} was refused: ${asked.findings[0]?.message ?? ''}`, 'this is a bug in Quotient: please report it');
                  answers.push(asked.answer);
                }
              }
            }
          } finally {
            await pool?.close();
          }
        }
        const missing = [...wanted].filter((n) => !found.has(n));
        if (missing.length)
          throw new QuotientError('cli/unknown-query', `no WhatIf named ${missing.map((m) => `"${m}"`).join(', ')}`, 'list the WhatIf documents with `quotient whatif FILES` or check the name');
        if (answers.length === 0) throw new QuotientError('whatif/no-queries', 'the files hold no WhatIf document', 'add a WhatIf document, or ask about an ad-hoc job with --submit key=value ...');
        if (format === 'table')
          say(
            joinDisplay(
              answers.map((a) => renderAnswer(a)),
              display`\n\n`,
            ),
          );
        else printDocument(format, report('WhatIfReport', { findings: sortFindings(warnings), answers }));
        process.exitCode = opts.failOnPreempt && answers.some((a) => a.decision === 'preempt') ? EXIT.findings : EXIT.ok;
      }),
    );
  // Options every answering command shares, listed after its own in --help.
  kernelOption(cmd);
  outputOptions(cmd, 'print a WhatIfReport as JSON: {apiVersion, kind, findings, answers: [...]} (schemas/whatif-report.json)');
}
