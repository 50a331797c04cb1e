#!/usr/bin/env node
/**
 * `kubectl quotient`: the kubectl plugin (kubectl runs `kubectl-quotient` from PATH for
 * `kubectl quotient ...`). `kubectl quotient whatif -f job.yaml --policy DIR` reads the
 * live cluster through the user's own kubectl, context and kubeconfig (`kubectl get
 * nodes,pods,workloads -A -o json` and Kueue's objects), imports it as `quotient import
 * kubectl --kueue` does, and answers `quotient whatif DIR cluster.yaml --job job.yaml`
 * with the cluster's LocalQueues and priority classes: the same commands a user could run
 * by hand, run for them. `--snapshot FILE` answers from a saved `kubectl get` instead.
 * Exit codes are quotient's: 0 answered, 1 the job is invalid (or would preempt, with
 * --fail-on-preempt), 2 could not run (kubectl failed, bad flags, an invalid policy).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, CommanderError } from 'commander';
import { display } from '../model/display-text.js';
import { colour, commanderOutput, log } from './output.js';

const EXIT = { ok: 0, findings: 1, failure: 2 };
const MAIN = join(dirname(fileURLToPath(import.meta.url)), 'main.js');

/** The objects read from the cluster: the state `import kubectl` reads, and Kueue's objects a manifest's queue and priority class are looked up in. */
export const STATE_RESOURCES = 'nodes,pods,workloads';
export const KUEUE_RESOURCES = 'clusterqueues,localqueues,resourceflavors,workloadpriorityclasses,priorityclasses';
/** Kueue's Cohort objects exist from Kueue 0.11 (v1alpha1) on: read apart, so an older Kueue is not a failure. */
export const COHORT_RESOURCES = 'cohorts';

class PluginError extends Error {
  constructor(
    message: string,
    readonly hint: string,
  ) {
    super(message);
  }
}

interface WhatIfFlags {
  filename: string;
  policy: string;
  snapshot?: string;
  context?: string;
  kubeconfig?: string;
  namespace?: string;
  gpuResource?: string;
  at?: string;
  as?: string;
  json?: boolean;
  output?: string;
  failOnPreempt?: boolean;
}

/** Runs `kubectl ARGS` with the user's context flags; its stdout, or a PluginError with what kubectl said. */
function kubectl(args: string[], flags: WhatIfFlags): { ok: true; stdout: string } | { ok: false; stderr: string; status: number | null } {
  const global = [...(flags.context !== undefined ? ['--context', flags.context] : []), ...(flags.kubeconfig !== undefined ? ['--kubeconfig', flags.kubeconfig] : [])];
  const r = spawnSync('kubectl', [...global, ...args], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  if (r.error) throw new PluginError(`cannot run kubectl: ${(r.error as NodeJS.ErrnoException).code ?? r.error.message}`, 'put kubectl on PATH, or answer from a saved state with --snapshot FILE');
  return r.status === 0 ? { ok: true, stdout: r.stdout } : { ok: false, stderr: r.stderr.trim(), status: r.status };
}

/** `kubectl get RESOURCES -A -o json`, or a PluginError naming the command and kubectl's words. */
function kubectlGet(resources: string, flags: WhatIfFlags): string {
  const args = ['get', resources, '-A', '-o', 'json'];
  const r = kubectl(args, flags);
  if (r.ok) return r.stdout;
  throw new PluginError(
    `\`kubectl ${args.join(' ')}\` failed (exit ${r.status ?? 'signal'}): ${r.stderr.split('\n')[0] ?? ''}`,
    /resource type/.test(r.stderr)
      ? 'the cluster has no Kueue installed (its CRDs): answer from a saved state with --snapshot FILE'
      : 'check --context and --kubeconfig, and that you may list these resources',
  );
}

/** The items of a List kubectl printed; output that is not one is a PluginError. */
function itemsOf(text: string, resources: string): unknown[] {
  try {
    const list = JSON.parse(text) as { items?: unknown };
    if (Array.isArray(list.items)) return list.items;
  } catch {
    // Said below.
  }
  throw new PluginError(`\`kubectl get ${resources} -A -o json\` printed no List`, 'check that kubectl is the Kubernetes client (run it by hand)');
}

/** Runs `quotient ARGS`; its exit code, its stdout and stderr captured (`capture`) or passed through. */
function quotient(args: string[], capture: boolean): { status: number; stdout: string; stderr: string } {
  // What is captured is said again line by line (escaped): it is asked without colour.
  const env = capture ? { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined } : process.env;
  const r = spawnSync(process.execPath, [MAIN, ...args], { encoding: 'utf8', stdio: capture ? 'pipe' : 'inherit', env, maxBuffer: 1024 * 1024 * 1024 });
  return { status: r.status ?? EXIT.failure, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Whether a List of objects holds a LocalQueue (import kubectl --kueue refuses files that hold none). */
function holdsLocalQueue(text: string): boolean {
  try {
    const list = JSON.parse(text) as { items?: Array<{ kind?: string }> };
    return (list.items ?? []).some((i) => i.kind === 'LocalQueue');
  } catch {
    // A YAML snapshot: let import kubectl say what it holds.
    return /^\s*kind:\s*LocalQueue\s*$/m.test(text);
  }
}

function whatIf(flags: WhatIfFlags): number {
  const dir = mkdtempSync(join(tmpdir(), 'kubectl-quotient-'));
  try {
    let state: string;
    let kueue: string;
    if (flags.snapshot !== undefined) {
      // A saved `kubectl get ... -o json`: its Kueue objects (if any) are beside its nodes and pods.
      state = flags.snapshot;
      kueue = flags.snapshot;
    } else {
      state = join(dir, 'state.json');
      writeFileSync(state, kubectlGet(STATE_RESOURCES, flags));
      const items = itemsOf(kubectlGet(KUEUE_RESOURCES, flags), KUEUE_RESOURCES);
      const cohorts = kubectl(['get', COHORT_RESOURCES, '-A', '-o', 'json'], flags);
      if (cohorts.ok) items.push(...itemsOf(cohorts.stdout, COHORT_RESOURCES));
      kueue = join(dir, 'kueue.json');
      writeFileSync(kueue, JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    }
    let kueueText: string;
    try {
      kueueText = readFileSync(kueue, 'utf8');
    } catch (e) {
      throw new PluginError(`cannot read ${kueue}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, 'check the path of --snapshot');
    }
    const withQueues = holdsLocalQueue(kueueText) ? ['--kueue', kueue] : [];
    // The live state as `quotient import kubectl` reads it; its summary is said only when it fails.
    const imported = quotient(
      [
        'import',
        'kubectl',
        state,
        ...withQueues,
        ...(flags.gpuResource !== undefined ? ['--gpu-resource', flags.gpuResource] : []),
        ...(flags.at !== undefined ? ['--at', flags.at] : []),
        '--name',
        flags.context ?? 'live',
      ],
      true,
    );
    if (imported.status !== EXIT.ok) {
      for (const line of imported.stderr.replace(/\n$/, '').split('\n')) log(display`${line}`);
      log(display`${colour.red('kubectl-quotient:')} the cluster's state could not be imported (quotient import kubectl exit ${imported.status})`);
      return imported.status;
    }
    const cluster = join(dir, 'cluster.yaml');
    writeFileSync(cluster, imported.stdout);
    const said = imported.stderr.split('\n').find((l) => l.startsWith('imported:'));
    const from = flags.snapshot !== undefined ? `from ${flags.snapshot}` : `from the cluster${flags.context !== undefined ? ` (context ${flags.context})` : ''}`;
    if (said) log(display`kubectl-quotient: ${from}: ${said.slice('imported: '.length)}`);
    const asked = quotient(
      [
        'whatif',
        flags.policy,
        cluster,
        '--job',
        flags.filename,
        '--kueue',
        kueue,
        ...(flags.namespace !== undefined ? ['--namespace', flags.namespace] : []),
        ...(flags.gpuResource !== undefined ? ['--gpu-resource', flags.gpuResource] : []),
        ...(flags.as !== undefined ? ['--as', flags.as] : []),
        ...(flags.json ? ['--json'] : []),
        ...(flags.output !== undefined ? ['--output', flags.output] : []),
        ...(flags.failOnPreempt ? ['--fail-on-preempt'] : []),
      ],
      false,
    );
    return asked.status;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const program = new Command();
program
  .name('kubectl quotient')
  .description('Quotient as a kubectl plugin: ask what would happen to a job on this cluster, with its Kueue queues and priorities, before you submit it.')
  .version('0.1.0')
  .exitOverride()
  .showHelpAfterError()
  // Commander echoes the arguments it refuses: escaped, as quotient's own.
  .configureOutput(commanderOutput(process.argv.slice(2)));
program
  .command('whatif')
  .description('what if this manifest were submitted now? admit, preempt (whom, under which rule), wait or reject, and why')
  .requiredOption('-f, --filename <file>', 'the manifest: a Job, JobSet, PyTorchJob/TFJob/MPIJob, RayJob/RayCluster, Pod, Deployment/StatefulSet, LeaderWorkerSet or Kueue Workload (YAML or JSON)')
  .requiredOption('--policy <dir>', 'the Quotient policy (a folder, e.g. from `quotient import kueue`) whose rules answer')
  .option('--snapshot <file>', 'answer from a saved `kubectl get nodes,pods,workloads,localqueues,clusterqueues,workloadpriorityclasses -A -o json` instead of the live cluster')
  .option('--context <name>', 'the kubeconfig context to read (passed to kubectl)')
  .option('--kubeconfig <file>', 'the kubeconfig file (passed to kubectl)')
  .option('-n, --namespace <namespace>', 'the namespace of a manifest that names none (default: default)')
  .option('--gpu-resource <name>', 'the extended resource counted as GPUs (default: nvidia.com/gpu)')
  .option('--at <time>', 'the snapshot time (ISO 8601); default now')
  .option('--as <user>', "answer as this user sees it: other teams' jobs only as anonymous usage")
  .option('--fail-on-preempt', 'exit 1 when the answer would preempt a running job')
  .option('--json', 'print the WhatIfReport as JSON')
  .option('-o, --output <format>', 'table | json | yaml')
  .addHelpText(
    'after',
    `\nIt runs, with your --context and --kubeconfig:\n  kubectl get ${STATE_RESOURCES} -A -o json\n  kubectl get ${KUEUE_RESOURCES} -A -o json\n  kubectl get ${COHORT_RESOURCES} -A -o json   (optional: older Kueue has none)\nthen quotient import kubectl and quotient whatif --job (docs/cli.md "kubectl plugin").\n\nExamples:\n  kubectl quotient whatif -f job.yaml --policy kueue-policy/\n  kubectl quotient whatif -f pytorchjob.yaml --policy kueue-policy/ --context prod -o json\n\nExit codes: 0 answered, 1 the job is invalid (or would preempt, with --fail-on-preempt), 2 could not run.`,
  )
  .action((flags: WhatIfFlags) => {
    process.exitCode = whatIf(flags);
  });

try {
  program.parse(process.argv);
} catch (e) {
  if (e instanceof CommanderError) process.exitCode = e.exitCode === 0 ? EXIT.ok : EXIT.failure;
  else {
    const known = e instanceof PluginError;
    log(display`${colour.red('kubectl-quotient:')} ${(e as Error).message}\n  ${colour.cyan('hint:')} ${known ? e.hint : 'this is a bug in Quotient: please report it'}`);
    process.exitCode = EXIT.failure;
  }
}
