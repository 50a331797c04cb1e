/**
 * `quotient scale FILES [--set Quota=GPUs ...] [--apply]`: what if quotas were scaled
 * (SEMANTICS 9)? The scaling (the `--set` flags, or the files' ScaleQuota documents) is
 * validated like any policy document; an invalid one is a finding (exit 1), an invalid
 * policy is exit 2. `--apply` writes the new mins into the files, only after validation,
 * and the new standing of each job the scaling changes into the Cluster documents
 * (policy/write/apply-scaling.ts: proved, locked, journaled; docs/scale.md).
 */
import type { Command } from 'commander';
import { stringify } from 'yaml';
import { QuotientError, sortFindings, type Finding } from '../errors.js';
import type { ScaleAnswer } from '../engine/scale.js';
import { Session } from '../engine/session.js';
import { noteSnapshot } from './snapshot-note.js';
import { readBundles } from '../policy/parse/read-files.js';
import type { InputFile } from '../policy/parse/source-doc.js';
import { applyScaling } from '../policy/write/apply-scaling.js';
import { asUser, unknownUser } from './as-user.js';
import { display, joinDisplay } from '../model/display-text.js';
import { EXIT } from './exit.js';
import { isName, isPair, kernelFlag, kernelOption, onceEach, outputOptions, takeBackPaths } from './flags.js';
import { formatOf, log, printDocument, report, say, type OutputOptions } from './output.js';
import { countFindings, renderFindings } from './render-findings.js';
import { renderScale } from './render-scale.js';

interface ScaleOptions extends OutputOptions {
  set?: string[];
  query?: string[];
  apply?: boolean;
  as?: string;
  kernel?: string;
}

/** The file name findings about `--set` point at. */
export const SET_FILE = '--set';

/** `Quota1.1=56` pairs → a ScaleQuota document named `set`. */
export function setDocument(pairs: string[]): InputFile {
  const set: Record<string, number> = {};
  const once = onceEach('--set', 'cli/bad-set', 'give each quota once');
  for (const raw of pairs.flatMap((p) => p.split(','))) {
    const pair = raw.trim();
    if (!pair) continue;
    const m = /^(.+)=(\d+)$/.exec(pair);
    if (!m) throw new QuotientError('cli/bad-set', `--set expects Quota=GPUs, got "${pair}"`, 'e.g. --set Quota1.1=56 --set Quota1.2=72');
    const [, quota = '', gpus] = m;
    once(quota);
    set[quota] = Number(gpus);
  }
  const doc = { apiVersion: 'quotient.dev/v1', kind: 'ScaleQuota', metadata: { name: 'set' }, spec: { set } };
  return { path: SET_FILE, text: stringify(doc) };
}

/** Registers the command. */
export function registerScale(program: Command): void {
  const cmd = program
    .command('scale')
    .description('what if quotas were scaled: check the new mins fit, list the jobs whose standing changes and what each team could now get; --apply writes the mins back')
    .argument('[paths...]', "policy folders (one policy each) and files (merged into one policy, or joining each folder's policy; a Cluster among them replaces the folder's)")
    .option('--set <Quota=GPUs...>', "new min.gpu values (instead of the files' ScaleQuota documents)")
    .option('-q, --query <name...>', 'answer only the ScaleQuota documents with these names')
    .option('--apply', 'write the new min values into the policy files (keeps comments and layout; atomic)')
    .option('--as <user>', "show other teams' jobs only as anonymous usage (default: $QUOTIENT_USER)")
    .addHelpText(
      'after',
      '\nExamples:\n  quotient scale policies/quota-scaling --set Quota1.1=56 --set Quota1.2=72\n  quotient scale policies/quota-scaling --set Quota1.1=56 --set Quota1.2=72 --apply\n\nExit codes: 0 answered (and applied), 1 the scaling is invalid (findings), 2 could not run.',
    )
    .action((given: string[], opts: ScaleOptions) => {
      // Paths written after --set or -q were taken as their values; give them back.
      const paths = takeBackPaths(given, opts, { set: isPair, query: isName });
      const format = formatOf(opts);
      const kernel = kernelFlag(opts.kernel);
      if (opts.set && opts.query) throw new QuotientError('cli/conflicting-flags', '--set and --query cannot be used together', "scale with --set, or answer the files' ScaleQuota documents");
      const user = asUser(opts);
      const bundles = readBundles(paths);
      if (opts.apply && bundles.length !== 1) throw new QuotientError('cli/apply-one-policy', `--apply needs exactly one policy, got ${bundles.length}`, 'name one folder or the files of one policy');
      const extra = opts.set ? [setDocument(opts.set)] : [];
      const answers: Array<ScaleAnswer & { policy: string }> = [];
      const invalid: Finding[] = [];
      // Warnings of the policies answered from: in the report beside the answers, and on stderr.
      const warnings: Finding[] = [];
      let applyTo: { files: InputFile[]; values: Map<string, number>; standings: Map<string, string> } | undefined;
      const sessions: Session[] = [];
      for (const b of bundles) {
        const { session, findings } = Session.open([...b.files, ...extra], { backend: kernel });
        if (!session) {
          const errors = findings.filter((f) => f.severity === 'error');
          if (errors.every((f) => f.file === SET_FILE || f.code.startsWith('policy/scale-'))) {
            invalid.push(...findings);
            continue;
          }
          log(renderFindings(sortFindings(findings)));
          throw new QuotientError('scale/invalid-policy', `the policy ${b.label} has errors (${countFindings(findings)})`, 'run `quotient check` on it and fix the errors first');
        }
        if (findings.length) log(renderFindings(findings));
        warnings.push(...findings);
        noteSnapshot(b.label, session.policy);
        sessions.push(session);
        if (!session.snapshot)
          throw new QuotientError('scale/no-cluster', `the policy ${b.label} has no Cluster document`, 'a scaling what-if needs a snapshot: add a Cluster document with nodes and running jobs');
        let scales = session.policy.scales;
        if (opts.set) scales = scales.filter((s) => s.src.file === SET_FILE);
        else if (opts.query) scales = scales.filter((s) => opts.query!.includes(s.name));
        // Over several policies a user may belong to some only: an outsider in the others.
        for (const s of scales) answers.push({ policy: b.label, ...session.scale(s, user, { outsider: bundles.length > 1 }) });
        if (opts.apply) {
          if (scales.length !== 1) throw new QuotientError('cli/apply-one-scaling', `--apply needs exactly one scaling, got ${scales.length}`, 'use --set, or pick one ScaleQuota with --query');
          // The standings are the full view's, whatever --as shows: the file must be complete.
          const only = scales[0]!; // length checked just above
          const full = session.scale(only);
          applyTo = { files: b.files, values: new Map(only.set.map((e) => [e.quota, e.gpu])), standings: new Map(full.changes.map((c) => [c.job, c.to])) };
        }
      }
      if (user !== undefined && sessions.length > 0 && !sessions.some((s) => s.knows(user))) throw unknownUser(user, sessions);
      if (invalid.length) {
        const sorted = sortFindings(invalid);
        // As whatif's invalid --submit: the findings are errors, so on stderr; a machine format
        // still gets its document (the findings, no answers) on stdout.
        if (format !== 'table') printDocument(format, report('ScaleReport', { findings: sorted, answers: [] }));
        log(display`${renderFindings(sorted)}\n\n${countFindings(sorted)}: the scaling is not applied`);
        process.exitCode = EXIT.findings;
        return;
      }
      if (answers.length === 0)
        throw new QuotientError(
          'scale/no-queries',
          opts.query ? `no ScaleQuota named ${opts.query.map((q) => `"${q}"`).join(', ')}` : 'the files hold no ScaleQuota document',
          'give --set Quota=GPUs, or add a ScaleQuota document',
        );
      // Written before the answer is printed: a refused write (exit 2) prints no answer a script could take for done.
      const written = applyTo ? applyScaling(applyTo.files, { values: applyTo.values, standings: applyTo.standings }) : undefined;
      // With --apply, the report says what was written (the files and the new mins), as the stderr line does.
      const applied = applyTo && written ? { applied: { set: Object.fromEntries(applyTo.values), files: written } } : {};
      if (format === 'table')
        say(
          joinDisplay(
            answers.map((a) => renderScale(a)),
            display`\n\n`,
          ),
        );
      else printDocument(format, report('ScaleReport', { findings: sortFindings(warnings), answers, ...applied }));
      if (applyTo && written) log(display`applied: ${[...applyTo.values].map(([q, v]) => `${q}=${v}`).join(', ')} written to ${written.join(', ')}`);
      process.exitCode = EXIT.ok;
    });
  // Options every answering command shares, listed after its own in --help.
  kernelOption(cmd);
  outputOptions(cmd, 'print a ScaleReport as JSON: {apiVersion, kind, findings, answers: [...]} (schemas/scale-report.json)');
}
