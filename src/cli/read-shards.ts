/**
 * The shard reports `quotient report merge` reads, checked before they are merged: each
 * file is one document read with positions under the policy's limits (nesting past
 * QUOTIENT_MAX_DEPTH, 100 by default, is `report/too-deep` where it happens: 10,000 levels
 * overflowed the stack, and 3,000 levels of garbage turned 60 KB into an 18.7 MB
 * "merged" report), then checked against the published schema of a SweepReport
 * (schemas/sweep-report.json, with ajv): each problem a located finding
 * (`report/invalid-shard`, file:line:col and the field's path). Nothing that is not a
 * shard a `simulate --shard i/N --json` (or `-o yaml`) could have printed is merged.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Finding } from '../errors.js';
import { readLocated, Report } from '../interop/located-json.js';
import type { PathSeg } from '../policy/parse/source-doc.js';

/** The published schemas, beside dist/ (and src/) in the package. */
const SCHEMAS = new URL('../../schemas/', import.meta.url);

/** Problems shown per shard: a garbage file would otherwise list thousands. */
const MAX_PROBLEMS = 20;

let validate: ValidateFunction | undefined;
/** The SweepReport schema, compiled once (it references common.json and simulate-report.json by name). */
function sweepSchema(): ValidateFunction {
  if (!validate) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    for (const name of ['common.json', 'simulate-report.json', 'sweep-report.json']) ajv.addSchema(JSON.parse(readFileSync(new URL(name, SCHEMAS), 'utf8')) as object, name);
    validate = ajv.getSchema('sweep-report.json')!;
  }
  return validate;
}

/** A JSON Pointer (`/runs/0/report`) as path segments. */
function segments(pointer: string): PathSeg[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

/** One schema problem in words: the field and what it should be. */
function problemText(e: ErrorObject): string {
  const field = e.instancePath === '' ? 'the document' : segments(e.instancePath).reduce<string>((p, s) => (typeof s === 'number' ? `${p}[${s}]` : p ? `${p}.${s}` : s), '');
  if (e.keyword === 'additionalProperties') return `${field} has a field ${JSON.stringify((e.params as { additionalProperty: string }).additionalProperty)} a SweepReport does not have`;
  if (e.keyword === 'required') return `${field} lacks its field ${JSON.stringify((e.params as { missingProperty: string }).missingProperty)}`;
  if (e.keyword === 'const') return `${field} must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
  return `${field} ${e.message ?? 'is not what a SweepReport holds'}`;
}

/**
 * Reads one shard file: its document, or the located findings that stop the merge.
 * `text` is the file's content (read by the command, which notes it as an input).
 */
export function readShard(file: string, text: string): { doc?: unknown; findings: Finding[] } {
  const read = readLocated({ path: file, text }, { json: true, what: 'the shard report' });
  // The readers' findings (too deep, too large, syntax) in this command's scheme.
  const findings = read.findings.map((f) => ({ ...f, code: f.code.replace(/^interop\//, 'report/') }));
  if (findings.some((f) => f.severity === 'error')) return { findings };
  if (read.docs.length !== 1) {
    const report = new Report();
    const at = read.docs[1];
    if (at)
      report.error(
        at.sd,
        [],
        'report/invalid-shard',
        `${file} holds ${read.docs.length} documents; a shard report is one`,
        'give each shard in its own file, as quotient simulate --shard i/N --json printed it',
      );
    else
      findings.push({
        file,
        line: 1,
        column: 1,
        code: 'report/invalid-shard',
        severity: 'error',
        path: '',
        message: `${file} is empty`,
        hint: 'give the document quotient simulate --shard i/N --json printed',
      });
    return { findings: [...findings, ...report.findings] };
  }
  const { sd, value } = read.docs[0]!;
  const check = sweepSchema();
  if (check(value)) return { doc: value, findings };
  const report = new Report();
  // Deepest problems first would bury "kind must be SweepReport": the schema's own order, shortest path first.
  const errors = [...(check.errors ?? [])].sort((a, b) => segments(a.instancePath).length - segments(b.instancePath).length);
  for (const e of errors.slice(0, MAX_PROBLEMS))
    report.error(sd, segments(e.instancePath), 'report/invalid-shard', problemText(e), 'give the reports quotient simulate --shard i/N --json printed, unedited (schemas/sweep-report.json)');
  if (errors.length > MAX_PROBLEMS)
    report.error(sd, [], 'report/invalid-shard', `${errors.length - MAX_PROBLEMS} more problem(s) in ${file} not listed`, 'give the reports quotient simulate --shard i/N --json printed, unedited');
  return { findings: [...findings, ...report.findings] };
}
