/**
 * Reading a `--json` report as a script would: parse stdout, check it against the
 * published JSON Schema of its kind (schemas/*.json, with ajv), and hand back the
 * document. Every CLI test that reads JSON goes through here, so the schemas are held to
 * what the commands really print.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { expect } from 'vitest';
import type { ReportKind } from '../../src/cli/output.js';

export type { ReportKind } from '../../src/cli/output.js';

/** The report kinds and their schema files. */
export const SCHEMA_OF = {
  CheckReport: 'check-report.json',
  WhatIfReport: 'whatif-report.json',
  MarketWhatIfReport: 'market-whatif-report.json',
  ScaleReport: 'scale-report.json',
  TestReport: 'test-report.json',
  ExplainReport: 'explain-report.json',
  DiffReport: 'diff-report.json',
  SimulateReport: 'simulate-report.json',
  SweepReport: 'sweep-report.json',
  RiskReport: 'risk-report.json',
} as const satisfies Record<ReportKind, string>;

const SCHEMAS = join(import.meta.dirname, '../../schemas');

let ajv: Ajv | undefined;
/** One ajv instance with every published schema loaded (they reference each other by $id). */
export function schemas(): Ajv {
  if (!ajv) {
    ajv = new Ajv({ allErrors: true, strict: true });
    for (const f of readdirSync(SCHEMAS).filter((n) => n.endsWith('.json'))) ajv.addSchema(JSON.parse(readFileSync(join(SCHEMAS, f), 'utf8')) as object, f);
  }
  return ajv;
}

/** The schema errors of `doc` as a `kind` report, as readable lines (empty when valid). */
export function schemaErrors(kind: ReportKind, doc: unknown): string[] {
  const validate = schemas().getSchema(SCHEMA_OF[kind])!;
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/** Parses `stdout` as a `kind` report and fails the test unless it matches the schema. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a script's view: any JSON
export function readReport(stdout: string, kind: ReportKind): any {
  const doc = JSON.parse(stdout) as { apiVersion?: unknown; kind?: unknown };
  expect({ apiVersion: doc.apiVersion, kind: doc.kind }).toEqual({ apiVersion: 'quotient/v1', kind });
  expect(schemaErrors(kind, doc), `${kind} against schemas/${SCHEMA_OF[kind]}`).toEqual([]);
  return doc;
}

/** The one answer of a WhatIfReport (fails unless there is exactly one). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a script's view: any JSON
export function onlyAnswer(stdout: string): any {
  const { answers } = readReport(stdout, 'WhatIfReport') as { answers: unknown[] };
  expect(answers).toHaveLength(1);
  return answers[0];
}
