/**
 * `quotient export kueue|koordinator|volcano|pai POLICY`: the policy's quota tree as
 * another tool's objects on stdout, and on stderr (or `--report FILE`) the table of what
 * maps one to one, what is approximated and what is lost.
 */
import { checkOutputFile, refuseEmptyPath, writeOutputFile } from '../io/write-in-folder.js';
import type { Command } from 'commander';
import { QuotientError, sortFindings } from '../errors.js';
import { exportKoordinator } from '../interop/koordinator.js';
import { exportKueue } from '../interop/kueue.js';
import { exportKueueRules } from '../interop/export-kueue-rules.js';
import { exportPai, nodesWithoutInstanceType } from '../interop/pai-quota.js';
import { EXIT } from './exit.js';
import { treeOfPolicy, type MappingRow } from '../interop/tree-quota.js';
import { exportVolcano } from '../interop/volcano.js';
import { loadPolicy } from '../policy/load-policy.js';
import { readBundles } from '../policy/parse/read-files.js';
import { FILE_WIDTH, fitTable, terminalWidth } from './fit-table.js';
import { log, printDocument, printYamlStream } from './output.js';
import { display, type Display } from '../model/display-text.js';
import { countFindings, renderFindings } from './render-findings.js';

interface ExportFlags {
  pool?: string;
  gpuResource: string;
  api: string;
  flavor: string;
  namespace: string;
  output?: string;
  report?: string;
  force?: boolean;
}

const FORMATS = ['kueue', 'koordinator', 'volcano', 'pai'] as const;

/** The mapping rows as a table for people, fitted to `width` columns. */
export function mappingTable(rows: MappingRow[], width: number): Display {
  const t = fitTable(
    ['quota', 'Quotient field', 'becomes', 'fate', 'note'],
    rows.map((r) => [r.quota, r.field, r.target, r.fate, r.note]),
    width,
    '',
  );
  const counts = (['one-to-one', 'approximated', 'lost'] as const).map((f) => `${rows.filter((r) => r.fate === f).length} ${f}`).join(', ');
  return display`${t}\n${counts}`;
}

/** Registers the command. */
export function registerExport(program: Command): void {
  program
    .command('export')
    .description("write the policy's quota tree as Kueue, Koordinator, Volcano or PAI objects, with a table of what maps, what is approximated and what is lost")
    .argument('<format>', FORMATS.join(' | '))
    .argument('<paths...>', 'the policy: files (merged) or one folder')
    .option('--pool <name>', 'the pool whose tree to export (default: the only one)')
    .option('--gpu-resource <name>', 'the resource name GPUs get in ResourceLists', 'nvidia.com/gpu')
    .option('--api <version>', 'Kueue API version: v1beta1 or v1beta2', 'v1beta2')
    .option('--flavor <name>', 'Kueue: the ResourceFlavor quotas are given in', 'default-flavor')
    .option('--namespace <ns>', 'Koordinator: the namespace of the ElasticQuotas', 'default')
    .option('-o, --output <format>', 'yaml (multi-document; the default for Kubernetes objects) or json (a List; the default for pai)')
    .option('--report <file>', 'write the mapping table to this file instead of stderr (never over an input or a file quotient did not write: docs/cli.md "Output files")')
    .option('--force', 'let --report replace an existing file that quotient did not write (never an input of the command)')
    .addHelpText(
      'after',
      '\nExamples:\n  quotient export kueue policies/inference-preempts-training\n  quotient export pai policies/self-level-preemption -o json\n  quotient export koordinator policies/quota-scaling --report mapping.txt > quotas.yaml\n\nExit codes: 0 exported (losses are in the table), 1 the policy cannot be written in the format (located errors: pai needs an instanceType on every node), 2 could not run (bad flags, a policy with errors).',
    )
    .action((format: string, paths: string[], flags: ExportFlags) => {
      if (!(FORMATS as readonly string[]).includes(format)) throw new QuotientError('cli/bad-format', `unknown format "${format}"`, `use one of ${FORMATS.join(', ')}`);
      if (flags.api !== 'v1beta1' && flags.api !== 'v1beta2') throw new QuotientError('cli/bad-flag', `--api ${flags.api} is not v1beta1 or v1beta2`, 'Kueue serves both; v1beta2 is current');
      const out = flags.output ?? (format === 'pai' ? 'json' : 'yaml');
      if (out !== 'yaml' && out !== 'json') throw new QuotientError('cli/bad-output', `-o ${out} is not yaml or json`, 'use -o yaml or -o json');
      if (flags.report !== undefined) refuseEmptyPath('--report', flags.report);
      const bundles = readBundles(paths);
      if (bundles.length !== 1) throw new QuotientError('cli/one-policy', `export takes one policy, got ${bundles.length}`, 'name one folder, or the files of one policy');
      const bundle = bundles[0]!;
      const { policy, findings } = loadPolicy(bundle.files);
      if (!policy) {
        log(renderFindings(sortFindings(findings)));
        throw new QuotientError(
          'export/invalid-policy',
          `the policy ${bundle.label} has errors (${countFindings(findings)}); nothing is exported from a policy with errors`,
          'run `quotient check` on it and fix the errors first',
        );
      }
      const pools = policy.pools.map((p) => p.name);
      const poolName = flags.pool ?? (pools.length === 1 ? pools[0] : undefined);
      if (poolName === undefined || !pools.includes(poolName))
        throw new QuotientError(
          'cli/bad-flag',
          flags.pool ? `no pool "${flags.pool}" in ${bundle.label}` : `${bundle.label} has ${pools.length} pools (${pools.join(', ')})`,
          'choose one with --pool',
        );
      const pool = policy.pools.find((p) => p.name === poolName)!;
      const quotas = treeOfPolicy(policy, poolName);
      const names = { gpu: flags.gpuResource };
      const result =
        format === 'kueue' && pool.rules === 'kueue'
          ? exportKueueRules(
              policy.quotas.filter((q) => q.pool === poolName),
              pool.flavors ?? [],
              policy.workspaces,
              flags.api,
            )
          : format === 'kueue'
            ? exportKueue(quotas, { version: flags.api, names, flavor: flags.flavor })
            : format === 'koordinator'
              ? exportKoordinator(quotas, { names, namespace: flags.namespace })
              : format === 'volcano'
                ? exportVolcano(quotas, names)
                : undefined;
      let document: unknown;
      let rows: MappingRow[];
      if (result) {
        rows = result.rows;
        document = result.objects;
      } else {
        const nodes = (policy.cluster?.nodes ?? []).filter((n) => n.pool === poolName);
        const refused = nodesWithoutInstanceType(nodes);
        // A --report that may not be written is refused first (exit 2), as it is for every export.
        if (refused.length && flags.report !== undefined) checkOutputFile(flags.report, { flag: '--report', kind: 'text', force: flags.force });
        if (refused.length) {
          log(renderFindings(refused));
          log(display`nothing is exported: ${refused.length} node(s) of pool ${poolName} have no instanceType`);
          process.exitCode = EXIT.findings;
          return;
        }
        const pai = exportPai(quotas, pool.type, nodes);
        rows = pai.rows;
        document = pai.document;
      }
      // The table goes to stderr (stdout holds the objects), so stderr's width is the one to fit; a file gets FILE_WIDTH.
      const table = (width: number) => display`${format} export of ${bundle.label} (pool ${poolName}):\n${mappingTable(rows, width)}`;
      // The report file is written first, as simulate --html is: a refused write (exit 2) prints no objects.
      if (flags.report !== undefined)
        writeOutputFile(
          flags.report,
          `${table(FILE_WIDTH).text}
`,
          { flag: '--report', kind: 'text', force: flags.force },
        );
      // Through the one printer of documents: no character a terminal obeys is printed raw.
      if (format !== 'pai' && out === 'yaml') printYamlStream(document as unknown[]);
      else if (format !== 'pai') printDocument('json', { apiVersion: 'v1', kind: 'List', items: document });
      else printDocument(out === 'json' ? 'json' : 'yaml', document);
      if (flags.report === undefined) log(table(terminalWidth(process.stderr)));
    });
}
