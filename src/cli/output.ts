/**
 * Writing results: a table for people, JSON (`--json`) or YAML (`-o yaml`) for
 * programs. With a machine format stdout holds only the document; everything else goes
 * to stderr. Colours come from picocolors, which honours NO_COLOR and FORCE_COLOR and
 * turns itself off when stdout is not a terminal.
 *
 * This file is the CLI's only writer to stdout and stderr (display-sites.test.ts checks):
 * text for people is a `Display` (model/display-text.ts), so nothing read from input
 * reaches a terminal unescaped; documents for programs are escaped JSON or YAML.
 */
import pc from 'picocolors';
import { createRequire } from 'node:module';
import type { stringify as Stringify } from 'yaml';
import { QuotientError } from '../errors.js';
import { Display, escapeDisplay, escapeDocument, escapeEchoing, escapeTerminal, paintedDisplay, unsafeCharacter, type Shown } from '../model/display-text.js';
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
 * JSON escapes them all (`escapeDocument` adds the ones JSON.stringify leaves); YAML that
 * would carry one (the yaml library leaves bidi and C1 characters raw) is printed as
 * JSON instead, which every YAML 1.2 parser reads as the same document.
 */
export function printDocument(format: 'json' | 'yaml', doc: unknown): void {
  process.stdout.write(format === 'json' ? documentJson(doc) : safeYamlText(doc));
}

/** Several documents as one YAML stream (`---` between them), each as `printDocument` prints it. */
export function printYamlStream(docs: readonly unknown[]): void {
  process.stdout.write(docs.map(safeYamlText).join('---\n'));
}

function safeYamlText(doc: unknown): string {
  const yaml = yamlText(doc);
  return unsafeCharacter(yaml, true) ? documentJson(doc) : yaml;
}

/**
 * A document as YAML, the one YAML printer of the CLI (reports, exported objects). It is
 * written so that YAML 1.1 readers (Python's yaml.safe_load, Kubernetes' go-yaml) read
 * the same values as YAML 1.2 ones: strings such as `yes`, `on`, `no`, `y`, `010` or
 * `1:20` are quoted, since 1.1 reads them as booleans or numbers. YAML 1.2 readers
 * (ours included) read the quoted strings the same.
 */
export function yamlText(doc: unknown): string {
  // The YAML writer loads with the first YAML document: `--version`, tables and JSON never pay for it.
  const { stringify } = createRequire(import.meta.url)('yaml') as { stringify: typeof Stringify };
  return stringify(doc, { lineWidth: 0, version: '1.1' });
}

/**
 * Prints YAML text Quotient wrote with comments (an imported snapshot): its line feeds
 * and tabs are its layout, any other unsafe character becomes `\uXXXX` (`escapeDocument`:
 * the same character again in a double-quoted string, which is how the yaml library
 * writes a string holding a control character). The importers leave none in a name.
 */
export function printYamlText(text: string): void {
  process.stdout.write(escapeDocument(text));
}

/** Prints text for people on stdout, a line feed after it. */
export function say(text: Display = EMPTY): void {
  process.stdout.write(`${escapeTerminal(text.text)}\n`);
}

/** Prints text for people on stdout as it is, without a line feed (a report that ends with its own: JUnit, TAP, Markdown). */
export function sayExactly(text: Display): void {
  process.stdout.write(escapeTerminal(text.text));
}

/** Prints a log line on stderr (never mixed into a machine document). */
export function log(text: Display): void {
  process.stderr.write(`${escapeTerminal(text.text)}\n`);
}

const EMPTY = escapeDisplay('');

/**
 * Commander's writers: its help is ours, its errors quote the arguments they refuse,
 * so each argument (and each `--flag=value`'s value) holding an unsafe character is
 * escaped whole wherever it appears (`escapeEchoing`); Commander's own line feeds stay.
 */
export function commanderOutput(argv: readonly string[]): { writeOut: (text: string) => void; writeErr: (text: string) => void } {
  const pieces = argv.flatMap((a) => (a.includes('=') ? [a, a.slice(a.indexOf('=') + 1)] : [a]));
  return {
    writeOut: (text) => process.stdout.write(escapeEchoing(text, pieces).text),
    writeErr: (text) => process.stderr.write(escapeEchoing(text, pieces).text),
  };
}

/** Writes a line on stderr when stdout failed; nothing in it comes from input (main.ts). */
export function sayWriteFailure(reason: string): void {
  process.stderr.write(`quotient: cannot write the output: ${escapeDisplay(reason).text}\n  hint: check the disk or the file the output goes to\n`);
}

/** A colour that takes text (escaped) or a `Display`, and gives a `Display`, checked to have gained only colour. */
function painter(paint: (s: string) => string): (text: Shown) => Display {
  return (text) => {
    const d = text instanceof Display ? text : escapeDisplay(String(text));
    return paintedDisplay(d, paint(d.text));
  };
}

/** The colours the CLI paints with. */
export const colour = {
  bold: painter(pc.bold),
  dim: painter(pc.dim),
  red: painter(pc.red),
  green: painter(pc.green),
  yellow: painter(pc.yellow),
  magenta: painter(pc.magenta),
  cyan: painter(pc.cyan),
};
