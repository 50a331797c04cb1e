#!/usr/bin/env node
/**
 * The `quotient` command. Each subcommand lives in its own file; this one wires them
 * up and turns every failure into a message and an exit code, never a stack trace
 * (set QUOTIENT_DEBUG=1 to see one).
 */
import { Command, CommanderError } from 'commander';
import { FindingsError, QuotientError } from '../errors.js';
import { KernelError } from '../kernel/kernel-error.js';
import { display, escapeKeepingLines } from '../model/display-text.js';
import { commandToLoad, registerCommands } from './commands.js';
import { EXIT } from './exit.js';
import { colour, commanderOutput, log, sayWriteFailure } from './output.js';

// A closed pipe (`quotient check policies | head`) ends the output, not the program with a
// trace; any other failure to write it (a full disk: `> /dev/full`) is one line and exit 2.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  try {
    sayWriteFailure(writeFailure(e));
  } finally {
    process.exit(EXIT.failure);
  }
});
// Nowhere left to say anything: stop with the failure code.
process.stderr.on('error', () => process.exit(EXIT.failure));

/** "no space left on device (ENOSPC)": the reason a write failed, as people say it. */
function writeFailure(e: NodeJS.ErrnoException): string {
  const said: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EDQUOT: 'disk quota exceeded',
    EFBIG: 'the file is too large',
    EIO: 'input/output error',
    EBADF: 'the output is closed',
    EAGAIN: 'the output is not accepting data',
  };
  return e.code ? `${said[e.code] ?? e.message.split('\n')[0] ?? e.code} (${e.code})` : (e.message.split('\n')[0] ?? 'unknown error');
}

const program = new Command();
program
  .name('quotient')
  .description('Policy as code for GPU quota trees and preemption: check policies, ask what-if, see whose work would die and why.')
  .version('0.1.0')
  .option('--timings', 'print how long each stage of loading, opening and answering took, on stderr (or QUOTIENT_TIMINGS=1)')
  .option('--no-cache', 'open policies without the compiled-policy cache, neither reading nor writing it (or QUOTIENT_NO_CACHE=1)')
  .showHelpAfterError()
  .exitOverride()
  // Commander echoes the arguments it refuses: escaped, so an argument cannot drive the terminal nor forge a line.
  .configureOutput(commanderOutput(process.argv.slice(2)));

// Declared before the top-level await below: report() reads it.
/** What a kernel error about the build on disk means to the user (the rest are bugs). */
const KERNEL_BUILD_PROBLEM: Partial<Record<KernelError['code'], string>> = {
  'kernel/wasm-missing': 'the WebAssembly kernel is not built',
  'kernel/wasm-corrupt': 'the WebAssembly kernel build is damaged (truncated or not a kernel)',
  'kernel/layout-mismatch': 'the WebAssembly kernel build is stale: it was built from other sources than this code',
};

// --timings starts the record before any command reads a policy.
// The record (policy/stages.ts) loads only then: `--version` and `--help` load nothing of the policy reader.
let timings = process.env.QUOTIENT_TIMINGS === '1';
program.hook('preAction', async (cmd) => {
  const opts = cmd.optsWithGlobals<{ timings?: boolean; cache?: boolean }>();
  // Every policy a command opens goes through the compiled-policy cache (engine/policy-cache.ts), unless --no-cache.
  const folder = await import('../engine/cache-folder.js');
  if (opts.cache !== false && !folder.cacheOffByEnv()) {
    folder.usePolicyCacheDir(folder.policyCacheDir());
    // A cache folder or entry another user could have written is not used: said once, on stderr (never in a machine document).
    folder.onCacheWarning((message) => log(display`quotient: warning: ${message}`));
  }
  if (!opts.timings) return;
  timings = true;
  (await import('../policy/stages.js')).recordTimings();
});

try {
  // Only the command being run is loaded (with its libraries); the others are listed for --help.
  await registerCommands(program, commandToLoad(process.argv.slice(2)));
  // `help NAME` of no command: Commander prints the usage with exit 2 but never says why, as `quotient NAME` does.
  const [first, second] = process.argv.slice(2);
  if (first === 'help' && second !== undefined && second !== 'help' && !program.commands.some((c) => c.name() === second || c.aliases().includes(second)))
    program.error(`error: unknown command '${second}'`, { code: 'commander.unknownCommand', exitCode: EXIT.failure });
  await program.parseAsync(process.argv);
} catch (e) {
  process.exitCode = await report(e);
} finally {
  if (timings) (await import('./timings.js')).printTimings((await import('../policy/stages.js')).timingsSoFar());
}

async function report(e: unknown): Promise<number> {
  if (e instanceof CommanderError) {
    // Commander has printed its message (or the help); help and version are not failures.
    return e.exitCode === 0 ? EXIT.ok : EXIT.failure;
  }
  if (e instanceof QuotientError) {
    log(display`${colour.red('quotient:')} ${e.message}${e.hint ? display`\n  ${colour.cyan('hint:')} ${e.hint}` : ''}`);
    return EXIT.failure;
  }
  if (e instanceof KernelError && KERNEL_BUILD_PROBLEM[e.code]) {
    // The build on disk is missing, damaged or older than the code: say which, and how to rebuild.
    log(
      display`${colour.red('quotient:')} ${KERNEL_BUILD_PROBLEM[e.code] ?? ''} (${e.message})\n  ${colour.cyan('hint:')} run \`npm run build:kernel\` (npm ci does it), or pass --kernel reference to use the TypeScript twin`,
    );
    return EXIT.failure;
  }
  if (e instanceof FindingsError) {
    log((await import('./render-findings.js')).renderFindings(e.findings));
    return EXIT.failure;
  }
  log(display`${colour.red('quotient: internal error:')} ${(e as Error)?.message ?? String(e)}`);
  log(display`  this is a bug in Quotient, not in your policy; please report it with the command you ran`);
  // A trace for a developer, its lines kept (a message's own line feed would show as a line too: debug output only).
  if (process.env.QUOTIENT_DEBUG) log(escapeKeepingLines(String((e as Error)?.stack)));
  return EXIT.failure;
}
