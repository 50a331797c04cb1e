/** `quotient test FILES...`: check the policy's Promise documents over generated cluster states. */
import { mkdirSync } from 'node:fs';
import { basename } from 'node:path';
import type { Command } from 'commander';
import { QuotientError, sortFindings } from '../errors.js';
import { Session } from '../engine/session.js';
import { uniqueFileNames } from '../io/safe-file-name.js';
import { checkOutputFolder, refuseEmptyPath, saveInFolder } from '../io/write-in-folder.js';
import { noteSnapshot } from './snapshot-note.js';
import { readBundles } from '../policy/parse/read-files.js';
import type { PolicyPromise } from '../model/promise.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import { checkPromise, DEFAULT_RUNS, type PromiseResult } from '../verify/check-promise.js';
import { checkPromisesInWorkers } from '../verify/promise-pool.js';
import { display, escapeKeepingLines, indentDisplay } from '../model/display-text.js';
import { EXIT } from './exit.js';
import { isName, kernelFlag, kernelOption, outputOptions, runsFlag, seedFlag, takeBackPaths, workersFlag } from './flags.js';
import { colour, formatOf, log, printDocument, report, say, sayExactly, type OutputOptions } from './output.js';
import { renderAnswer } from './render-answer.js';
import { countFindings, renderFindings } from './render-findings.js';
import { junitReport, tapReport } from './test-report.js';

interface TestOptions extends OutputOptions {
  runs: string;
  seed?: string;
  format?: string;
  promise?: string[];
  kernel: string;
  save?: string;
  workers: string;
}

/** Registers the command. */
export function registerTest(program: Command): void {
  const cmd = program
    .command('test')
    .description("check the Promise documents of a policy: generate cluster states consistent with it, ask each promise's submissions, and report held or broken with a replayable counterexample")
    .argument('[paths...]', "policy folders (one policy each) and files (merged into one policy, or joining each folder's policy; a Cluster among them replaces the folder's)")
    .option('-n, --runs <n>', 'generated states per promise', String(DEFAULT_RUNS))
    .option('--seed <n>', 'random seed (a broken promise prints the seed that replays it)')
    .option('-p, --promise <name...>', 'check only these promises')
    .option('--format <report>', 'junit | tap: a CI report on stdout instead')
    .option('-w, --workers <n>', 'check promises on n worker threads (Piscina); 1 = this thread', '1')
    .option('--save <dir>', 'write each counterexample to <dir>/<promise>.yaml (replay it with quotient whatif); never into the policy folder, never over a file quotient did not write')
    .addHelpText('after', '\nExit codes: 0 every promise held, 1 a promise broken, 2 could not run (including an invalid policy or no promises).')
    .action(async (given: string[], opts: TestOptions) => {
      const paths = takeBackPaths(given, opts, { promise: isName });
      const format = formatOf(opts);
      const runs = runsFlag(opts.runs);
      const seed = seedFlag(opts.seed);
      if (opts.format !== undefined && opts.format !== 'junit' && opts.format !== 'tap')
        throw new QuotientError('cli/bad-format', `unknown report format "${opts.format}"`, 'use --format junit or --format tap');
      // --format replaces the document on stdout: with --json or -o yaml it would silently win.
      if (opts.format !== undefined && format !== 'table')
        throw new QuotientError(
          'cli/conflicting-flags',
          `--format ${opts.format} and ${opts.json ? '--json' : `-o ${format}`} ask for two formats`,
          `give one: --format ${opts.format}, or ${opts.json ? '--json' : `-o ${format}`}`,
        );
      const kernel = kernelFlag(opts.kernel);
      const workers = workersFlag(opts.workers);
      if (opts.save !== undefined) refuseEmptyPath('--save', opts.save);
      const wanted = new Set(opts.promise ?? []);
      // Validate every policy on this thread first: errors are reported before any work starts.
      const plans: Array<{ policy: string; paths: string[]; files: InputFile[]; session: Session; promises: PolicyPromise[] }> = [];
      for (const b of readBundles(paths)) {
        const { session, findings } = Session.open(b.files, { backend: kernel });
        if (!session) {
          log(renderFindings(sortFindings(findings)));
          throw new QuotientError('test/invalid-policy', `the policy ${b.label} has errors (${countFindings(findings)})`, 'run `quotient check` on it and fix the errors first');
        }
        noteSnapshot(b.label, session.policy);
        const promises = session.policy.promises.filter((p) => wanted.size === 0 || wanted.has(p.name));
        if (promises.length) plans.push({ policy: b.label, paths: b.paths, files: b.files, session, promises });
      }
      // Every policy is read: a --save into one of its folders is refused before any state is generated.
      if (opts.save !== undefined) checkOutputFolder(opts.save, '--save');
      if (plans.length === 0) {
        throw wanted.size
          ? new QuotientError('test/no-promises', `no Promise named ${[...wanted].map((w) => `"${w}"`).join(', ')}`, "check the name against the Promise documents' metadata.name")
          : new QuotientError('test/no-promises', 'the files hold no Promise document', 'add a Promise document saying what the policy must always guarantee (docs/policy-format.md section 5a)');
      }
      const started = performance.now();
      const groups: Array<{ policy: string; results: PromiseResult[] }> = [];
      if (workers > 1) {
        const jobs = plans.map((p) => ({ key: p.policy, files: p.files, promises: p.promises.map((pr) => pr.name) }));
        const results = await checkPromisesInWorkers(jobs, { workers, runs, seed, backend: kernel });
        plans.forEach((p, i) => groups.push({ policy: p.policy, results: results[i]! })); // one result list per job, in order
      } else {
        for (const p of plans) {
          const results: PromiseResult[] = [];
          for (const pr of p.promises) {
            const t = performance.now();
            const r = await checkPromise(p.session, p.files, pr, { runs, seed, backend: kernel });
            results.push(r);
            log(colour.dim(`${p.policy}: ${pr.name}: ${r.status} (${r.runs} runs, ${Math.round(performance.now() - t)} ms)`));
          }
          groups.push({ policy: p.policy, results });
        }
      }
      log(colour.dim(`checked ${plans.reduce((s, p) => s + p.promises.length, 0)} promise(s) × ${runs} runs in ${Math.round(performance.now() - started)} ms on ${workers} thread(s)`));
      if (opts.save !== undefined) saveCounterexamples(opts.save, groups);
      if (opts.format === 'junit') sayExactly(junitReport(groups));
      else if (opts.format === 'tap') sayExactly(tapReport(groups));
      // The paths that make each policy again (a folder, its files, or a folder and the files named beside it).
      const pathsOf = new Map(plans.map((p) => [p.policy, p.paths]));
      const replay = (policy: string, r: PromiseResult) => replayCommand({ paths: pathsOf.get(policy) ?? [policy], promise: r.promise, seed: r.seed, runs, kernel: opts.kernel });
      if (opts.format === 'junit' || opts.format === 'tap') {
        // Printed above.
      } else if (format !== 'table')
        printDocument(
          format,
          report('TestReport', { seed, runs, policies: groups.map((g) => ({ ...g, results: g.results.map((r) => (r.status === 'broken' ? { ...r, replay: replay(g.policy, r) } : r)) })) }),
        );
      else renderTable(groups, seed, replay);
      process.exitCode = groups.some((g) => g.results.some((r) => r.status === 'broken')) ? EXIT.findings : EXIT.ok;
    });
  // Options every answering command shares, listed after its own in --help.
  kernelOption(cmd);
  outputOptions(cmd, 'print a TestReport as JSON: {apiVersion, kind, seed, runs, policies: [{policy, results}]} (schemas/test-report.json)');
}

/**
 * Writes each counterexample to DIR/<promise>.yaml. The file name comes from the
 * promise's name through safeFileName (a name like `../../x` stays a plain file in DIR),
 * and promises of several policies that share a name get `-2`, `-3`, ... A name taken
 * by anything but an earlier counterexample (an input, the user's file, a link) is
 * passed over for the next free one, and the line saying where it was saved says why.
 */
function saveCounterexamples(dir: string, groups: Array<{ policy: string; results: PromiseResult[] }>): void {
  const broken = groups.flatMap((g) => g.results).filter((r) => r.counterexample);
  const names = uniqueFileNames(
    broken.map((r) => r.promise),
    '.yaml',
  );
  const planned = new Set(names.map((n) => n.toLowerCase()));
  try {
    mkdirSync(dir, { recursive: true });
    broken.forEach((r, i) => {
      const c = r.counterexample;
      const name = names[i];
      if (!c || name === undefined) return;
      const saved = saveInFolder(dir, name, c.yaml, planned);
      planned.add(basename(saved.path).toLowerCase());
      const passed = saved.passed.map((p) => `${p.path} is ${p.why}, so it was left as it is`).join('; ');
      log(display`saved ${saved.path}${passed ? ` (${passed})` : ''}: replay with quotient whatif ${saved.path} --query ${c.query}`);
    });
  } catch (e) {
    if (e instanceof QuotientError) throw e;
    throw new QuotientError('cli/cannot-save', `cannot write counterexamples to ${dir}: ${(e as Error).message}`, 'choose a folder you can write to');
  }
}

/** A shell word: as is when plain, else single-quoted. */
function shellWord(w: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}

/**
 * The command that replays one promise's check exactly: the policy, the promise, and
 * every flag that shapes its generated states (--seed and --runs; --kernel when not the
 * default). Workers and output flags do not change the states.
 */
export function replayCommand(o: { paths: string[]; promise: string; seed: number; runs: number; kernel?: string }): string {
  const words = ['quotient', 'test', ...o.paths, '--promise', o.promise, '--seed', String(o.seed), '--runs', String(o.runs)];
  if (o.kernel && o.kernel !== 'wasm') words.push('--kernel', o.kernel);
  return words.map(shellWord).join(' ');
}

/** One line on what the states explored (promise-coverage.ts). */
function coverageLine(r: PromiseResult): string {
  const c = r.coverage;
  const decisions = Object.entries(c.decisions)
    .map(([d, n]) => `${d} ${n}`)
    .join(', ');
  const fired = c.rules.filter((x) => x.fired > 0).map((x) => `${x.rule} ${x.fired}`);
  const never = c.rules.filter((x) => x.fired === 0).map((x) => x.rule);
  return `${c.distinctStates} distinct of ${c.states} states (${decisions}); rules fired: ${fired.join(', ') || 'none'}${never.length ? `; never fired: ${never.join(', ')}` : ''}`;
}

function renderTable(groups: Array<{ policy: string; results: PromiseResult[] }>, seed: number, replay: (policy: string, r: PromiseResult) => string): void {
  for (const g of groups) {
    say(colour.bold(g.policy));
    for (const r of g.results) {
      if (r.status === 'held') {
        say(display`  ${colour.green('✓ held')}    ${r.promise}  ${colour.dim(`(${r.runs} runs)`)}`);
        say(colour.dim(`    coverage: ${coverageLine(r)}`));
        continue;
      }
      const c = r.counterexample!;
      say(display`  ${colour.red('✗ broken')}  ${r.promise}  ${colour.dim(`(after ${r.runs} runs)`)}`);
      say(display`    replay: ${replay(g.policy, r)}`);
      say(colour.dim(`    coverage: ${coverageLine(r)}`));
      if (r.description) say(display`    promise: ${r.description}`);
      for (const b of c.broken) say(display`    broken: ${b}`);
      say(display`    counterexample (${c.replayed ? 'replayed through quotient whatif: reproduces' : 'WARNING: did not reproduce on replay'}):`);
      // The counterexample is YAML Quotient wrote: its line feeds are its layout.
      say(indentDisplay(escapeKeepingLines(c.yaml), 6));
      say(indentDisplay(renderAnswer(c.answer), 4));
    }
  }
  const all = groups.flatMap((g) => g.results);
  const broken = all.filter((r) => r.status === 'broken').length;
  say(display`\n${all.length - broken} held, ${broken} broken (seed ${seed})`);
}
