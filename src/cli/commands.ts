/**
 * Which commands `quotient` has, and how each is loaded. A run imports only the module of the
 * command it runs (and with it only that command's libraries): `--version` and `--help` load none,
 * `check` does not pay for vega, piscina or the server. Every other command is registered as a
 * stub that carries what the top-level --help lists of it (name, arguments, description), so
 * `quotient --help` reads the same as if every module were loaded; test/cli/lazy-commands.test.ts
 * holds each stub to its module's real registration.
 */
import { Help, type Command } from 'commander';

/** One command: its module, the function that registers it there, and what the top-level help says of it. */
export interface CommandEntry {
  name: string;
  aliases?: readonly string[];
  /** The command's module, beside this file, compiled name. */
  module: string;
  register: string;
  /** Help's one line for the command: `name [options] <args>`, as Commander writes it. */
  term: string;
  description: string;
}

/** Every command, in the order --help lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'check',
    module: './check.js',
    register: 'registerCheck',
    term: 'check [options] [paths...]',
    description: 'validate policy files and lint them; every finding has a code, file:line:col, the field path and a hint',
  },
  {
    name: 'whatif',
    module: './whatif.js',
    register: 'registerWhatIf',
    term: 'whatif [options] [paths...]',
    description: 'answer "what if this job were submitted now?" against the Cluster snapshot: admit, preempt (whom, under which rule), wait or reject, and why',
  },
  {
    name: 'explain',
    module: './explain.js',
    register: 'registerExplain',
    term: 'explain [options] [paths...]',
    description: 'print the rules a policy compiles to: which jobs may preempt which, and why, with the policy line of each rule',
  },
  {
    name: 'scale',
    module: './scale.js',
    register: 'registerScale',
    term: 'scale [options] [paths...]',
    description: 'what if quotas were scaled: check the new mins fit, list the jobs whose standing changes and what each team could now get; --apply writes the mins back',
  },
  {
    name: 'test',
    module: './test.js',
    register: 'registerTest',
    term: 'test [options] [paths...]',
    description: "check the Promise documents of a policy: generate cluster states consistent with it, ask each promise's submissions, and report held or broken with a replayable counterexample",
  },
  {
    name: 'schema',
    module: './schema.js',
    register: 'registerSchema',
    term: 'schema [options]',
    description: 'print the JSON Schema of policy documents (for editor completion and validation); the same schemas ship as schemas/input/<kind>.json',
  },
  { name: 'import', module: './import.js', register: 'registerImport', term: 'import', description: "read other tools' objects into Quotient documents" },
  {
    name: 'export',
    module: './export.js',
    register: 'registerExport',
    term: 'export [options] <format> <paths...>',
    description: "write the policy's quota tree as Kueue, Koordinator, Volcano or PAI objects, with a table of what maps, what is approximated and what is lost",
  },
  {
    name: 'diff',
    module: './diff.js',
    register: 'registerDiff',
    term: 'diff [options] <paths...>',
    description:
      'what a policy change does: ask the old and the new policy the same questions (every WhatIf, every Promise, a seeded sample of submissions) and list every answer that changed, with the rule and line on each side',
  },
  {
    name: 'simulate',
    module: './simulate.js',
    register: 'registerSimulate',
    term: 'simulate [options] <paths...>',
    description: 'replay jobs over simulated time on the policy — queues, preemption, idle resources, the spot market, checkpoints and restarts — and report per team and quota',
  },
  {
    name: 'risk',
    module: './risk.js',
    register: 'registerRisk',
    term: 'risk [options] <policy>',
    description: 'rank the running jobs by preemption exposure: the share of plausible arrivals that would preempt each, the rule that exposes it, and what would protect it',
  },
  { name: 'report', module: './report.js', register: 'registerReport', term: 'report', description: 'work with simulation reports' },
  {
    name: 'serve',
    module: './serve.js',
    register: 'registerServe',
    term: 'serve [options] <paths...>',
    description: 'serve one policy over HTTP, live: what-if answers, the quota tree, nodes and jobs as each caller may see them, metrics, and the web app',
  },
  {
    name: 'lsp',
    module: './lsp.js',
    register: 'registerLsp',
    term: 'lsp [options]',
    description: "a language server for policy files over stdio: check's findings as you type, hover, completion, definitions, rename, quick fixes, what-if lenses",
  },
];

/** Options of the program itself that take no value: a command is the first argument that is none of them. */
const PROGRAM_FLAGS = new Set(['-V', '--version', '--timings', '--no-cache', '-h', '--help']);

/** The command these arguments (without node and the script) run, or `help NAME` shows: undefined for none or an unknown one. */
export function commandToLoad(args: readonly string[]): CommandEntry | undefined {
  let i = 0;
  while (i < args.length && PROGRAM_FLAGS.has(args[i] ?? '')) i++;
  let word = args[i];
  if (word === '--') word = args[++i];
  if (word === 'help') word = args[i + 1];
  return COMMANDS.find((c) => c.name === word || c.aliases?.includes(word ?? ''));
}

/** Loads a command's module: the function that registers the command on a program. */
export async function loadCommand(entry: CommandEntry): Promise<(program: Command) => void> {
  const mod = (await import(entry.module)) as Record<string, ((p: Command) => void) | undefined>;
  const register = mod[entry.register];
  if (!register) throw new Error(`${entry.module} has no ${entry.register}`);
  return register;
}

/** Stubs whose line in --help is their entry's term (Commander would write it from options and arguments they do not have). */
const stubTerms = new WeakMap<Command, string>();

/** Registers every command: `load` (the one being run) from its module, the others as stubs for --help. */
export async function registerCommands(program: Command, load: CommandEntry | undefined): Promise<void> {
  const real = load ? await loadCommand(load) : undefined;
  for (const entry of COMMANDS) {
    if (entry === load && real) real(program);
    else {
      const stub = program.command(entry.name).description(entry.description);
      for (const alias of entry.aliases ?? []) stub.alias(alias);
      stubTerms.set(stub, entry.term);
    }
  }
  const help = new Help();
  program.configureHelp({ subcommandTerm: (cmd) => stubTerms.get(cmd) ?? help.subcommandTerm(cmd) });
}
