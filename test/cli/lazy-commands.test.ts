/**
 * Start-up (issue 22): a run loads only the command it runs, and only the libraries that
 * command uses. The stubs main.ts registers for the other commands must read in --help as
 * the commands themselves do, and every command module must be in the table. The module
 * graph of whole runs of the built CLI is recorded by a probe (ESM imports through a
 * resolve hook, CommonJS requires from require.cache) and checked for what must not load.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Command, Help } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMANDS, commandToLoad, loadCommand, registerCommands } from '../../src/cli/commands.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const dir = mkdtempSync(join(tmpdir(), 'quotient-lazy-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the command table', () => {
  it('lists every command module of src/cli, once, under the name it registers', async () => {
    const registers = readdirSync(join(ROOT, 'src/cli'))
      .filter((f) => f.endsWith('.ts'))
      .flatMap((f) => [...readFileSync(join(ROOT, 'src/cli', f), 'utf8').matchAll(/^export function (register[A-Z]\w*)\(program: Command\)/gm)].map((m) => `./${f.replace(/\.ts$/, '.js')}#${m[1]}`));
    expect(registers.sort()).toEqual(COMMANDS.map((c) => `${c.module}#${c.register}`).sort());
    for (const entry of COMMANDS) {
      const program = new Command();
      (await loadCommand(entry))(program);
      const cmd = program.commands[0]!;
      const help = new Help();
      expect({ name: cmd.name(), aliases: cmd.aliases(), term: help.subcommandTerm(cmd), description: help.subcommandDescription(cmd) }).toEqual({
        name: entry.name,
        aliases: [...(entry.aliases ?? [])],
        term: entry.term,
        description: entry.description,
      });
    }
  });

  it('gives the same top-level --help with stubs as with every module loaded', async () => {
    const eager = new Command('quotient');
    for (const entry of COMMANDS) (await loadCommand(entry))(eager);
    const lazy = new Command('quotient');
    await registerCommands(lazy, undefined);
    const oneLoaded = new Command('quotient');
    await registerCommands(
      oneLoaded,
      COMMANDS.find((c) => c.name === 'whatif'),
    );
    expect(lazy.helpInformation()).toBe(eager.helpInformation());
    expect(oneLoaded.helpInformation()).toBe(eager.helpInformation());
  });

  it('loads the command named first, or after help', () => {
    const name = (args: string[]): string | undefined => commandToLoad(args)?.name;
    expect(name(['check', 'policies'])).toBe('check');
    expect(name(['--timings', 'whatif', '--submit', 'quota=a'])).toBe('whatif');
    expect(name(['help', 'simulate'])).toBe('simulate');
    expect(name(['--', 'diff'])).toBe('diff');
    expect(name(['--version'])).toBeUndefined();
    expect(name([])).toBeUndefined();
    expect(name(['chek'])).toBeUndefined();
  });
});

/** The packages and our modules a whole run of the built CLI loaded. */
function loaded(...args: string[]): { packages: Set<string>; ours: Set<string>; status: number | null } {
  return loadedWith({}, ...args);
}

/** As `loaded`, with these environment variables set for the run. */
function loadedWith(env: Record<string, string>, ...args: string[]): { packages: Set<string>; ours: Set<string>; status: number | null } {
  const out = join(dir, `loaded-${Math.random().toString(36).slice(2)}.txt`);
  const hook = join(dir, 'hook.mjs');
  // The resolve hook runs on the loader's thread, which has its own copy of the environment.
  writeFileSync(
    join(dir, 'resolve.mjs'),
    "import { appendFileSync } from 'node:fs';\nexport async function resolve(s, c, next) { const r = await next(s, c); appendFileSync(process.env.LAZY_OUT, r.url + '\\n'); return r; }\n",
  );
  writeFileSync(
    hook,
    [
      "import { appendFileSync } from 'node:fs';",
      "import { createRequire, register } from 'node:module';",
      "register('./resolve.mjs', import.meta.url);",
      'const require = createRequire(import.meta.url);',
      "process.on('exit', () => appendFileSync(process.env.LAZY_OUT, Object.keys(require.cache).map((k) => 'file://' + k + '\\n').join('')));",
    ].join('\n'),
  );
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(hook).href, MAIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env, LAZY_OUT: out, NO_COLOR: '1' },
    timeout: 60_000,
  });
  const urls = readFileSync(out, 'utf8').split('\n').filter(Boolean);
  const packages = new Set(urls.flatMap((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1] ?? []));
  const ours = new Set(urls.flatMap((u) => /\/dist\/(.*)\.js$/.exec(u)?.[1] ?? []));
  return { packages, ours, status: r.status };
}

/** What only loading a policy uses (the loader, its validators, zod, its checks and builders): a cache hit loads none of it. */
function loaderOnly(run: { packages: Set<string>; ours: Set<string> }): string[] {
  return [
    ...[...run.packages].filter((p) => ['zod', 'ajv', 'yaml'].includes(p)),
    ...[...run.ours].filter((m) => /^policy\/(load-policy|validate\/(?!suggest$)|check\/|build\/(?!build-job$|access$|parse-fields$))/.test(m)),
  ];
}

describe('what a run loads (the built CLI)', () => {
  it('--version loads no command, no policy reader, no engine and no library but commander', () => {
    const run = loaded('--version');
    expect(run.status).toBe(0);
    expect([...run.packages].filter((p) => p !== 'commander' && p !== 'picocolors')).toEqual([]);
    // What main.ts needs to parse the flags and report an error: nothing else of ours.
    const main = new Set(['cli/main', 'cli/commands', 'cli/exit', 'cli/output', 'errors', 'model/display-text', 'engine/report-document', 'kernel/kernel-error']);
    expect([...run.ours].filter((m) => !main.has(m))).toEqual([]);
  });

  // `check` opens each policy (read, validate, build, place) and asks nothing: the answer
  // pipeline, the request reader, the simulator, the yaml library (a clean policy read by the
  // fast path locates no finding) and the CSV reader (no spot market here) stay unloaded.
  it('check loads neither the answer pipeline, the yaml library, the charts, the worker pool, the rules engine nor the server', () => {
    const run = loaded('check', 'policies/team-isolation');
    expect(run.status).toBe(0);
    expect(run.ours.has('cli/check')).toBe(true);
    expect(run.ours.has('engine/session-core')).toBe(true);
    for (const heavy of ['vega', 'piscina', 'json-rules-engine', 'fastify', 'cli-progress', 'csv-parse', 'yaml', 'cli-table3']) expect(run.packages, heavy).not.toContain(heavy);
    expect(
      [...run.ours].filter((m) => /^cli\/(whatif|simulate|serve|render-html)$|^engine\/(pipeline|request|whatif|preemption-problem|queue-answer)$|^(simulate|interop|pool|serve|verify)\//.test(m)),
    ).toEqual([]);
    // Any other module imported eagerly again shows here first: the set was 114 of ours (issue 22).
    expect(run.ours.size, [...run.ours].sort().join(' ')).toBeLessThanOrEqual(125);
  });

  // A warm `check` (issue 22): the compiled-policy cache is asked before the loader is
  // imported, so a hit loads neither the loader nor what only loading uses: zod, ajv, the
  // YAML library, the validators and the builders of the model.
  it('a warm check loads neither the policy loader, its validators nor its builders', () => {
    const env = { QUOTIENT_CACHE_DIR: join(dir, 'warm-check-cache') };
    const cold = loadedWith(env, 'check', 'policies/team-isolation');
    expect(cold.status).toBe(0);
    // The first run loads (and writes the entry): the probe sees the loader and zod (bundled, below).
    expect(loaderOnly(cold)).toEqual(expect.arrayContaining(['policy/load-policy', 'policy/validate/validate-schema', 'policy/validate/zod']));
    const warm = loadedWith(env, 'check', 'policies/team-isolation');
    expect(warm.status).toBe(0);
    expect(warm.ours.has('engine/policy-cache')).toBe(true);
    expect(loaderOnly(warm)).toEqual([]);
  });

  // zod's every entry point loads its 64 locales; the build bundles the names we use into
  // dist/policy/validate/zod.js (scripts/bundle-zod.mjs), so a run that validates loads no
  // file of the zod package.
  it('a check that validates loads zod as one bundled module, without its locales', () => {
    const run = loaded('check', 'policies/team-isolation', '--no-cache');
    expect(run.status).toBe(0);
    expect(run.ours.has('policy/validate/zod')).toBe(true);
    expect(run.packages).not.toContain('zod');
  });

  it('a warm whatif of WhatIfs by name loads neither the policy loader, the job reader nor zod', () => {
    const env = { QUOTIENT_CACHE_DIR: join(dir, 'warm-whatif-cache') };
    const cold = loadedWith(env, 'whatif', 'policies/team-isolation');
    expect(cold.status).toBe(0);
    expect(loaderOnly(cold)).toContain('policy/load-policy');
    const warm = loadedWith(env, 'whatif', 'policies/team-isolation');
    expect(warm.status).toBe(0);
    expect(warm.ours.has('engine/request')).toBe(true);
    // yaml stays: an answer cites the policy's lines, read from the positioned document.
    expect([...loaderOnly(warm).filter((m) => m !== 'yaml'), ...[...warm.ours].filter((m) => m === 'policy/build/read-job')]).toEqual([]);
  });

  it('whatif without --workers, --market or --job loads neither the charts, the worker pool, the PAI reader nor the simulator', () => {
    const run = loaded('whatif', 'policies/team-isolation');
    expect(run.status).toBe(0);
    for (const heavy of ['vega', 'piscina', 'cli-progress', 'csv-parse']) expect(run.packages, heavy).not.toContain(heavy);
    expect([...run.ours].filter((m) => /^(pool|interop|simulate|serve)\//.test(m))).toEqual([]);
    expect(run.packages).toContain('json-rules-engine'); // its tables are built: the probe sees what loads
    expect(run.ours.has('engine/pipeline')).toBe(true); // and what is imported on first use
  });

  it('whatif loads the simulator when an answer waits and asks for its start', () => {
    const run = loaded('whatif', 'policies/when-will-it-start');
    expect(run.status).toBe(0);
    expect(run.ours.has('simulate/start-estimate')).toBe(true);
  });
});
