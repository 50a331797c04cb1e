/** `quotient schema`: the JSON Schema of policy documents, for editors (yaml-language-server). */
import type { Command } from 'commander';
import { QuotientError } from '../errors.js';
import { KINDS, kindJsonSchema, policyJsonSchema, type Kind } from '../policy/validate/schema.js';
import { printDocument } from './output.js';

/** Registers the command. */
export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of policy documents (for editor completion and validation); the same schemas ship as schemas/input/<kind>.json')
    .option('--kind <kind>', `only the documents of one kind (${KINDS.join(', ')})`)
    .addHelpText('after', '\nExit codes: 0 printed, 2 could not run (an unknown --kind).')
    .action((opts: { kind?: string }) => {
      if (opts.kind === undefined) return printDocument('json', policyJsonSchema());
      const kind = KINDS.find((k) => k.toLowerCase() === opts.kind?.toLowerCase());
      if (!kind) throw new QuotientError('cli/unknown-kind', `--kind "${opts.kind}" is not a policy kind`, `use one of ${KINDS.join(', ')}`);
      printDocument('json', kindJsonSchema(kind satisfies Kind));
    });
}
