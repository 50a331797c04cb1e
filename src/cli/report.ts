/** `quotient report merge FILES...`: the shards of a simulation sweep, merged into the document one unsharded run prints. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { QuotientError } from '../errors.js';
import { noteReadFile } from '../io/input-registry.js';
import { mergeSweeps } from '../simulate/sweep.js';
import { EXIT } from './exit.js';
import { outputOptions } from './flags.js';
import { formatOf, log, printDocument, say, type OutputOptions } from './output.js';
import { readShard } from './read-shards.js';
import { renderFindings } from './render-findings.js';
import { renderSweep, sweepDocumentOf, sweepReport } from '../simulate/report-document.js';

/** Registers `report` and its subcommand `merge`. */
export function registerReport(program: Command): void {
  const report = program.command('report').description('work with simulation reports');
  const merge = report
    .command('merge')
    .description('merge the shard documents of a sweep (quotient simulate --shard i/N --json) into one')
    .argument('<files...>', 'one JSON or YAML document per shard')
    .addHelpText(
      'after',
      '\nExample:\n  quotient report merge shard-0.json shard-1.json shard-2.json --json > sweep.json\n\nExit codes: 0 merged, 2 the documents are unreadable or do not make one whole sweep.',
    )
    .action((files: string[], opts: OutputOptions) => {
      const format = formatOf(opts);
      const docs = files.map((file) => {
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
          noteReadFile(file);
        } catch (e) {
          throw new QuotientError('cli/unreadable-file', `cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'check the path');
        }
        return { file, ...readShard(file, text) };
      });
      // Every shard is checked before any is merged: each problem located, then exit 2.
      const findings = docs.flatMap((d) => d.findings);
      if (findings.length) log(renderFindings(findings));
      const bad = docs.filter((d) => d.doc === undefined);
      if (bad.length)
        throw new QuotientError(
          'report/invalid-shard',
          `${bad.map((d) => d.file).join(', ')} ${bad.length === 1 ? 'is not a shard report' : 'are not shard reports'} of quotient simulate --shard i/N (listed above)`,
          'give the documents quotient simulate --shard i/N --json (or -o yaml) printed, unedited',
        );
      const merged = mergeSweeps(docs.map((d) => ({ file: d.file, doc: sweepDocumentOf(d.doc) })));
      if (typeof merged === 'string') throw new QuotientError('report/incomplete-sweep', merged, 'give every shard of one sweep once: quotient simulate ... --shard i/N for i = 0 .. N-1');
      if (format === 'table') say(renderSweep(merged));
      else printDocument(format, sweepReport(merged));
      process.exitCode = EXIT.ok;
    });
  outputOptions(merge, 'print the merged sweep as a SweepReport in JSON (schemas/sweep-report.json)');
}
