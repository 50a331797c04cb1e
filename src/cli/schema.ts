/** `quotient schema`: the JSON Schema of policy documents, for editors (yaml-language-server). */
import type { Command } from 'commander';
import { policyJsonSchema } from '../policy/schema.js';
import { printDocument } from './output.js';

/** Registers the command. */
export function registerSchema(program: Command): void {
  program
    .command('schema')
    .description('print the JSON Schema of policy documents (for editor completion and validation)')
    .action(() => printDocument('json', policyJsonSchema()));
}
