/**
 * Writing results: a table for people, JSON (`--json`) or YAML (`-o yaml`) for
 * programs. With a machine format stdout holds only the document; everything else goes
 * to stderr. Colours come from picocolors, which honours NO_COLOR and FORCE_COLOR and
 * turns itself off when stdout is not a terminal.
 */
import pc from 'picocolors';
import { stringify } from 'yaml';
import { QuotientError } from '../errors.js';
import { escapeTerminal, unsafeCharacter } from '../model/display-text.js';
import { documentJson } from '../engine/report-document.js';

export { API_VERSION, REPORT_KINDS, report, type ReportKind } from '../engine/report-document.js';

export type Format = 'table' | 'json' | 'yaml';

export interface OutputOptions {
  json?: boolean;
  output?: string;
}

/**
 * The format the flags ask for; a bad `-o` value, or `--json` with another `-o`, is a
 * usage error (exit 2). `extra` names a command's own formats beside table, json and
 * yaml (diff's markdown).
 */
export function formatOf<E extends string = never>(opts: OutputOptions, extra: readonly E[] = []): Format | E {
  if (opts.json && opts.output !== undefined && opts.output !== 'table' && opts.output !== 'json') {
    throw new QuotientError('cli/conflicting-flags', `--json and -o ${opts.output} ask for two formats`, `give one: --json, or -o ${opts.output}`);
  }
  if (opts.json) return 'json';
  const o = opts.output ?? 'table';
  if (o === 'json' || o === 'yaml' || o === 'table') return o;
  if ((extra as readonly string[]).includes(o)) return o as E;
  const all = ['table', 'json', 'yaml', ...extra];
  throw new QuotientError('cli/bad-output', `unknown output format "${o}"`, `use ${all.map((f) => `-o ${f}`).join(', ')}`);
}

/**
 * Prints a document in a machine format. No character a terminal obeys is printed raw:
 * JSON escapes them all (`escapeJson` adds the ones JSON.stringify leaves); YAML that
 * would carry one (the yaml library leaves bidi and C1 characters raw) is printed as
 * JSON instead, which every YAML 1.2 parser reads as the same document.
 */
export function printDocument(format: 'json' | 'yaml', doc: unknown): void {
  const json = (): string => documentJson(doc);
  if (format === 'json') return void process.stdout.write(json());
  const yaml = yamlText(doc);
  process.stdout.write(unsafeCharacter(yaml, true) ? json() : yaml);
}

/**
 * A document as YAML, the one YAML printer of the CLI (reports, exported objects). It is
 * written so that YAML 1.1 readers (Python's yaml.safe_load, Kubernetes' go-yaml) read
 * the same values as YAML 1.2 ones: strings such as `yes`, `on`, `no`, `y`, `010` or
 * `1:20` are quoted, since 1.1 reads them as booleans or numbers. YAML 1.2 readers
 * (ours included) read the quoted strings the same.
 */
export function yamlText(doc: unknown): string {
  return stringify(doc, { lineWidth: 0, version: '1.1' });
}

/** Prints text for people on stdout; only our own colours and layout pass raw (`escapeTerminal`). */
export function say(text = ''): void {
  process.stdout.write(`${escapeTerminal(text)}\n`);
}

/** Prints a log line on stderr (never mixed into a machine document), escaped as `say`. */
export function log(text: string): void {
  process.stderr.write(`${escapeTerminal(text)}\n`);
}

export const colour = pc;
