/**
 * SpotMarket documents → markets (SEMANTICS 6). Checks: unique instance type names
 * across markets, times that parse, series in time order, every number within its limit
 * (number-limits.ts: times and durations, prices, inventory counts, the seed), and that
 * every instance type gets a price and an inventory from somewhere (inline, a CSV file,
 * or the synthetic model). The CSV files themselves are read from disk by
 * simulate/market.ts's readMarketFiles, for `check` and `simulate` alike.
 */
import type { SeriesPoint, SpotInstanceType, SpotMarket, SyntheticMarket } from '../../model/policy.js';
import type { Collector } from '../collector.js';
import { MAX_INVENTORY } from '../parse/number-limits.js';
import { readPrice, readSeed, readSimTime, readWhole, type Refusal } from '../parse/number-text.js';
import { parseDurationField, placeRead } from './parse-fields.js';
import type { SpotMarketSpec } from '../validate/schema.js';
import { sourceAt, type PathSeg, type SourceDoc } from '../parse/source-doc.js';
import { uniqueDocs } from './unique-docs.js';
import type { TypedDoc } from '../validate/validate-schema.js';

/** The protection period when a market gives none (ours, as ECS spot instances). */
export const DEFAULT_PROTECTION_MS = 3_600_000;

/** Builds every SpotMarket document. */
export function buildSpotMarkets(c: Collector, docs: TypedDoc[]): SpotMarket[] {
  const out: SpotMarket[] = [];
  const typeNames = new Set<string>();
  for (const td of uniqueDocs(c, docs, 'SpotMarket', 'policy/duplicate-market', 'SpotMarket names are unique')) {
    const spec = td.spec as SpotMarketSpec;
    const sd = td.sd;
    const protectionPeriod = spec.protectionPeriod === undefined ? DEFAULT_PROTECTION_MS : parseDurationField(c, sd, ['spec', 'protectionPeriod'], spec.protectionPeriod);
    let synthetic: SyntheticMarket | undefined;
    if (spec.synthetic) {
      const s = spec.synthetic;
      const every = s.every === undefined ? 3_600_000 : parseDurationField(c, sd, ['spec', 'synthetic', 'every'], s.every);
      const seed = s.seed === undefined ? undefined : placeRead(c, sd, ['spec', 'synthetic', 'seed'], s.seed, readSeed(s.seed), 'policy/out-of-range');
      const inventory = s.inventory === undefined ? 64 : placeRead(c, sd, ['spec', 'synthetic', 'inventory'], s.inventory, readWhole(s.inventory, 0, MAX_INVENTORY), 'policy/out-of-range');
      synthetic = {
        ...(seed !== undefined ? { seed } : {}),
        every: every ?? 3_600_000,
        meanDiscount: s.meanDiscount ?? 0.35,
        volatility: s.volatility ?? 0.08,
        inventory: inventory ?? 64,
      };
    }
    const types: SpotInstanceType[] = [];
    spec.instanceTypes.forEach((it, i) => {
      const path: PathSeg[] = ['spec', 'instanceTypes', i];
      if (typeNames.has(it.name)) {
        c.error(sd, [...path, 'name'], 'policy/duplicate-instance-type', `instance type "${it.name}" is declared twice`, 'instance type names are unique across SpotMarkets');
        return;
      }
      typeNames.add(it.name);
      placeRead(c, sd, [...path, 'payAsYouGo'], it.payAsYouGo, readPrice(it.payAsYouGo, true), 'policy/out-of-range');
      const prices = series(c, sd, [...path, 'prices'], 'price', it.prices ?? [], (v) => readPrice(v, false));
      const inventory = series(c, sd, [...path, 'inventory'], 'count', it.inventory ?? [], (v) => readWhole(v, 0, MAX_INVENTORY));
      for (const [what, list, file] of [
        ['prices', prices, spec.pricesFile],
        ['inventory', inventory, spec.inventoryFile],
      ] as const) {
        if (list.length === 0 && file === undefined && !synthetic) {
          c.error(
            sd,
            path,
            'policy/no-market-series',
            `instance type "${it.name}" has no ${what}`,
            `give ${what} inline, a ${what === 'prices' ? 'pricesFile' : 'inventoryFile'} CSV, or a synthetic model (docs/simulate.md)`,
          );
        }
      }
      types.push({ name: it.name, pool: it.type ?? 'general', gpus: it.gpus, payAsYouGo: it.payAsYouGo, prices, inventory, src: sourceAt(sd, path) });
    });
    out.push({
      name: td.name,
      protectionPeriod: protectionPeriod ?? DEFAULT_PROTECTION_MS,
      instanceTypes: types,
      ...(spec.pricesFile !== undefined ? { pricesFile: spec.pricesFile } : {}),
      ...(spec.inventoryFile !== undefined ? { inventoryFile: spec.inventoryFile } : {}),
      fileSrc: {
        ...(spec.pricesFile !== undefined ? { pricesFile: sourceAt(sd, ['spec', 'pricesFile']) } : {}),
        ...(spec.inventoryFile !== undefined ? { inventoryFile: sourceAt(sd, ['spec', 'inventoryFile']) } : {}),
      },
      ...(synthetic ? { synthetic } : {}),
      src: sourceAt(sd, []),
    });
  }
  return out;
}

/** One inline series: each point's time and value within their limits, in increasing time. */
function series<K extends string>(
  c: Collector,
  sd: SourceDoc,
  path: PathSeg[],
  key: K,
  points: ReadonlyArray<{ at: number | string } & Record<K, number>>,
  read: (v: number) => number | Refusal,
): SeriesPoint[] {
  const out: SeriesPoint[] = [];
  points.forEach((p, i) => {
    const at = placeRead(c, sd, [...path, i, 'at'], p.at, readSimTime(p.at, 'time'), 'policy/bad-time');
    const value = placeRead(c, sd, [...path, i, key], p[key], read(p[key]), 'policy/out-of-range');
    if (at === undefined || value === undefined) return;
    const prev = out[out.length - 1];
    if (prev && at <= prev.at) {
      c.error(sd, [...path, i, 'at'], 'policy/series-out-of-order', `the series goes back in time (${String(p.at)} after ${prev.at / 1000}s)`, 'list the points in increasing time');
      return;
    }
    out.push({ at, value });
  });
  return out;
}
