/**
 * A jobs file (CSV with a header row, or YAML/JSON: a list of jobs or `jobs: [...]`) → a
 * Workload. Every field of every row is checked; a bad row becomes one located finding
 * per bad field (file:line, field, value) and is left out, never silently: the caller
 * prints the summary, and `--strict` stops at the first (docs/simulate.md "Jobs file").
 */
import { basename } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { isMap, isSeq, LineCounter, parseDocument, type Node as YamlNode, type YAMLMap } from 'yaml';
import type { Finding } from '../errors.js';
import { IDLE_MODES, MODULES, type IdleMode, type JobSpec, type Module, type Policy, type PoolType } from '../model/policy.js';
import { parseCpu, parseDuration, parseMemory } from '../model/quantity.js';
import { csvCells } from './csv-cells.js';
import { sortJobs, type SimJob, type SpotBid, type Workload } from './workload.js';

/** The columns a jobs file may have (CSV header names = YAML keys). */
export const JOB_FIELDS = [
  'name',
  'submit',
  'duration',
  'workspace',
  'quota',
  'module',
  'priority',
  'pods',
  'gpu',
  'cpu',
  'memory',
  'idleResources',
  'instanceType',
  'priceLimit',
  'discountLimit',
  'checkpoint',
  'autoRestart',
  'maxRestarts',
  'submittedBy',
] as const;

/** Restarts allowed when a row turns autoRestart on without maxRestarts (ours; docs/simulate.md). */
export const DEFAULT_MAX_RESTARTS = 3;

/** What rows are checked against: the policy's names and the market's instance types. */
export interface JobContext {
  policy: Policy;
  /** Spot instance types by name, with their resource type. */
  instanceTypes: Map<string, { pool: PoolType }>;
}

type Row = Record<string, unknown>;

/** Reads a jobs file's text; `file` names it in findings. */
export function readJobs(file: string, text: string, ctx: JobContext, options: { strict?: boolean } = {}): Workload {
  const binary = notText(file, text);
  const rows = binary ? fileLevel([binary]) : /\.(ya?ml|json)$/i.test(file) ? yamlRows(file, text) : csvRows(file, text);
  const jobs: SimJob[] = [...rows.header];
  // Findings are reported in file order; --strict stops at the first bad row by line,
  // whether the parser or the field checks found it.
  const unread = [...rows.findings].sort((a, b) => a.line - b.line);
  const rejected: Finding[] = [];
  const names = new Map<string, number>();
  const stem = basename(file).replace(/\.[^.]*$/, '');
  for (const entry of rows.rows) {
    const { row, line } = entry;
    while (unread.length > 0 && unread[0]!.line < line) rejected.push(unread.shift()!);
    if (options.strict && rejected.length > 0) return { source: file, synthetic: false, jobs: [], rejected: rejected.slice(0, 1), notes: [] };
    const bad: Finding[] = [];
    const job = readRow(file, line, row, ctx, stem, bad);
    if (job) {
      const prev = names.get(job.spec.name);
      if (prev !== undefined) bad.push(finding(file, line, 'name', job.spec.name, `job name "${job.spec.name}" is already used on line ${prev}`, 'give every job its own name', 'trace/duplicate-job'));
      else names.set(job.spec.name, line);
    }
    if (bad.length > 0) {
      rows.locate?.(entry, bad);
      rejected.push(...bad);
      if (options.strict) return { source: file, synthetic: false, jobs: [], rejected: bad.slice(0, 1), notes: [] };
      continue;
    }
    jobs.push(job!);
  }
  rejected.push(...unread);
  if (options.strict && rejected.length > 0) return { source: file, synthetic: false, jobs: [], rejected: rejected.slice(0, 1), notes: [] };
  return { source: file, synthetic: false, jobs: sortJobs(jobs), rejected, notes: [] };
}

/** One row and what locates its fields: the CSV record's text, or the YAML job's map (read again only for a bad row). */
interface RowEntry {
  row: Row;
  line: number;
  raw?: string;
  node?: YAMLMap;
}

interface RowSet {
  rows: RowEntry[];
  findings: Finding[];
  /** Points the findings about one field of a bad row at that field (its CSV cell, its YAML value). */
  locate?: (entry: RowEntry, bad: Finding[]) => void;
  /** Never holds jobs; kept so both readers return one shape. */
  header: SimJob[];
}

/** Findings that make the whole file unreadable: the caller reads no row of it. */
function fileLevel(findings: Finding[]): RowSet {
  return { rows: [], findings, header: [] };
}

/**
 * A file that is not text (a NUL byte, or bytes that are not UTF-8 and decoded to U+FFFD)
 * is refused whole: its "rows" would be noise, each reported as a bad row.
 */
function notText(file: string, text: string): Finding | undefined {
  const nul = text.indexOf('\u0000');
  const bad = text.indexOf('\uFFFD');
  const at = nul < 0 ? bad : bad < 0 ? nul : Math.min(nul, bad);
  if (at < 0) return undefined;
  const line = text.slice(0, at).split('\n').length;
  return finding(file, line, '', '', 'the file is not text (it holds a NUL byte or bytes that are not UTF-8)', 'give a jobs file in CSV or YAML (docs/simulate.md "Jobs file")', 'trace/not-text');
}

/**
 * CSV rows. A record the parser cannot read (wrong number of fields, a stray quote) is
 * one finding at its line and is left out; the other rows are read (csv-parse's
 * skip_records_with_error). The header applies to every row, so a bad header (an unknown
 * or repeated column) and an unclosed quote (it swallows the rest of the file) leave out
 * the whole file.
 */
function csvRows(file: string, text: string): RowSet {
  const findings: Finding[] = [];
  const skippedLines = new Set<number>();
  let header: string[] = [];
  let unreadable: Finding | undefined;
  let records: Array<{ record: Row; raw: string; info: { lines: number } }>;
  try {
    records = parseCsv(text, {
      columns: (h: string[]) => (header = h),
      info: true,
      raw: true,
      skip_empty_lines: true,
      trim: true,
      comment: '#',
      bom: true,
      skip_records_with_error: true,
      on_skip: (err) => {
        if (!err) return undefined;
        const line = typeof err.lines === 'number' ? err.lines : 1;
        const counts = /columns length is (\d+), got (\d+)/.exec(err.message);
        const message = counts ? `the row has ${counts[2]} field(s), the header ${counts[1]} column(s)` : `the CSV row cannot be read: ${err.message}`;
        const f = finding(file, line, '', '', message, 'check quoting and the number of columns of the row', 'trace/bad-csv');
        if (err.code === 'CSV_QUOTE_NOT_CLOSED') unreadable ??= { ...f, message: `the CSV cannot be read: ${err.message}`, hint: 'close the quote opened on or before that line' };
        else if (!skippedLines.has(line)) {
          // One record can fail twice (e.g. two stray quotes); it is one row left out.
          skippedLines.add(line);
          findings.push(f);
        }
        return undefined;
      },
    }) as unknown as typeof records;
  } catch (e) {
    const err = e as Error & { lines?: number };
    return fileLevel([finding(file, err.lines ?? 1, '', '', `the CSV cannot be read: ${err.message}`, 'check quoting and the number of columns per row', 'trace/bad-csv')]);
  }
  if (unreadable) return fileLevel([unreadable]);
  const headerFindings: Finding[] = [];
  const badCells: number[] = [];
  const seen = new Set<string>();
  header.forEach((col, i) => {
    if (col === '') return;
    let f: Finding | undefined;
    if (!(JOB_FIELDS as readonly string[]).includes(col)) f = finding(file, 1, col, col, `unknown column "${col}"`, `columns are: ${JOB_FIELDS.join(', ')}`, 'trace/unknown-field');
    else if (seen.has(col)) f = finding(file, 1, col, col, `column "${col}" is given twice`, 'give each column once', 'trace/duplicate-column');
    seen.add(col);
    if (!f) return;
    headerFindings.push(f);
    badCells.push(i);
  });
  if (headerFindings.length > 0) {
    // The header is the file's first record (after a BOM, blank and comment lines): point at the bad name's cell.
    const cells = csvCells(text.replace(/^\uFEFF/, ''));
    headerFindings.forEach((f, k) => {
      const cell = cells.cells[badCells[k] ?? -1];
      if (cell) Object.assign(f, { line: 1 + cells.skipped + cell.line, column: cell.column });
    });
    return fileLevel(headerFindings);
  }
  return { rows: records.map((r) => ({ row: r.record, line: r.info.lines, raw: r.raw })), findings, header: [], locate: (r, bad) => atCells(bad, r.raw ?? '', r.line, header) };
}

/**
 * Points each finding about one field of a CSV row at that field's cell: the line and
 * column where the cell starts (a quoted cell `"a,b"` is one cell). `endLine` is the line
 * the record ends on (csv-parse's count); a finding about no cell of the row (a column the
 * header lacks, the whole row) stays at column 1 of the row.
 */
function atCells(bad: Finding[], raw: string, endLine: number, columns: string[]): void {
  const record = csvCells(raw);
  const first = endLine - record.span;
  for (const f of bad) {
    const at = f.path === '' ? -1 : columns.indexOf(f.path);
    const cell = at < 0 ? undefined : record.cells[at];
    if (cell) {
      f.line = first + cell.line;
      f.column = cell.column;
    }
  }
}

function yamlRows(file: string, text: string): RowSet {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc });
  const findings: Finding[] = [];
  if (doc.errors.length > 0) {
    const e = doc.errors[0]!;
    return { rows: [], findings: [finding(file, lc.linePos(e.pos[0]).line, '', '', `the YAML cannot be read: ${e.message.split('\n')[0]}`, 'fix the syntax', 'trace/bad-yaml')], header: [] };
  }
  let seq: YamlNode | null | undefined = doc.contents;
  if (isMap(seq)) seq = seq.get('jobs', true);
  if (!isSeq(seq))
    return {
      rows: [],
      findings: [finding(file, 1, 'jobs', '', 'a YAML jobs file is a list of jobs, or a map with `jobs:` holding one', 'see docs/simulate.md "Jobs file"', 'trace/bad-yaml')],
      header: [],
    };
  const rows: RowEntry[] = [];
  for (const item of seq.items) {
    const line = lc.linePos((item as YamlNode).range?.[0] ?? 0).line;
    if (!isMap(item)) {
      findings.push(finding(file, line, '', '', 'a job is a map of fields', `fields are: ${JOB_FIELDS.join(', ')}`, 'trace/bad-yaml'));
      continue;
    }
    const row: Row = {};
    let ok = true;
    for (const pair of item.items) {
      const key = String((pair.key as { value?: unknown })?.value ?? pair.key);
      if (!(JOB_FIELDS as readonly string[]).includes(key)) {
        const at = lc.linePos((pair.key as YamlNode).range?.[0] ?? 0).line;
        findings.push(finding(file, at, key, key, `unknown field "${key}"`, `fields are: ${JOB_FIELDS.join(', ')}`, 'trace/unknown-field'));
        ok = false;
      }
      row[key] = (pair.value as { toJSON?: () => unknown } | null)?.toJSON?.() ?? (pair.value as { value?: unknown } | null)?.value ?? null;
    }
    if (ok) rows.push({ row, line, node: item });
  }
  return { rows, findings, header: [], locate: (r, bad) => atPairs(bad, r.node, lc) };
}

/** Points each finding about one field of a YAML job at the field's value (at its key when it has none), as policy findings do. */
function atPairs(bad: Finding[], node: YAMLMap | undefined, lc: LineCounter): void {
  for (const f of bad) {
    const pair = f.path === '' ? undefined : node?.items.find((p) => String((p.key as { value?: unknown })?.value ?? p.key) === f.path);
    const at = ((pair?.value ?? pair?.key) as YamlNode | null | undefined)?.range?.[0];
    if (at === undefined) continue;
    const pos = lc.linePos(at);
    f.line = pos.line;
    f.column = pos.col;
  }
}

function finding(file: string, line: number, field: string, value: string, message: string, hint: string, code = 'trace/bad-value'): Finding {
  return { file, line, column: 1, code, severity: 'error', path: field, message: field && value !== '' ? `${field} = "${value}": ${message}` : message, hint };
}

/** A time or duration cell: seconds as a number, or a duration such as `90m`, `1h30m`; `0` is zero. */
export function parseSimTime(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const t = value.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  // A duration of zero (`0h`, `0m0s`) is the start; parseDuration refuses zero on purpose.
  if (/^(0+[dhms])+$/.test(t)) return 0;
  return parseDuration(t);
}

/** A bid: a number per instance-hour, or `0.2/min`, `12/h` (docs/simulate.md: prices are per hour). */
export function parsePrice(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(?:\/\s*(h|hour|min|minute))?\s*$/.exec(value);
  if (!m) return undefined;
  const v = Number(m[1]);
  if (!(v > 0)) return undefined;
  return m[2] === 'min' || m[2] === 'minute' ? v * 60 : v;
}

function readRow(file: string, line: number, row: Row, ctx: JobContext, stem: string, bad: Finding[]): SimJob | undefined {
  const str = (k: string): string | undefined => {
    const v = row[k];
    if (v === undefined || v === null) return undefined;
    const s = (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v)).trim();
    return s === '' ? undefined : s;
  };
  const fail = (field: string, message: string, hint: string): undefined => {
    bad.push(finding(file, line, field, str(field) ?? '', message, hint));
    return undefined;
  };
  const int = (field: string, lo: number, hi: number, dflt: number | undefined): number | undefined => {
    const s = str(field);
    if (s === undefined) return dflt ?? fail(field, 'is required', `give ${field}`);
    const n = Number(s);
    if (!Number.isInteger(n) || n < lo || n > hi) return fail(field, `is not a whole number ${lo}..${hi}`, `write ${field} as a whole number from ${lo} to ${hi}`);
    return n;
  };

  const name = str('name') ?? `${stem}-${line}`;
  const submitText = str('submit');
  const submit = submitText === undefined ? fail('submit', 'is required', 'give the submission time: seconds from the start (3600) or a duration (1h)') : parseSimTime(submitText);
  if (submitText !== undefined && submit === undefined) fail('submit', 'is not a time', 'write seconds from the start (3600) or a duration such as 1h30m');
  const durText = str('duration');
  const duration = durText === undefined ? fail('duration', 'is required', 'give the running time the job needs: seconds (7200) or a duration (2h)') : parseSimTime(durText);
  if (durText !== undefined && (duration === undefined || duration <= 0)) fail('duration', 'is not a positive duration', 'write seconds (7200) or a duration such as 2h');

  const quota = str('quota');
  const q = quota === undefined ? undefined : ctx.policy.quotas.find((x) => x.name === quota);
  if (quota === undefined) fail('quota', 'is required', 'name the quota the job is submitted to');
  else if (!q) fail('quota', 'names no quota of the policy', `quotas are: ${ctx.policy.quotas.map((x) => x.name).join(', ')}`);
  let workspace = str('workspace');
  if (workspace === undefined && q) {
    const ws = ctx.policy.workspaces.filter((w) => w.quotas.includes(q.name));
    if (ws.length === 1) workspace = ws[0]!.name;
    else
      fail(
        'workspace',
        ws.length === 0 ? `no workspace is associated with quota ${q.name}` : `quota ${q.name} is associated with several workspaces (${ws.map((w) => w.name).join(', ')})`,
        'give the workspace column',
      );
  } else if (workspace !== undefined && !ctx.policy.workspaces.some((w) => w.name === workspace)) {
    fail('workspace', 'names no workspace of the policy', `workspaces are: ${ctx.policy.workspaces.map((w) => w.name).join(', ')}`);
  }
  const moduleText = str('module') ?? 'DLC';
  if (!(MODULES as readonly string[]).includes(moduleText)) fail('module', 'is not a module', `use one of: ${MODULES.join(', ')}`);
  const idleText = str('idleResources') ?? 'none';
  if (!(IDLE_MODES as readonly string[]).includes(idleText)) fail('idleResources', 'is not an idle-resources mode', `use one of: ${IDLE_MODES.join(', ')}`);
  const priority = int('priority', 1, 9, 1);
  const pods = int('pods', 1, 100_000, 1);
  const gpu = int('gpu', 1, 32, undefined);
  const cpuText = str('cpu');
  const cpu = cpuText === undefined ? undefined : parseCpu(cpuText);
  if (cpuText !== undefined && cpu === undefined) fail('cpu', 'is not a cpu quantity', 'write cores (8, 0.5) or millicores (500m)');
  const memText = str('memory');
  const memory = memText === undefined ? undefined : parseMemory(memText);
  if (memText !== undefined && memory === undefined) fail('memory', 'is not a memory quantity', 'write a size with a unit such as 64Gi');
  const cpText = str('checkpoint');
  const every = cpText === undefined ? undefined : parseDuration(cpText);
  if (cpText !== undefined && every === undefined) fail('checkpoint', 'is not a duration', 'write the checkpoint interval, e.g. 30m');
  const arText = str('autoRestart');
  let autoRestart = false;
  if (arText !== undefined) {
    if (/^(true|yes|1)$/i.test(arText)) autoRestart = true;
    else if (!/^(false|no|0)$/i.test(arText)) fail('autoRestart', 'is not true or false', 'write true or false');
  }
  const maxRestarts = int('maxRestarts', 0, 1_000_000, DEFAULT_MAX_RESTARTS);
  if (str('maxRestarts') !== undefined && !autoRestart) fail('maxRestarts', 'is given but autoRestart is not true', 'set autoRestart: true, or drop maxRestarts');

  const spot = readSpot(row, str, fail, ctx, autoRestart);
  if (bad.length > 0) return undefined;
  const spec: JobSpec = {
    name,
    workspace: workspace!,
    quota: quota!,
    module: moduleText as Module,
    priority: priority!,
    pods: pods!,
    resources: { gpu: gpu!, ...(cpu !== undefined ? { cpu } : {}), ...(memory !== undefined ? { memory } : {}) },
    idleResources: idleText as IdleMode,
    ...(every !== undefined ? { checkpoint: { every } } : {}),
    ...(autoRestart ? { faultTolerance: { autoRestart: true, maxRestarts: maxRestarts! } } : {}),
    ...(str('submittedBy') !== undefined ? { submittedBy: str('submittedBy') } : {}),
    src: { file, line, column: 1, path: '' },
  };
  return { spec, submit: submit!, duration: duration!, ...(spot ? { spot } : {}) };
}

function readSpot(row: Row, str: (k: string) => string | undefined, fail: (f: string, m: string, h: string) => undefined, ctx: JobContext, autoRestart: boolean): SpotBid | undefined {
  void row;
  const type = str('instanceType');
  const priceText = str('priceLimit');
  const discountText = str('discountLimit');
  if (type === undefined) {
    if (priceText !== undefined) fail('priceLimit', 'is a spot bid but the row names no instanceType', 'give the spot instance type the job bids on');
    if (discountText !== undefined) fail('discountLimit', 'is a spot bid but the row names no instanceType', 'give the spot instance type the job bids on');
    return undefined;
  }
  const it = ctx.instanceTypes.get(type);
  if (!it) {
    const known = [...ctx.instanceTypes.keys()];
    return fail('instanceType', 'is not an instance type of any SpotMarket', known.length ? `instance types are: ${known.join(', ')}` : 'add a SpotMarket document to the policy (docs/simulate.md)');
  }
  if (priceText !== undefined && discountText !== undefined)
    return fail('discountLimit', 'and priceLimit are both given', 'a spot job bids with priceLimit (general-purpose) or discountLimit (Lingjun), never both (SEMANTICS 6)');
  if (priceText === undefined && discountText === undefined) return fail('instanceType', 'is given without a bid', 'give priceLimit (general-purpose) or discountLimit (Lingjun)');
  if (autoRestart && it.pool !== 'lingjun')
    return fail('autoRestart', `is on for a spot job on general-purpose instance type ${type}`, 'PAI offers automatic fault tolerance to spot jobs on Lingjun resources only (SEMANTICS 6)');
  if (discountText !== undefined) {
    if (it.pool !== 'lingjun')
      return fail(
        'discountLimit',
        `is a discount bid on general-purpose instance type ${type}`,
        'discountLimit is for Lingjun resources only; bid with priceLimit on general-purpose ones (SEMANTICS 6)',
      );
    const d = Number(discountText);
    if (!Number.isFinite(d) || d < 0.1 - 1e-9 || d > 0.9 + 1e-9 || Math.abs(d * 10 - Math.round(d * 10)) > 1e-9)
      return fail('discountLimit', 'is not 0.1 to 0.9 in steps of 0.1', 'write 0.1, 0.2, ... or 0.9: the share of the pay-as-you-go price');
    return { instanceType: type, discountLimit: Math.round(d * 10) / 10 };
  }
  const price = parsePrice(priceText);
  if (price === undefined) return fail('priceLimit', 'is not a price', 'write a price per instance-hour (12.5), or per minute with a unit (0.2/min)');
  return { instanceType: type, priceLimit: price };
}
