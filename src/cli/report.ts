/** `quotient report merge FILES...`: the shards of a simulation sweep, merged into the document one unsharded run prints. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { parse as parseYaml } from 'yaml';
import { QuotientError } from '../errors.js';
import { noteReadFile } from '../io/input-registry.js';
import { mergeSweeps } from '../simulate/sweep.js';
import { EXIT } from './exit.js';
import { outputOptions } from './flags.js';
import { formatOf, printDocument, say, type OutputOptions } from './output.js';
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
        try {
          const doc: unknown = /^\s*[{[]/.test(text) ? JSON.parse(text) : parseYaml(text);
          return { file, doc: sweepDocumentOf(doc) };
        } catch (e) {
          throw new QuotientError('report/unreadable', `${file} is not JSON or YAML: ${(e as Error).message.split('\n')[0]}`, 'give the documents quotient simulate --shard printed');
        }
      });
      const merged = mergeSweeps(docs);
      if (typeof merged === 'string') throw new QuotientError('report/incomplete-sweep', merged, 'give every shard of one sweep once: quotient simulate ... --shard i/N for i = 0 .. N-1');
      if (format === 'table') say(renderSweep(merged));
      else printDocument(format, sweepReport(merged));
      process.exitCode = EXIT.ok;
    });
  outputOptions(merge, 'print the merged sweep as a SweepReport in JSON (schemas/sweep-report.json)');
}
