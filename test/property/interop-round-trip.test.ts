/**
 * Export → import keeps every field that maps: for random quota trees (mixed-case and
 * dotted names, cpu and memory guarantees, reclaim modes, queue strategies, preemption
 * clauses), each row an export marks `one-to-one` — and the guarantees and tree shape
 * always — come back equal from the import of what it wrote. The rows are the claim the
 * export's table makes; this property holds it to them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { QUEUE_STRATEGIES, RECLAIM_MODES } from '../../src/model/policy.js';
import { importQuotas, type QuotaFormat } from '../../src/interop/import-quotas.js';
import { exportKoordinator } from '../../src/interop/koordinator.js';
import { exportKueue } from '../../src/interop/kueue.js';
import type { MappingRow, TreeQuota } from '../../src/interop/tree-quota.js';
import { exportVolcano } from '../../src/interop/volcano.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 40);
const NAMES = { gpu: 'nvidia.com/gpu' };

/** A valid tree: each quota hangs under an earlier one; a parent guarantees its children's sum plus extra. */
const treeArb: fc.Arbitrary<TreeQuota[]> = fc
  .array(
    fc.record({
      parentPick: fc.nat(),
      root: fc.boolean(),
      extra: fc.integer({ min: 0, max: 64 }),
      cpu: fc.option(fc.integer({ min: 1, max: 512 }).map((c) => c * 500)),
      memory: fc.option(fc.integer({ min: 1, max: 64 }).map((g) => g * 1024)),
      reclaim: fc.option(fc.constantFrom(...RECLAIM_MODES)),
      queueStrategy: fc.option(fc.constantFrom(...QUEUE_STRATEGIES)),
      self: fc.boolean(),
      child: fc.boolean(),
      ceiling: fc.option(fc.integer({ min: 0, max: 32 })),
      borrowAll: fc.boolean(),
      name: fc.stringMatching(/^[A-Za-z][A-Za-z0-9.]{0,8}$/),
    }),
    { minLength: 1, maxLength: 8 },
  )
  .map((raw) => {
    const used = new Set<string>();
    const quotas: TreeQuota[] = raw.map((r) => {
      let name = r.name;
      while (used.has(name.toLowerCase())) name = `${name}x`;
      used.add(name.toLowerCase());
      return {
        name,
        parent: null,
        min: { gpu: r.extra, ...(r.cpu !== null ? { cpu: r.cpu } : {}), ...(r.memory !== null ? { memory: r.memory } : {}) },
        ...(r.reclaim !== null ? { reclaim: r.reclaim } : {}),
        ...(r.queueStrategy !== null ? { queueStrategy: r.queueStrategy } : {}),
        ...(r.self ? { selfPreemption: { highPriority: '6-9', lowPriority: '1-5', modules: ['DLC' as const] } } : {}),
        ...(r.child ? { childPreemption: { preemptiblePriority: '1-3', modules: ['DLC' as const, 'DSW' as const] } } : {}),
        ...(r.borrowAll ? { borrowing: { priority: '1-9' } } : {}),
      };
    });
    raw.forEach((r, i) => {
      if (i > 0 && !r.root) quotas[i]!.parent = quotas[r.parentPick % i]!.name;
    });
    // Parents guarantee at least their children (bottom-up, children come later in the list).
    for (let i = quotas.length - 1; i >= 0; i--) {
      const q = quotas[i]!;
      const kids = quotas.filter((k) => k.parent === q.name);
      q.min.gpu += kids.reduce((s, k) => s + k.min.gpu, 0);
      for (const r of ['cpu', 'memory'] as const) {
        if (kids.some((k) => k.min[r] !== undefined)) q.min[r] = (q.min[r] ?? 0) + kids.reduce((s, k) => s + (k.min[r] ?? 0), 0);
      }
    }
    // A ceiling over the final guarantee (max ≥ min), in GPUs.
    raw.forEach((r, i) => {
      if (r.ceiling !== null) quotas[i]!.max = { gpu: quotas[i]!.min.gpu + r.ceiling };
    });
    return quotas;
  });

/**
 * Found by this property (seed 1794824667): `A.` exports as object `a` and `a` as `a-2`,
 * so the child's parent reference `a` is also the Quotient name of the child itself; an
 * import that read it as a Quotient name before an object name saw a cycle. Always run.
 */
const COLLIDING: TreeQuota[] = [
  { name: 'A.', parent: null, min: { gpu: 0 } },
  { name: 'a', parent: 'A.', min: { gpu: 0 } },
];

/** The value of a Quotient field of a quota, as the rows name fields. */
function field(q: TreeQuota, f: string): unknown {
  if (f === 'name') return q.name;
  if (f === 'parent') return q.parent;
  if (f === 'min') return q.min;
  // Defaults compared as what they mean: Kueue writes reclaim and queueing strategy explicitly.
  if (f === 'reclaim') return q.reclaim ?? 'any';
  if (f === 'queueStrategy') return q.queueStrategy ?? 'fifo';
  if (f === 'max') return q.max;
  if (f === 'borrowing') return q.borrowing;
  if (f === 'selfPreemption') return q.selfPreemption;
  if (f === 'childPreemption') return q.childPreemption;
  return undefined;
}

function roundTrip(format: QuotaFormat, quotas: TreeQuota[], objects: unknown[], rows: MappingRow[]): void {
  const text = objects.map((o) => stringify(o)).join('---\n');
  const { quotas: back, report } = importQuotas(format, [{ path: 'export.yaml', text }], NAMES);
  expect(report.findings.filter((f) => f.severity === 'error')).toEqual([]);
  const byName = new Map(back.map((q) => [q.name, q]));
  for (const q of quotas) {
    const b = byName.get(q.name);
    expect(b, `${format}: ${q.name} comes back`).toBeDefined();
    // Shape and guarantees always survive.
    expect(b!.parent).toBe(q.parent);
    expect(b!.min).toEqual(q.min);
  }
  // Every row marked one-to-one is kept.
  for (const r of rows.filter((x) => x.fate === 'one-to-one' && x.quota !== '(all)')) {
    const q = quotas.find((x) => x.name === r.quota)!;
    expect(field(byName.get(q.name)!, r.field), `${format} ${q.name}.${r.field}`).toEqual(field(q, r.field));
  }
}

describe('export → import round trip', () => {
  for (const version of ['v1beta1', 'v1beta2'] as const) {
    it(`keeps every field that maps through Kueue ${version}`, () => {
      fc.assert(
        fc.property(treeArb, (quotas) => {
          const { objects, rows } = exportKueue(quotas, { version, names: NAMES, flavor: 'default-flavor' });
          roundTrip('kueue', quotas, objects, rows);
        }),
        { numRuns: RUNS, examples: [[COLLIDING]] },
      );
    });
  }
  it('keeps every field that maps through Koordinator', () => {
    fc.assert(
      fc.property(treeArb, (quotas) => {
        const { objects, rows } = exportKoordinator(quotas, { names: NAMES, namespace: 'default' });
        roundTrip('koordinator', quotas, objects, rows);
      }),
      { numRuns: RUNS, examples: [[COLLIDING]] },
    );
  });
  it('keeps every field that maps through Volcano', () => {
    fc.assert(
      fc.property(treeArb, (quotas) => {
        const { objects, rows } = exportVolcano(quotas, NAMES);
        roundTrip('volcano', quotas, objects, rows);
      }),
      { numRuns: RUNS, examples: [[COLLIDING]] },
    );
  });
});
