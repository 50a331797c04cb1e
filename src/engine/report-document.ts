/**
 * The versioned documents Quotient prints for programs: `apiVersion` and `kind` first,
 * then the body, and their JSON text. The CLI's `--json` and `quotient serve`'s answers
 * both come from here, so a report is the same bytes whichever way it is asked for
 * (docs/cli.md "JSON output", docs/serve.md).
 */
import { escapeDocument } from '../model/display-text.js';

/** The version of every machine-readable document (docs/cli.md "JSON output", schemas/). */
export const API_VERSION = 'quotient/v1';

/** The kinds of report, one per command (docs/cli.md lists each with its schema). */
export const REPORT_KINDS = ['CheckReport', 'WhatIfReport', 'MarketWhatIfReport', 'ScaleReport', 'TestReport', 'ExplainReport', 'DiffReport', 'SimulateReport', 'SweepReport', 'RiskReport'] as const;

/** One kind of report. */
export type ReportKind = (typeof REPORT_KINDS)[number];

/**
 * A machine-readable report: `apiVersion` and `kind` first, then the body. Every command
 * prints one such object whatever the number of answers, so a script reads one shape.
 */
export function report<B extends object>(kind: ReportKind, body: B): { apiVersion: typeof API_VERSION; kind: ReportKind } & B {
  return { apiVersion: API_VERSION, kind, ...body };
}

/**
 * A document as JSON text, as `--json` prints it: two-space indent, a final line feed,
 * and no character a terminal obeys left raw (JSON.stringify escapes the C0 controls,
 * `escapeDocument` the rest), so the text is safe on a terminal and in a log.
 */
export function documentJson(doc: unknown): string {
  return `${escapeDocument(JSON.stringify(doc, null, 2))}\n`;
}
