/** `quotient lsp`: the language server for policy files, over stdio (docs/editor.md). */
import type { Command } from 'commander';
import { QuotientError } from '../errors.js';

/** Registers the command. */
export function registerLsp(program: Command): void {
  program
    .command('lsp')
    .description("a language server for policy files over stdio: check's findings as you type, hover, completion, definitions, rename, quick fixes, what-if lenses")
    .option('--stdio', 'talk over stdin and stdout (the default and only transport; accepted because editors pass it)')
    .option('--debounce <ms>', 'quiet time after an edit before the policy is checked again', '60')
    .addHelpText(
      'after',
      "\nStarted by an editor, not by hand: see docs/editor.md for VS Code, Neovim and Helix.\nExit codes: 0 the editor shut the server down, 1 its input ended without a shutdown request (the protocol's rule), 2 could not run.",
    )
    .action(async (opts: { debounce: string }) => {
      const debounceMs = Number(opts.debounce);
      if (!Number.isInteger(debounceMs) || debounceMs < 0 || debounceMs > 10_000)
        throw new QuotientError('cli/bad-debounce', `--debounce ${opts.debounce} is not a whole number of milliseconds from 0 to 10000`, 'e.g. --debounce 60');
      // stdout carries the protocol: anything else printed there would corrupt it.
      console.log = console.error;
      const { startLanguageServer } = await import('../lsp/server.js');
      startLanguageServer({ debounceMs });
    });
}
