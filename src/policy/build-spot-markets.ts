/**
 * SpotMarket documents → markets (SEMANTICS 6). Checks: unique instance type names
 * across markets, times that parse, series in time order, and that every instance type
 * gets a price and an inventory from somewhere (inline, a CSV file, or the synthetic
 * model). The CSV files themselves are read by `quotient simulate`, which knows the disk.
 */
import type { SeriesPoint, SpotInstanceType, SpotMarket, SyntheticMarket } from '../model/policy.js';
import { parseDuration } from '../model/quantity.js';
import type { Collector } from './collector.js';
import { parseDurationField } from './parse-fields.js';
import type { SpotMarketSpec } from './schema.js';
import { sourceAt, type PathSeg, type SourceDoc } from './source-doc.js';
import { uniqueDocs } from './unique-docs.js';
import type { TypedDoc } from './validate-schema.js';

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
      synthetic = {
        ...(s.seed !== undefined ? { seed: s.seed } : {}),
        every: every ?? 3_600_000,
        meanDiscount: s.meanDiscount ?? 0.35,
        volatility: s.volatility ?? 0.08,
        inventory: s.inventory ?? 64,
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
      const prices = series(
        c,
        sd,
        [...path, 'prices'],
        (it.prices ?? []).map((p) => ({ at: p.at, value: p.price })),
      );
      const inventory = series(
        c,
        sd,
        [...path, 'inventory'],
        (it.inventory ?? []).map((p) => ({ at: p.at, value: p.count })),
      );
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
      ...(synthetic ? { synthetic } : {}),
      src: sourceAt(sd, []),
    });
  }
  return out;
}

/** Seconds or a duration → ms from the start; `0` is the start. */
export function simTimeOf(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
  const t = value.trim();
  if (/^\d+(\.\d+)?$/.test(t)) return Math.round(Number(t) * 1000);
  return parseDuration(t);
}

function series(c: Collector, sd: SourceDoc, path: PathSeg[], points: Array<{ at: number | string; value: number }>): SeriesPoint[] {
  const out: SeriesPoint[] = [];
  points.forEach((p, i) => {
    const at = simTimeOf(p.at);
    if (at === undefined) {
      c.error(sd, [...path, i, 'at'], 'policy/bad-time', `"${String(p.at)}" is not a time from the start`, 'write seconds (3600) or a duration (36h)');
      return;
    }
    const prev = out[out.length - 1];
    if (prev && at <= prev.at) {
      c.error(sd, [...path, i, 'at'], 'policy/series-out-of-order', `the series goes back in time (${String(p.at)} after ${prev.at / 1000}s)`, 'list the points in increasing time');
      return;
    }
    out.push({ at, value: p.value });
  });
  return out;
}
