/**
 * `quotient import kubectl FILE|-`: a live cluster (`kubectl get nodes,pods -A -o json`)
 * as a Cluster snapshot on stdout, with a summary on stderr of what was read, how it was
 * mapped and every object skipped and why. Bad input is a located error and exit 1.
 */
import type { Command } from 'commander';
import { QuotientError, sortFindings } from '../errors.js';
import { importKubectl, type NameSource } from '../interop/import-kubectl.js';
import { AS_IS_MAP, DEFAULT_PRIORITY_MAP, parsePriorityMap } from '../interop/priority-map.js';
import { clusterYaml, startedAfter, submittedAfter } from '../interop/write-cluster.js';
import { localQueuesOfFiles } from '../interop/kueue-local-queues.js';
import { DEFAULT_OWNER_MODULES, describeModuleMap, parseModuleMap } from '../interop/owner-module.js';
import { importedTreeYaml, importQuotas, QUOTA_FORMATS, type QuotaFormat } from '../interop/import-quotas.js';
import { setRuntimeDefault } from '../interop/tree-quota.js';
import { importKueueRules } from '../interop/import-kueue-rules.js';
import { MODULES, type Module } from '../model/policy.js';
import { parseTime } from '../model/quantity.js';
import { readDuration } from '../policy/parse/number-text.js';
import { display, joinDisplay, type Display } from '../model/display-text.js';
import { numberFlag } from './flags.js';
import { EXIT } from './exit.js';
import { log, printYamlText } from './output.js';
import { readInput } from './read-input.js';
import { renderFindings } from './render-findings.js';

interface KubectlFlags {
  gpuResource: string;
  modelLabel: string;
  poolLabel?: string;
  pool: string;
  quotaFrom: string;
  workspaceFrom: string;
  moduleLabel: string;
  module: string;
  priorityMap?: string;
  moduleMap?: string;
  kueue: string[];
  rules: string;
  at?: string;
  name: string;
}

/** `kueue,koordinator,namespace,label:KEY` → sources; anything else is a usage error. */
function nameSources(flag: string, text: string): NameSource[] {
  const out: NameSource[] = [];
  for (const s of text
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '')) {
    if (s === 'kueue' || s === 'koordinator' || s === 'namespace' || (s.startsWith('label:') && s.length > 'label:'.length)) out.push(s as NameSource);
    else throw new QuotientError('cli/bad-flag', `${flag}: unknown source "${s}"`, 'use kueue, koordinator, namespace or label:KEY, comma-separated, in the order to try');
  }
  if (out.length === 0) throw new QuotientError('cli/bad-flag', `${flag} is empty`, 'e.g. kueue,koordinator,namespace');
  return out;
}

/** Registers `import` and its formats. */
export function registerImport(program: Command): Command {
  const cmd = program.command('import').description("read other tools' objects into Quotient documents");
  cmd
    .command('kubectl')
    .description(
      "a Cluster snapshot from `kubectl get nodes,pods,workloads -A -o json`: nodes, running GPU pods grouped into gang jobs by owner, and the queue (pending pods that name one, Kueue's pending Workloads)",
    )
    .argument('<file>', 'the kubectl JSON (a List), or - for stdin')
    .option('--gpu-resource <name>', 'the extended resource counted as GPUs', 'nvidia.com/gpu')
    .option('--model-label <label>', 'node label holding the GPU model', 'nvidia.com/gpu.product')
    .option('--pool-label <label>', 'node label holding the pool name (nodes without it get --pool)')
    .option('--pool <name>', 'the pool of nodes without --pool-label', 'gpu-pool')
    .option(
      '--quota-from <sources>',
      "where a pod's quota name comes from, in order: kueue (label kueue.x-k8s.io/queue-name), koordinator (label quota.scheduling.koordinator.sh/name), namespace, label:KEY",
      'kueue,koordinator,namespace',
    )
    .option('--workspace-from <sources>', "where a pod's workspace name comes from (same sources)", 'namespace')
    .option('--module-label <label>', 'pod label holding the module (DLC, DSW, EAS)', 'quotient.dev/module')
    .option('--module <module>', "the module of pods without --module-label whose owner's kind is not in the module map", 'DLC')
    .option('--module-map <map>', `owner kind → module, KIND=MODULE comma-separated, over the defaults (${describeModuleMap(DEFAULT_OWNER_MODULES)})`)
    .option(
      '--kueue <file>',
      "Kueue objects (LocalQueues, ClusterQueues; YAML or JSON, repeatable): a pod's kueue.x-k8s.io/queue-name names a LocalQueue, whose ClusterQueue is its quota",
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .option(
      '--rules <rules>',
      "with --kueue, the rules of the tree `import kueue` wrote: kueue (the default: priorities as they are, nodes' labels the flavors select by) or pai (priorities banded by --priority-map, no labels)",
      'kueue',
    )
    .option(
      '--priority-map <bands>',
      `spec.priority → 1..9: FROM=PRIORITY bands, a pod gets the priority of the highest band it reaches, or as-is (any int32, Kueue's rules; the default with --kueue under --rules kueue) (default "${DEFAULT_PRIORITY_MAP}")`,
    )
    .option('--at <time>', 'the snapshot time (ISO 8601); default now')
    .option('--name <name>', "the Cluster document's name", 'imported')
    .addHelpText(
      'after',
      '\nExamples:\n  kubectl get nodes,pods -A -o json > state.json\n  kubectl get nodes,pods,workloads -A -o json > state.json   # with Kueue: pending Workloads are the queue\n  quotient import kubectl state.json > cluster.yaml\n  kubectl get nodes,pods -A -o json | quotient import kubectl - --pool-label node.kubernetes.io/instance-type\n\nExit codes: 0 imported (skipped objects are listed on stderr), 1 the input is not a kubectl List (located errors), 2 could not run.',
    )
    .action((file: string, flags: KubectlFlags) => {
      if (!(MODULES as readonly string[]).includes(flags.module)) throw new QuotientError('cli/bad-flag', `--module ${flags.module} is not a module`, `use one of ${MODULES.join(', ')}`);
      const moduleMap = flags.moduleMap === undefined ? { map: new Map(DEFAULT_OWNER_MODULES) } : parseModuleMap(flags.moduleMap);
      if ('error' in moduleMap) throw new QuotientError('cli/bad-flag', `--module-map: ${moduleMap.error}`, 'e.g. --module-map Notebook=DSW,RayCluster=DLC');
      if (flags.rules !== 'kueue' && flags.rules !== 'pai') throw new QuotientError('cli/bad-flag', `--rules ${flags.rules} is not a set of rules`, 'use kueue (the default) or pai');
      // A tree under Kueue's rules takes Kueue's priorities as they are and selects nodes by their labels.
      const kueueRules = flags.kueue.length > 0 && flags.rules === 'kueue';
      const bands = parsePriorityMap(flags.priorityMap ?? (kueueRules ? AS_IS_MAP : DEFAULT_PRIORITY_MAP));
      if (!bands.bands) throw new QuotientError('cli/bad-flag', `--priority-map: ${bands.error}`, `e.g. ${DEFAULT_PRIORITY_MAP}`);
      const at = flags.at === undefined ? Date.now() : parseTime(flags.at);
      if (at === undefined) throw new QuotientError('cli/bad-flag', `--at ${flags.at} is not an ISO 8601 time`, 'e.g. 2026-11-23T06:00:00Z');
      const input = readInput(file);
      const queues = flags.kueue.length ? localQueuesOfFiles(flags.kueue.map(readInput)) : undefined;
      if (queues?.report.failed) {
        log(renderFindings(sortFindings(queues.report.findings)));
        process.exitCode = EXIT.findings;
        return;
      }
      const result = importKubectl(input, {
        gpuResource: flags.gpuResource,
        modelLabel: flags.modelLabel,
        poolLabel: flags.poolLabel,
        pool: flags.pool,
        quotaFrom: nameSources('--quota-from', flags.quotaFrom),
        workspaceFrom: nameSources('--workspace-from', flags.workspaceFrom),
        moduleLabel: flags.moduleLabel,
        module: flags.module as Module,
        moduleMap: moduleMap.map,
        ...(queues ? { localQueues: queues.index } : {}),
        priorityMap: bands.bands,
        ...(kueueRules && queues ? { nodeLabelKeys: queues.flavorLabelKeys } : {}),
      });
      const findings = sortFindings([...(queues?.report.findings ?? []), ...result.report.findings]);
      if (result.report.failed) {
        log(renderFindings(findings));
        process.exitCode = EXIT.findings;
        return;
      }
      printYamlText(clusterYaml(flags.name, at, input.path, result.nodes, result.jobs, result.queue));
      log(summary(result, at, findings.length ? renderFindings(findings) : undefined));
    });
  for (const format of QUOTA_FORMATS) {
    const sub = cmd
      .command(format)
      .description(QUOTA_HELP[format])
      .argument('<files...>', 'YAML or JSON files (several objects per file, or a List); - for stdin')
      .option('--pool <name>', 'the pool of the QuotaTree', 'gpu-pool')
      .option('--name <name>', "the QuotaTree document's name", `${format}-import`)
      .option('--gpu-resource <name>', 'the resource counted as GPUs', 'nvidia.com/gpu')
      .option(
        '--runtime-default <duration>',
        'runtimeDefault on the root quotas: the running time assumed for a running job without an expected end (Kubernetes gives none), so start estimates exist (e.g. 8h)',
      )
      .addHelpText('after', `\nExit codes: 0 imported (fields without a counterpart are warnings on stderr), 1 the input cannot be read as ${format} quotas (located errors), 2 could not run.`);
    if (format === 'kueue')
      sub.option(
        '--rules <rules>',
        "the tree's rules: kueue (Kueue's own: flavors, resourceGroups, preemption clauses, int32 priorities; nothing approximated) or pai (PAI's rules: min/max in GPUs, the clauses approximated and each approximation a warning)",
        'kueue',
      );
    sub.action((files: string[], flags: { pool: string; name: string; gpuResource: string; rules?: string; runtimeDefault?: string }) => {
      // Checked before any input is read: a bad flag is exit 2.
      if (flags.runtimeDefault !== undefined) numberFlag('--runtime-default', flags.runtimeDefault, readDuration(flags.runtimeDefault), 'cli/bad-duration');
      const runtimeDefault = flags.runtimeDefault?.trim();
      const inputs = files.map(readInput);
      if (format === 'kueue' && flags.rules !== 'pai') {
        if (flags.rules !== 'kueue') throw new QuotientError('cli/bad-flag', `--rules ${flags.rules} is not a set of rules`, 'use kueue (the default) or pai');
        const k = importKueueRules(inputs, flags.name, flags.pool, flags.gpuResource, runtimeDefault);
        const found = sortFindings(k.report.findings);
        if (found.length) log(renderFindings(found));
        if (k.yaml === undefined) {
          process.exitCode = EXIT.findings;
          return;
        }
        printYamlText(k.yaml);
        const ws = k.workspaces.length ? ` and ${k.workspaces.length} workspace(s) (one per namespace of its LocalQueues)` : '';
        log(display`imported ${k.clusterQueues} ClusterQueue(s)${ws} from kueue under Kueue's rules; ${found.length} field(s) or object(s) not carried over are listed above`);
        return;
      }
      const { quotas, workspaces, report } = importQuotas(format, inputs, { gpu: flags.gpuResource });
      const findings = sortFindings(report.findings);
      if (findings.length) log(renderFindings(findings));
      if (report.failed) {
        process.exitCode = EXIT.findings;
        return;
      }
      if (runtimeDefault !== undefined) setRuntimeDefault(quotas, runtimeDefault);
      printYamlText(importedTreeYaml(flags.name, flags.pool, quotas, inputs, workspaces));
      const ws = workspaces.length ? ` and ${workspaces.length} workspace(s) (one per namespace of its LocalQueues)` : '';
      log(display`imported ${quotas.length} quota(s)${ws} from ${format}; ${findings.length} field(s) or object(s) not carried over or approximated are listed above`);
    });
  }
  return cmd;
}

const QUOTA_HELP: Record<QuotaFormat, string> = {
  kueue: 'a QuotaTree from Kueue ClusterQueues and Cohorts (v1beta1 or v1beta2) and a Workspace per namespace of its LocalQueues, with WorkloadPriorityClasses reported',
  koordinator: 'a QuotaTree from Koordinator ElasticQuotas (parent and is-parent labels)',
  volcano: 'a QuotaTree from Volcano Queues (parent, deserved; guarantee, capability, reclaimable reported)',
};

function summary(r: ReturnType<typeof importKubectl>, at: number, findings: Display | undefined): Display {
  const read =
    Object.entries(r.read)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ') || 'nothing';
  const lines = [
    `read: ${read}`,
    `imported: ${r.nodes.length} node(s), ${r.jobs.length} job(s) from ${r.jobs.reduce((s, j) => s + j.pods, 0)} pod(s)${r.queue.length ? `, ${r.queue.length} waiting job(s) in the queue from ${waitingFrom(r)}` : ''}`,
    ...r.mapped.map((m) => `mapped: ${m}`),
  ];
  const byReason = new Map<string, typeof r.skipped>();
  for (const s of r.skipped) {
    // Appended in place: copying the list for each object was quadratic (45,000 skipped daemons of a 100,000-pod List).
    const key = `${s.kind}: ${s.reason}`;
    const list = byReason.get(key);
    if (list) list.push(s);
    else byReason.set(key, [s]);
  }
  const late = startedAfter(r.jobs, at);
  if (late.length)
    lines.push(
      `startedAt left out: ${late.length} job(s) started after --at ${new Date(at).toISOString()} (a snapshot holds no start later than its time; each job's comment says so):`,
      ...nameLines(
        late.map((j) => j.name),
        '    ',
      ),
    );
  const unsubmitted = submittedAfter(r.queue, at);
  if (unsubmitted.length)
    lines.push(
      `queue left out: ${unsubmitted.length} waiting job(s) submitted after --at ${new Date(at).toISOString()} (not waiting at the snapshot's time):`,
      ...nameLines(
        unsubmitted.map((j) => j.name),
        '    ',
      ),
    );
  lines.push(`skipped: ${r.skipped.length} object(s)`);
  for (const [reason, list] of byReason) {
    lines.push(`  ${list.length} × ${reason}`);
    // Every object is named: the first few with their place, the rest by name on wrapped lines.
    for (const s of list.slice(0, 5)) lines.push(`    ${s.name || '(no name)'}  ${s.where}`);
    if (list.length > 5)
      lines.push(
        `    and ${list.length - 5} more:`,
        ...nameLines(
          list.slice(5).map((s) => s.name || '(no name)'),
          '      ',
        ),
      );
  }
  return joinDisplay([...lines.map((l) => display`${l}`), ...(findings ? [findings] : [])]);
}

/** What the queue was read from: pending pods, and Kueue's Workloads when the List holds them. */
function waitingFrom(r: ReturnType<typeof importKubectl>): string {
  const pods = r.queue.filter((j) => j.kueueWorkload === undefined).reduce((s, j) => s + j.pods, 0);
  const workloads = r.queue.filter((j) => j.kueueWorkload !== undefined).length;
  return `${pods} pending pod(s)${r.workloads ? ` and ${workloads} pending Kueue Workload(s) of ${r.workloads.read} read` : ''}`;
}

/** Names, every one of them, comma-separated on indented lines of about 100 columns (a summary on stderr stays readable at any count). */
function nameLines(names: string[], indent: string): string[] {
  const out: string[] = [];
  let line = '';
  for (const [i, n] of names.entries()) {
    const piece = i < names.length - 1 ? `${n},` : n;
    if (line && indent.length + line.length + 1 + piece.length > 100) {
      out.push(indent + line);
      line = piece;
    } else line = line ? `${line} ${piece}` : piece;
  }
  if (line) out.push(indent + line);
  return out;
}
