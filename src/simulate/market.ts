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
import type { Finding } from '../errors.js';
import type { SeriesPoint, SpotInstanceType, SpotMarket } from '../model/policy.js';
import { parseSimTime } from './read-jobs.js';
import { Random } from './random.js';
import { parse as parseCsv } from 'csv-parse/sync';

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

/** One market CSV (`at,instanceType,price` or `at,instanceType,inventory`) → points per type. */
export function readMarketCsv(file: string, text: string, column: 'price' | 'inventory', known: Set<string>): { series: Map<string, SeriesPoint[]>; findings: Finding[] } {
  const findings: Finding[] = [];
  const series = new Map<string, SeriesPoint[]>();
  const bad = (line: number, field: string, value: string, message: string, hint: string) =>
    findings.push({ file, line, column: 1, code: 'market/bad-value', severity: 'error', path: field, message: `${field} = "${value}": ${message}`, hint });
  let records: Array<{ record: Record<string, string>; info: { lines: number } }>;
  try {
    records = parseCsv(text, { columns: true, info: true, skip_empty_lines: true, trim: true, bom: true }) as unknown as typeof records;
  } catch (e) {
    findings.push({
      file,
      line: (e as { lines?: number }).lines ?? 1,
      column: 1,
      code: 'market/bad-csv',
      severity: 'error',
      path: '',
      message: `the CSV cannot be read: ${(e as Error).message}`,
      hint: `columns are at,instanceType,${column}`,
    });
    return { series, findings };
  }
  for (const { record, info } of records) {
    const line = info.lines;
    const at = parseSimTime(record.at);
    const name = record.instanceType ?? '';
    const v = Number(record[column]);
    let ok = true;
    if (at === undefined) ok = !!bad(line, 'at', record.at ?? '', 'is not a time from the start', 'write seconds (3600) or a duration (36h)');
    if (!known.has(name)) ok = !!bad(line, 'instanceType', name, 'is not an instance type of the SpotMarket', `instance types are: ${[...known].join(', ')}`);
    if (record[column] === undefined || !Number.isFinite(v) || v < 0 || (column === 'inventory' && !Number.isInteger(v)))
      ok = !!bad(
        line,
        column,
        record[column] ?? '',
        column === 'price' ? 'is not a price' : 'is not a whole count',
        column === 'price' ? 'write a price per instance-hour' : 'write the number of spot instances',
      );
    if (!ok) continue;
    const list = series.get(name) ?? [];
    const prev = list[list.length - 1];
    if (prev && at! <= prev.at) {
      bad(line, 'at', record.at ?? '', `goes back in time for ${name}`, "list each instance type's points in increasing time");
      continue;
    }
    list.push({ at: at!, value: v });
    series.set(name, list);
  }
  return { series, findings };
}

/** Every instance type's series for a run that lasts up to `horizon` ms. */
export function marketSeries(markets: SpotMarket[], csv: { prices: Map<string, SeriesPoint[]>; inventory: Map<string, SeriesPoint[]> }, seed: number, horizon: number): TypeSeries[] {
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
