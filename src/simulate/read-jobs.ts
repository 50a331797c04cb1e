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
import { codePoint, unsafeCharacter } from '../model/display-text.js';
import { IDLE_MODES, MODULES, type IdleMode, type JobSpec, type Module, type Policy, type PoolType } from '../model/policy.js';
import { parseCpu, parseMemory } from '../model/quantity.js';
import type { Source } from '../model/source.js';
import { formatCount, MAX_JOBS } from '../policy/parse/number-limits.js';
import { isRefusal, readDuration, readPositive, readPrice, readSimTime, readWhole, shownValue, type Refusal } from '../policy/parse/number-text.js';
import { atCells, csvCells } from './csv-cells.js';
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
  /** Jobs already in the run under their names (the Cluster snapshot's running jobs): a row may not take one's name. */
  running?: ReadonlyArray<{ name: string; src: Source }>;
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
  const running = new Map((ctx.running ?? []).map((j) => [j.name, j.src]));
  const stem = basename(file).replace(/\.[^.]*$/, '');
  const past = rows.rows[MAX_JOBS];
  if (past) {
    // Every row would be read and kept: a workload's size is bounded before any is.
    const f = finding(
      file,
      past.line,
      '',
      '',
      `the file holds more than ${formatCount(MAX_JOBS)} jobs, the most one workload may hold`,
      'split the workload by time into several files',
      'trace/too-many-jobs',
    );
    return { source: file, synthetic: false, jobs: [], rejected: [f], notes: [] };
  }
  for (const entry of rows.rows) {
    const { row, line } = entry;
    while (unread.length > 0 && unread[0]!.line < line) rejected.push(unread.shift()!);
    if (options.strict && rejected.length > 0) return { source: file, synthetic: false, jobs: [], rejected: rejected.slice(0, 1), notes: [] };
    const bad: Finding[] = [];
    const job = readRow(file, line, row, ctx, stem, bad);
    if (job) {
      const prev = names.get(job.spec.name);
      const snap = running.get(job.spec.name);
      if (prev !== undefined) bad.push(finding(file, line, 'name', job.spec.name, `job name "${job.spec.name}" is already used on line ${prev}`, 'give every job its own name', 'trace/duplicate-job'));
      else if (snap)
        bad.push(
          finding(
            file,
            line,
            'name',
            job.spec.name,
            `job name "${job.spec.name}" is a running job of the Cluster snapshot (${snap.file}:${snap.line})`,
            "give every job its own name: the snapshot's running jobs start the run",
            'trace/duplicate-job',
          ),
        );
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
      // One record past the most a workload may hold is enough to refuse the file: no more is parsed.
      to: MAX_JOBS + 1,
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
  return { file, line, column: 1, code, severity: 'error', path: field, message: field && value !== '' ? `${field} = "${shownValue(value)}": ${message}` : message, hint };
}

function readRow(file: string, line: number, row: Row, ctx: JobContext, stem: string, bad: Finding[]): SimJob | undefined {
  const str = (k: string): string | undefined => {
    const v = row[k];
    if (v === undefined || v === null) return undefined;
    const s = (typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : JSON.stringify(v)).trim();
    return s === '' ? undefined : s;
  };
  const fail = (field: string, message: string, hint: string, code?: string): undefined => {
    bad.push(finding(file, line, field, str(field) ?? '', message, hint, code));
    return undefined;
  };
  /** A number-text.ts reader's value, or a finding: trace/out-of-range past its limit (the message says it), else trace/bad-value. */
  const take = (field: string, read: number | Refusal): number | undefined => (isRefusal(read) ? fail(field, read.refused, read.hint, read.pastLimit ? 'trace/out-of-range' : undefined) : read);
  /** A cell as the readers take it: a YAML number as the number it is (`1e308` is past a limit, not a text), else its text. */
  const num = (k: string): number | string | undefined => (typeof row[k] === 'number' ? row[k] : str(k));
  const int = (field: string, lo: number, hi: number, dflt: number | undefined): number | undefined => {
    const s = num(field);
    if (s === undefined) return dflt ?? fail(field, 'is required', `give ${field}`);
    return take(field, readWhole(s, lo, hi));
  };
  /** A name the run prints: refused, as a policy's names are, when it holds a control, bidirectional or separator character. */
  const text = (field: string): string | undefined => {
    const s = str(field);
    const unsafe = s === undefined ? undefined : unsafeCharacter(s);
    if (!unsafe) return s;
    return fail(
      field,
      `holds the invisible character ${codePoint(unsafe.char)} at position ${unsafe.index + 1}`,
      'names may not hold control, bidirectional or line-separator characters: they can rewrite the terminal they are printed on or make one name look like another; retype the value',
      'trace/control-character',
    );
  };

  const name = text('name') ?? `${stem}-${line}`;
  const submitText = num('submit');
  const submit =
    submitText === undefined ? fail('submit', 'is required', 'give the submission time: seconds from the start (3600) or a duration (1h)') : take('submit', readSimTime(submitText, 'time'));
  const durText = num('duration');
  const duration =
    durText === undefined ? fail('duration', 'is required', 'give the running time the job needs: seconds (7200) or a duration (2h)') : take('duration', readSimTime(durText, 'duration'));

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
  const every = cpText === undefined ? undefined : take('checkpoint', readDuration(cpText));
  const arText = str('autoRestart');
  let autoRestart = false;
  if (arText !== undefined) {
    if (/^(true|yes|1)$/i.test(arText)) autoRestart = true;
    else if (!/^(false|no|0)$/i.test(arText)) fail('autoRestart', 'is not true or false', 'write true or false');
  }
  const maxRestarts = int('maxRestarts', 0, 1_000_000, DEFAULT_MAX_RESTARTS);
  if (str('maxRestarts') !== undefined && !autoRestart) fail('maxRestarts', 'is given but autoRestart is not true', 'set autoRestart: true, or drop maxRestarts');

  const submittedBy = text('submittedBy');
  const spot = readSpot(str, num, fail, take, ctx, autoRestart);
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
    ...(submittedBy !== undefined ? { submittedBy } : {}),
    src: { file, line, column: 1, path: '' },
  };
  return { spec, submit: submit!, duration: duration!, ...(spot ? { spot } : {}) };
}

function readSpot(
  str: (k: string) => string | undefined,
  num: (k: string) => number | string | undefined,
  fail: (f: string, m: string, h: string) => undefined,
  take: (f: string, read: number | Refusal) => number | undefined,
  ctx: JobContext,
  autoRestart: boolean,
): SpotBid | undefined {
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
    const d = readPositive(discountText, 1);
    if (isRefusal(d) || d < 0.1 - 1e-9 || d > 0.9 + 1e-9 || Math.abs(d * 10 - Math.round(d * 10)) > 1e-9)
      return fail('discountLimit', 'is not 0.1 to 0.9 in steps of 0.1', 'write 0.1, 0.2, ... or 0.9: the share of the pay-as-you-go price');
    return { instanceType: type, discountLimit: Math.round(d * 10) / 10 };
  }
  const price = take('priceLimit', readPrice(num('priceLimit'), true));
  return price === undefined ? undefined : { instanceType: type, priceLimit: price };
}
