/**
 * The price and inventory series of each spot instance type, from one of three sources
 * in this order: the SpotMarket's inline series, its CSV files, or — for a type with
 * neither — the seeded synthetic model. The synthetic model is ours and is synthetic:
 * the public Alibaba spot trace has no price column (docs/simulate.md "Synthetic market").
 *
 *   price    every `every`, p ← p + 0.3·(m(t) − p) + volatility·payAsYouGo·N(0,1),
 *            m(t) = meanDiscount·payAsYouGo·(1 + 0.25·sin(2πt/24h)) (dearer by day),
 *            kept within 0.1..1.0 × payAsYouGo, rounded to 0.0001
 *   inventory every `every`, n = inventory·(1 − 0.25·sin(2πt/24h)) + N(0, 0.1·inventory),
 *            at least 0, rounded
 */
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import type { parse as ParseCsv } from 'csv-parse/sync';
import { QuotientError, type Finding } from '../errors.js';
import { escapeDisplay } from '../model/display-text.js';
import type { SeriesPoint, SpotInstanceType, SpotMarket } from '../model/policy.js';
import type { Source } from '../model/source.js';
import { formatDuration } from '../model/quantity.js';
import { formatCount, MAX_INVENTORY, MAX_SYNTHETIC_POINTS } from '../policy/parse/number-limits.js';
import { isRefusal, readPrice, readSimTime, readWhole, shownValue } from '../policy/parse/number-text.js';
import { readOne } from '../policy/parse/read-files.js';
import { atCells, csvCells } from './csv-cells.js';
import { Random } from './random.js';

const DAY = 86_400_000;

/** The series of one instance type for a run. */
export interface TypeSeries {
  type: SpotInstanceType;
  market: SpotMarket;
  prices: SeriesPoint[];
  inventory: SeriesPoint[];
  /** Which parts came from the synthetic model. */
  syntheticPrices: boolean;
  syntheticInventory: boolean;
}

/** The CSV files' series per instance type, and every finding about the files. */
export interface MarketFiles {
  prices: Map<string, SeriesPoint[]>;
  inventory: Map<string, SeriesPoint[]>;
  findings: Finding[];
}

/**
 * Reads the CSV files the SpotMarkets name (relative to each market's file) and checks
 * that every instance type gets both series from somewhere: the one reader `check`
 * reports from and `simulate` (and `whatif --market`) stop on, so a policy `check` finds
 * clean is one they run. A file that cannot be read is a finding at its market, not an
 * exit: `check` goes on to report the rest.
 */
export function readMarketFiles(markets: SpotMarket[]): MarketFiles {
  const out: MarketFiles = { prices: new Map(), inventory: new Map(), findings: [] };
  for (const m of markets) {
    const before = out.findings.length;
    const known = new Set(m.instanceTypes.map((t) => t.name));
    for (const [file, column, into, field] of [
      [m.pricesFile, 'price', out.prices, 'pricesFile'],
      [m.inventoryFile, 'inventory', out.inventory, 'inventoryFile'],
    ] as const) {
      if (file === undefined) continue;
      const path = join(dirname(m.src.file), file);
      let text: string;
      try {
        const read = readOne(path);
        out.findings.push(...(read.input.findings ?? []));
        text = read.input.text;
      } catch (e) {
        const why = e instanceof QuotientError ? e.message : String(e);
        out.findings.push({
          ...at(m.fileSrc?.[field] ?? m.src),
          path: `spec.${field}`,
          code: 'market/unreadable-file',
          severity: 'error',
          message: `${field} ${path} cannot be read: ${why}`,
          hint: "the path is relative to the SpotMarket's file",
        });
        continue;
      }
      const read = readMarketCsv(path, text, column, known);
      out.findings.push(...read.findings);
      for (const [k, v] of read.series) into.set(k, v);
    }
    // A type whose rows were all refused would also "have no series": its findings say why already.
    if (out.findings.length > before) continue;
    for (const t of m.instanceTypes) {
      const missing = [!t.prices.length && !out.prices.has(t.name) && 'prices', !t.inventory.length && !out.inventory.has(t.name) && 'inventory'].filter(Boolean);
      if (missing.length && !m.synthetic)
        out.findings.push({
          ...at(t.src),
          path: t.src.path,
          code: 'policy/no-market-series',
          severity: 'error',
          message: `instance type "${t.name}" has no ${missing.join(' and ')} in SpotMarket "${m.name}" or its files`,
          hint: 'add rows for it to the CSV files, or a synthetic model (docs/simulate.md)',
        });
    }
  }
  return out;
}

/** A Source's place as plain fields (a policy's Sources compute their line lazily, through getters a spread does not copy). */
function at(src: Source): { file: string; line: number; column: number } {
  return { file: src.file, line: src.line, column: src.column };
}

/**
 * One market CSV (`at,instanceType,price` or `at,instanceType,inventory`) → points per
 * type. Each bad cell is a finding at its line and column: a time or value that is not
 * one (`NaN`, `-5`, `Infinity`, `=1+2`, blank) is `market/bad-value`, one past its limit
 * (number-limits.ts) `market/out-of-range`; a bad row is left out.
 */
export function readMarketCsv(file: string, text: string, column: 'price' | 'inventory', known: Set<string>): { series: Map<string, SeriesPoint[]>; findings: Finding[] } {
  const findings: Finding[] = [];
  const series = new Map<string, SeriesPoint[]>();
  const finding = (line: number, field: string, value: string, message: string, hint: string, code = 'market/bad-value'): Finding => ({
    file,
    line,
    column: 1,
    code,
    severity: 'error',
    path: field,
    message: field ? `${field} = "${shownValue(value)}": ${message}` : message,
    hint,
  });
  const columns = ['at', 'instanceType', column];
  let header: string[] = [];
  let records: Array<{ record: Record<string, string | undefined>; raw: string; info: { lines: number } }>;
  try {
    // The CSV reader loads with the first market file: `check` of a policy without a spot market never pays for it.
    const parseCsv = (createRequire(import.meta.url)('csv-parse/sync') as { parse: typeof ParseCsv }).parse;
    records = parseCsv(text, { columns: (h: string[]) => (header = h), info: true, raw: true, skip_empty_lines: true, trim: true, bom: true }) as unknown as typeof records;
  } catch (e) {
    findings.push({ ...finding((e as { lines?: number }).lines ?? 1, '', '', `the CSV cannot be read: ${(e as Error).message}`, `columns are ${columns.join(',')}`), code: 'market/bad-csv' });
    return { series, findings };
  }
  const wrong = header.map((h, i) => ({ h, i })).filter(({ h }) => !columns.includes(h));
  const absent = columns.filter((c) => !header.includes(c));
  if (wrong.length > 0 || absent.length > 0) {
    const cells = csvCells(text.replace(/^\uFEFF/, ''));
    for (const { h, i } of wrong) {
      const cell = cells.cells[i];
      findings.push({
        ...finding(1 + cells.skipped + (cell?.line ?? 0), '', '', `unknown column "${escapeDisplay(h).text}"`, `columns are ${columns.join(',')}`, 'market/unknown-column'),
        column: cell?.column ?? 1,
      });
    }
    if (absent.length > 0) findings.push(finding(1 + cells.skipped, '', '', `the header has no ${absent.join(', ')} column`, `columns are ${columns.join(',')}`, 'market/missing-column'));
    return { series, findings };
  }
  for (const { record, raw, info } of records) {
    const line = info.lines;
    const bad: Finding[] = [];
    const take = (field: string, read: number | { refused: string; hint: string; pastLimit: boolean }): number | undefined => {
      if (!isRefusal(read)) return read;
      bad.push(finding(line, field, record[field] ?? '', read.refused, read.hint, read.pastLimit ? 'market/out-of-range' : 'market/bad-value'));
      return undefined;
    };
    const time = take('at', readSimTime(record.at ?? '', 'time'));
    const name = record.instanceType ?? '';
    const v = take(column, column === 'price' ? readPrice(record.price ?? '', false) : readWhole(record.inventory ?? '', 0, MAX_INVENTORY));
    if (!known.has(name)) bad.push(finding(line, 'instanceType', name, 'is not an instance type of the SpotMarket', `instance types are: ${[...known].join(', ')}`));
    const list = series.get(name) ?? [];
    const prev = list[list.length - 1];
    if (bad.length === 0 && prev && time! <= prev.at) bad.push(finding(line, 'at', record.at ?? '', `goes back in time for ${name}`, "list each instance type's points in increasing time"));
    if (bad.length > 0) {
      atCells(bad, raw, line, header);
      findings.push(...bad);
      continue;
    }
    list.push({ at: time!, value: v! });
    series.set(name, list);
  }
  return { series, findings };
}

/**
 * Every instance type's series for a run that lasts up to `horizon` ms. The synthetic
 * points the run needs (horizon ÷ `every` per type) are counted first: past
 * MAX_SYNTHETIC_POINTS in all, the run is refused (exit 2) before any is made.
 */
export function marketSeries(markets: SpotMarket[], csv: { prices: Map<string, SeriesPoint[]>; inventory: Map<string, SeriesPoint[]> }, seed: number, horizon: number): TypeSeries[] {
  checkSyntheticPoints(markets, csv, horizon);
  const out: TypeSeries[] = [];
  for (const market of markets) {
    market.instanceTypes.forEach((type, i) => {
      const syn = market.synthetic;
      // One stream per type, so adding a type does not change the others' series.
      const rnd = new Random(((syn?.seed ?? seed) * 1_000_003 + i * 7919) >>> 0);
      let prices = type.prices.length ? type.prices : (csv.prices.get(type.name) ?? []);
      let inventory = type.inventory.length ? type.inventory : (csv.inventory.get(type.name) ?? []);
      const synPrices = prices.length === 0 && syn !== undefined;
      const synInventory = inventory.length === 0 && syn !== undefined;
      if (synPrices || synInventory) {
        const gen = synthetic(type, syn, rnd, horizon);
        if (synPrices) prices = gen.prices;
        if (synInventory) inventory = gen.inventory;
      }
      out.push({ type, market, prices, inventory, syntheticPrices: synPrices, syntheticInventory: synInventory });
    });
  }
  return out;
}

/** The points the synthetic model makes for one type over `horizon`: one at 0 and every `every` up to a step past the horizon. */
function pointsOf(every: number, horizon: number): number {
  return Math.floor((horizon + every) / every) + 1;
}

/** Refuses a run whose synthetic series would hold more than MAX_SYNTHETIC_POINTS points, naming the market, its `every` and the shortest that fits. */
function checkSyntheticPoints(markets: SpotMarket[], csv: { prices: Map<string, SeriesPoint[]>; inventory: Map<string, SeriesPoint[]> }, horizon: number): void {
  let total = 0;
  let syntheticTypes = 0;
  let worst: { market: SpotMarket; types: number } | undefined;
  for (const market of markets) {
    const syn = market.synthetic;
    if (!syn) continue;
    const types = market.instanceTypes.filter((t) => (!t.prices.length && !csv.prices.get(t.name)?.length) || (!t.inventory.length && !csv.inventory.get(t.name)?.length)).length;
    total += types * pointsOf(syn.every, horizon);
    syntheticTypes += types;
    if (types > 0 && (!worst || syn.every < worst.market.synthetic!.every)) worst = { market, types };
  }
  if (total <= MAX_SYNTHETIC_POINTS || !worst) return;
  const { market, types } = worst;
  // The shortest `every`, in whole minutes, that keeps all the synthetic types within the limit.
  const fits = Math.ceil(horizon / Math.max(1, MAX_SYNTHETIC_POINTS / syntheticTypes - 2) / 60_000) * 60_000;
  throw new QuotientError(
    'simulate/too-many-points',
    `the synthetic market would make ${formatCount(total)} price points (SpotMarket "${market.name}" at ${market.src.file}:${market.src.line}: ${types} instance type(s), one point every ${formatDuration(market.synthetic!.every)} over ${formatDuration(horizon)}), more than the ${formatCount(MAX_SYNTHETIC_POINTS)} a run may make`,
    `set synthetic.every to ${formatDuration(fits)} or longer, or end the run sooner (--until)`,
  );
}

function synthetic(type: SpotInstanceType, syn: NonNullable<SpotMarket['synthetic']>, rnd: Random, horizon: number): { prices: SeriesPoint[]; inventory: SeriesPoint[] } {
  const prices: SeriesPoint[] = [];
  const inventory: SeriesPoint[] = [];
  const payg = type.payAsYouGo;
  let p = syn.meanDiscount * payg;
  for (let t = 0; t <= horizon + syn.every; t += syn.every) {
    const phase = Math.sin((2 * Math.PI * (t % DAY)) / DAY);
    const mean = syn.meanDiscount * payg * (1 + 0.25 * phase);
    p = p + 0.3 * (mean - p) + syn.volatility * payg * rnd.normal();
    p = Math.min(payg, Math.max(0.1 * payg, p));
    prices.push({ at: t, value: Math.round(p * 10_000) / 10_000 });
    const n = syn.inventory * (1 - 0.25 * phase) + 0.1 * syn.inventory * rnd.normal();
    inventory.push({ at: t, value: Math.max(0, Math.round(n)) });
  }
  return { prices, inventory };
}
