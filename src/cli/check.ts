/** `quotient check FILES...`: validate and lint policies; exit 1 on any error. */
import type { Command } from 'commander';
import { sortFindings, type Finding } from '../errors.js';
import { SessionCore } from '../engine/session-core.js';
import { readBundles } from '../policy/parse/read-files.js';
import { display } from '../model/display-text.js';
import { EXIT } from './exit.js';
import { outputOptions } from './flags.js';
import { formatOf, printDocument, report, say, colour, type OutputOptions } from './output.js';
import { countFindings, renderFindings } from './render-findings.js';
import { noteSnapshot } from './snapshot-note.js';
import { marketFileFindings } from './market-files.js';

interface CheckOptions extends OutputOptions {
  failOnWarning?: boolean;
}

/** Registers the command. */
export function registerCheck(program: Command): void {
  const cmd = program
    .command('check')
    .description('validate policy files and lint them; every finding has a code, file:line:col, the field path and a hint')
    .argument('[paths...]', "policy folders (one policy each) and files (merged into one policy, or joining each folder's policy; a Cluster among them replaces the folder's)")
    .option('--fail-on-warning', 'exit 1 on warnings too')
    .addHelpText('after', '\nExit codes: 0 clean, 1 findings (errors, or warnings with --fail-on-warning), 2 could not run.')
    .action(async (paths: string[], opts: CheckOptions) => {
      const format = formatOf(opts);
      const bundles = readBundles(paths);
      const findings: Finding[] = [];
      // Validation gives the same findings on either kernel; the twin needs no build step.
      // Opened through the cache first: the loader (zod, the builders) loads only on a miss.
      for (const b of bundles) {
        const opened = await SessionCore.load(b.files, { backend: 'reference' });
        noteSnapshot(b.label, opened.session?.policy);
        for (const f of opened.findings) findings.push(f); // one by one: a spread of 160,000 overflowed the stack
        // The market CSVs the policy names, by the reader `simulate` uses: a clean check means the policy runs (market-files.ts).
        findings.push(...(await marketFileFindings(opened.session?.policy)));
      }
      const sorted = sortFindings(findings);
      if (format !== 'table') printDocument(format, report('CheckReport', { findings: sorted }));
      else {
        if (sorted.length) say(renderFindings(sorted));
        const files = bundles.reduce((s, b) => s + b.files.length, 0);
        say(
          sorted.length ? display`\n${countFindings(sorted)} in ${files} file(s)` : colour.green(`ok: ${files} file(s) in ${bundles.length} polic${bundles.length === 1 ? 'y' : 'ies'}, no findings`),
        );
      }
      const errors = sorted.some((f) => f.severity === 'error');
      process.exitCode = errors || (opts.failOnWarning && sorted.length > 0) ? EXIT.findings : EXIT.ok;
    });
  // Options every answering command shares, listed after its own in --help.
  outputOptions(cmd, 'print a CheckReport as JSON: {apiVersion, kind, findings: [...]} (schemas/check-report.json)');
}
