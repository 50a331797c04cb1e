/**
 * `quotient diff OLD NEW` (or `quotient diff PATH --base REV`): the policy-change gate.
 * Both policies answer the same questions; every changed answer is listed with the rule
 * and line behind each side, as a table, JSON, or Markdown for a pull-request comment.
 */
import { execFileSync } from 'node:child_process';
import type { Command } from 'commander';
import { QuotientError, sortFindings } from '../errors.js';
import { Session } from '../engine/session.js';
import { diffPolicies, type DiffResult, type Outcome, type Side } from '../interop/diff-policies.js';
import { readBundles, type Bundle } from '../policy/parse/read-files.js';
import { display, joinDisplay, type Display } from '../model/display-text.js';
import { EXIT } from './exit.js';
import { fitTable, terminalWidth } from './fit-table.js';
import { kernelFlag, kernelOption } from './flags.js';
import { formatOf, log, printDocument, report, say, sayExactly } from './output.js';
import { countFindings, renderFindings } from './render-findings.js';

interface DiffFlags {
  base?: string;
  failOnChange?: boolean;
  json?: boolean;
  output?: string;
  samples: string;
  seed: string;
  promiseRuns: string;
  kernel?: string;
}

/** The YAML files under `path` at git revision `rev`, as one bundle. */
export function bundleAtRevision(path: string, rev: string): Bundle {
  const git = (...args: string[]): string => {
    try {
      return execFileSync('git', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, stdio: ['ignore', 'pipe', 'pipe'] });
    } catch (e) {
      const msg = String((e as { stderr?: string }).stderr ?? (e as Error).message)
        .trim()
        .split('\n')[0];
      throw new QuotientError('cli/git', `git ${args.join(' ')} failed: ${msg}`, 'run inside the git repository that holds the policy, with a revision it has (e.g. --base main)');
    }
  };
  const files = git('ls-tree', '-r', '--name-only', rev, '--', path)
    .split('\n')
    .filter((f) => /\.ya?ml$/.test(f));
  if (files.length === 0) throw new QuotientError('cli/no-files', `${path} holds no YAML files at ${rev}`, 'check the path and the revision');
  return { label: `${path}@${rev}`, paths: [path], files: files.map((f) => ({ path: `${rev}:${f}`, text: git('show', `${rev}:./${f}`) })) };
}

function open(b: Bundle, backend: 'wasm' | 'reference'): Side {
  const now = Date.now();
  const { session, findings } = Session.open(b.files, { backend, now });
  if (!session) {
    log(renderFindings(sortFindings(findings)));
    throw new QuotientError(
      'diff/invalid-policy',
      `the policy ${b.label} has errors (${countFindings(findings)}); no answers are compared from a policy with errors`,
      'run `quotient check` on it and fix the errors first',
    );
  }
  return { label: b.label, session, files: b.files };
}

function count(flag: string, v: string): number {
  if (!/^\d+$/.test(v)) throw new QuotientError('cli/bad-flag', `${flag} ${v} is not a whole number`, `e.g. ${flag} 200`);
  return Number(v);
}

/** Registers the command. */
export function registerDiff(program: Command): void {
  const cmd = program
    .command('diff')
    .description(
      'what a policy change does: ask the old and the new policy the same questions (every WhatIf, every Promise, a seeded sample of submissions) and list every answer that changed, with the rule and line on each side',
    )
    .argument('<paths...>', 'OLD NEW (folders or files of one policy each), or PATH with --base REV')
    .option('--base <rev>', 'compare PATH at this git revision (old) with PATH as it is now (new)')
    .option('--fail-on-change', 'exit 1 when any answer changed (a CI gate)')
    .option('--samples <n>', 'generated submissions to ask (0: none)', '200')
    .option('--seed <n>', 'seed of the generated submissions and the promise runs', '1')
    .option('--promise-runs <n>', 'generated states per promise, per side', '50')
    .option('--json', 'print a DiffReport as JSON: {apiVersion, kind, old, new, asked, changes} (schemas/diff-report.json)')
    .option('-o, --output <format>', 'table, json, yaml or markdown (a pull-request comment)')
    .addHelpText(
      'after',
      '\nExamples:\n  quotient diff docs/examples/quota-scaling-diff/old docs/examples/quota-scaling-diff/new\n  quotient diff policies/quota-scaling --base main --fail-on-change -o markdown\n\nExit codes: 0 compared (with --fail-on-change: nothing changed), 1 answers changed (with --fail-on-change), 2 could not run.',
    )
    .action(async (paths: string[], flags: DiffFlags) => {
      const format = formatOf(flags, ['markdown'] as const);
      const backend = kernelFlag(flags.kernel);
      let oldB: Bundle;
      let newB: Bundle;
      if (flags.base !== undefined) {
        if (paths.length !== 1) throw new QuotientError('cli/usage', `--base takes one PATH, got ${paths.length}`, 'quotient diff PATH --base REV');
        oldB = bundleAtRevision(paths[0]!, flags.base);
        newB = oneBundle(paths[0]!);
      } else {
        if (paths.length !== 2) throw new QuotientError('cli/usage', `diff takes OLD and NEW, got ${paths.length} path(s)`, 'quotient diff OLD NEW, or quotient diff PATH --base REV');
        oldB = oneBundle(paths[0]!);
        newB = oneBundle(paths[1]!);
      }
      const result = await diffPolicies(open(oldB, backend), open(newB, backend), {
        samples: count('--samples', flags.samples),
        seed: count('--seed', flags.seed),
        promiseRuns: count('--promise-runs', flags.promiseRuns),
      });
      if (format === 'json' || format === 'yaml') printDocument(format, report('DiffReport', result));
      else if (format === 'markdown') sayExactly(renderMarkdown(result));
      else say(renderTable(result));
      process.exitCode = flags.failOnChange && result.changes.length > 0 ? EXIT.findings : EXIT.ok;
    });
  kernelOption(cmd);
}

function oneBundle(path: string): Bundle {
  const bundles = readBundles([path]);
  if (bundles.length !== 1) throw new QuotientError('cli/one-policy', `${path} holds ${bundles.length} policies`, 'name the folder of one policy');
  return bundles[0]!;
}

function side(o: Outcome | null): string {
  if (!o) return '(absent)';
  const parts = [o.standing ? `${o.decision} (${o.standing})` : o.decision];
  if (o.victims.length) parts.push(`victims ${o.victims.join(', ')}`);
  if (o.lostGpuHours) parts.push(`${o.lostGpuHours} GPU-h lost`);
  return parts.join('; ');
}

function summary(r: DiffResult): string {
  return `${r.changes.length} changed answer(s) of ${r.asked.whatifs} WhatIf(s), ${r.asked.promises} promise(s) and ${r.asked.samples} generated submission(s)`;
}

/** The changes as a table for people, fitted to `width` columns (the terminal's by default). */
export function renderTable(r: DiffResult, width = terminalWidth()): Display {
  const head = display`${r.old} → ${r.new}: ${summary(r)}`;
  if (r.changes.length === 0) return head;
  const rows = r.changes.map((c) => [`${c.kind} ${c.question}`, c.job, c.changed.join(', '), side(c.old), side(c.new), c.old?.why ?? '', c.new?.why ?? '']);
  return display`${head}\n${fitTable(['question', 'job', 'changed', 'old', 'new', 'why (old)', 'why (new)'], rows, width, '')}`;
}

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The changes as Markdown for a pull-request comment (printed, so escaped: a cell's line feed is `\n`, its `|` `\|`). */
export function renderMarkdown(r: DiffResult): Display {
  const lines = [display`### Quotient: ${cell(r.old)} → ${cell(r.new)}`, display``, display`${summary(r)}`, display``];
  if (r.changes.length) {
    lines.push(display`| question | job | changed | old | new | why (old) | why (new) |`, display`|---|---|---|---|---|---|---|`);
    for (const c of r.changes)
      lines.push(
        display`| ${c.kind} \`${cell(c.question)}\` | ${cell(c.job)} | ${c.changed.join(', ')} | ${cell(side(c.old))} | ${cell(side(c.new))} | ${cell(c.old?.why ?? '')} | ${cell(c.new?.why ?? '')} |`,
      );
  }
  lines.push(display``);
  return joinDisplay(lines);
}
