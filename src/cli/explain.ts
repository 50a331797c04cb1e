/** `quotient explain FILES...`: the rules a policy compiles to, in words. */
import type { Command } from 'commander';
import { outputOptions } from './flags.js';
import { QuotientError, sortFindings } from '../errors.js';
import { Session } from '../engine/session.js';
import { readBundles } from '../policy/parse/read-files.js';
import { formatOf, log, printDocument, report, say, colour, type OutputOptions } from './output.js';
import { display } from '../model/display-text.js';
import { countFindings, renderFindings } from './render-findings.js';
import { explainKueueQuotas } from '../rules/kueue/explain-kueue.js';
import { quotaFairShares, shareJson, shareText } from '../engine/quota-fair-shares.js';

/** Registers the command. */
export function registerExplain(program: Command): void {
  const cmd = program
    .command('explain')
    .description('print the rules a policy compiles to: which jobs may preempt which, and why, with the policy line of each rule')
    .argument('[paths...]', "policy folders (one policy each) and files (merged into one policy, or joining each folder's policy; a Cluster among them replaces the folder's)")
    .addHelpText('after', '\nExit codes: 0 printed, 2 could not run (including a policy with errors).')
    .action((paths: string[], opts: OutputOptions) => {
      const format = formatOf(opts);
      const out: Array<{ policy: string; rules: unknown[]; admission: unknown[]; fairShares?: unknown[] }> = [];
      for (const b of readBundles(paths)) {
        const { session, findings } = Session.open(b.files, { backend: 'reference' });
        if (!session) {
          log(renderFindings(sortFindings(findings)));
          throw new QuotientError('explain/invalid-policy', `the policy ${b.label} has errors (${countFindings(findings)})`, 'run `quotient check` on it and fix the errors first');
        }
        // SEMANTICS 13: each quota's weighted share at the Cluster's running jobs, where its tree has fair sharing.
        const shares = session.snapshot ? [...quotaFairShares(session.snapshot)] : [];
        out.push({
          policy: b.label,
          rules: session.rules.map((r) => ({ name: r.name, kind: r.kind, quota: r.quota || null, source: r.source, summary: r.summary, conditions: r.rule.conditions })),
          admission: session.admissionRules.map((r) => ({ name: r.name, kind: r.kind, workspace: r.workspace, source: r.source, summary: r.summary, conditions: r.rule.conditions })),
          ...(shares.length ? { fairShares: shares.map(([quota, s]) => ({ quota, weightedShare: shareJson(s.weightedShare), weight: s.weight })) } : {}),
        });
        if (format === 'table') {
          say(colour.bold(b.label));
          for (const r of session.rules) {
            say(display`  ${colour.cyan(r.name)}  ${colour.dim(r.source)}`);
            say(display`    ${r.summary}`);
          }
          // A quota of a Kueue-rules tree is decided by Kueue's algorithm: its clauses, not PAI's rules.
          for (const k of explainKueueQuotas(session.policy.quotas)) {
            say(display`  ${colour.cyan(k.name)}  ${colour.dim(k.source)}`);
            say(display`    ${k.summary}`);
          }
          if (shares.length) {
            say(colour.bold("  fair sharing: each quota's weighted share now (Kueue's status.fairSharing.weightedShare; 0 = not borrowing)"));
            for (const [quota, s] of shares) say(display`    ${colour.cyan(quota)}  weighted share ${shareText(s.weightedShare)}  (weight ${String(s.weight)})`);
          }
          const quotasWithout = session.policy.quotas.filter((q) => !q.selfPreemption && !q.childPreemption && !q.kueue).map((q) => q.name);
          if (session.admissionRules.length) {
            say(colour.bold('  admission (resource caps and per-module settings; checked before quota, the strictest cap wins)'));
            for (const r of session.admissionRules) {
              say(display`  ${colour.cyan(r.name)}  ${colour.dim(r.source)}`);
              say(display`    ${r.summary}`);
            }
          }
          if (quotasWithout.length) say(colour.dim(`  quotas with no preemption clause of their own: ${quotasWithout.join(', ')} (their jobs can still reclaim idle and lent capacity)`));
          say();
        }
      }
      if (format !== 'table') printDocument(format, report('ExplainReport', { policies: out }));
    });
  // Options every answering command shares, listed after its own in --help.
  outputOptions(cmd, 'print an ExplainReport as JSON: {apiVersion, kind, policies: [{policy, rules, admission}]} (schemas/explain-report.json)');
}
