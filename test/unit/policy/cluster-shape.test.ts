/**
 * The hand check of a Cluster spec (policy/validate/cluster-shape.ts) against zod's schema: it may
 * say true only for a spec zod accepts and returns unchanged, so that skipping zod
 * changes nothing; on everything else zod runs and gives the findings. Generated specs
 * start from valid jobs and nodes and take random damage — fields dropped, unknown
 * fields, wrong types, values out of range, NaN and infinities, empty names, nulls,
 * lists for mappings — so both answers are exercised, and each is counted.
 */
import fc from 'fast-check';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { clusterSpecFits } from '../../../src/policy/validate/cluster-shape.js';
import { clusterSpec } from '../../../src/policy/validate/schema.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 400);

const validJob = fc.record(
  {
    name: fc.constantFrom('j0', 'j1', 'é'),
    workspace: fc.constant('ws'),
    quota: fc.constant('Root'),
    module: fc.constantFrom('DLC', 'DSW', 'EAS'),
    priority: fc.integer({ min: 1, max: 9 }),
    pods: fc.integer({ min: 1, max: 4 }),
    resources: fc.record({ gpu: fc.constantFrom(1, 2, 8, 0.5, 32), cpu: fc.constantFrom(4, '500m'), memory: fc.constantFrom('64Gi', 1024) }, { requiredKeys: ['gpu'] }),
    idleResources: fc.constantFrom('none', 'acceptable', 'only'),
    standing: fc.constantFrom('in-quota', 'borrowing', 'idle'),
    startedAt: fc.constant('2026-11-20T01:58:00Z'),
    expectedEnd: fc.constant('2026-11-21T00:00:00Z'),
    duration: fc.constant('6h'),
    maxRuntime: fc.constant('24h'),
    submittedBy: fc.constant('alice'),
    checkpoint: fc.record({ every: fc.constant('30m'), last: fc.constant('2026-11-20T01:00:00Z') }, { requiredKeys: ['every'] }),
    faultTolerance: fc.record({ autoRestart: fc.boolean(), maxRestarts: fc.nat(5) }, { requiredKeys: ['autoRestart'] }),
    gpuModels: fc.constantFrom(['A100'], ['A100', 'H100']),
    placement: fc.array(fc.record({ node: fc.constant('n-1'), gpus: fc.constantFrom([0], [0, 1]), gpuCount: fc.constantFrom(1, 8) }, { requiredKeys: ['node'] }), { maxLength: 2 }),
  },
  { requiredKeys: ['name', 'workspace', 'quota', 'module', 'priority', 'resources'] },
);
/** A queued job (SEMANTICS 8): the job fields, submittedAt (required) and duration; sometimes a running job's field, which it may not have. */
const validQueued = fc.record(
  {
    name: fc.constantFrom('q0', 'q1'),
    workspace: fc.constant('ws'),
    quota: fc.constant('Root'),
    module: fc.constantFrom('DLC', 'DSW', 'EAS'),
    priority: fc.integer({ min: 1, max: 9 }),
    pods: fc.integer({ min: 1, max: 4 }),
    resources: fc.record({ gpu: fc.constantFrom(1, 8, 0.5), cpu: fc.constantFrom(4, '500m') }, { requiredKeys: ['gpu'] }),
    idleResources: fc.constantFrom('none', 'acceptable'),
    submittedAt: fc.constant('2026-11-20T11:00:00Z'),
    duration: fc.constant('6h'),
    submittedBy: fc.constant('alice'),
    gpuModels: fc.constant(['A100']),
  },
  { requiredKeys: ['name', 'workspace', 'quota', 'module', 'priority', 'resources', 'submittedAt'] },
);
const validNode = fc.record(
  {
    name: fc.constant('n-1'),
    gpus: fc.constantFrom(1, 8, 32),
    pool: fc.constant('p'),
    cpu: fc.constantFrom(96, '96'),
    memory: fc.constant('768Gi'),
    instanceType: fc.constant('ecs.x'),
    gpuModel: fc.constant('A100'),
    unschedulable: fc.boolean(),
  },
  { requiredKeys: ['name', 'gpus', 'pool'] },
);
const validGroup = fc.record(
  { prefix: fc.constant('n-'), count: fc.integer({ min: 1, max: 100 }), start: fc.nat(10), gpus: fc.constant(8), pool: fc.constant('p') },
  { requiredKeys: ['prefix', 'count', 'gpus', 'pool'] },
);
const validSpec = fc
  .record(
    {
      at: fc.constant('2026-11-20T12:00:00Z'),
      standings: fc.constantFrom('stated', 'derive'),
      nodeGroups: fc.array(validGroup, { maxLength: 2 }),
      nodes: fc.array(validNode, { maxLength: 3 }),
      jobs: fc.array(validJob, { maxLength: 4 }),
      queue: fc.array(validQueued, { maxLength: 2 }),
    },
    { requiredKeys: [] },
  )
  .map((spec) => structuredClone(spec)); // plain objects, as a YAML reader makes (fast-check's records have no prototype)

/** Values that break some field somewhere. */
const DAMAGE: unknown[] = [null, '', 'x', 0, -1, 1.5, 10, 33, 1e20, NaN, Infinity, -Infinity, -0, true, [], {}, ['x'], [-1], [1.5], [''], { gpu: 1 }, Object.create(null), undefined];

/** Every path to a field (or an item) inside `v`. */
function paths(v: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const out: Array<Array<string | number>> = [at];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])));
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]));
  return out;
}

/** `spec` with the value at `path` replaced, removed (`remove`), or a field `extra` added beside it. */
function damaged(spec: unknown, path: Array<string | number>, how: 'replace' | 'remove' | 'extra', value: unknown): unknown {
  const copy = structuredClone(spec) as Record<string | number, unknown>;
  if (path.length === 0) return how === 'replace' ? value : copy;
  let parent: Record<string | number, unknown> = copy;
  for (const seg of path.slice(0, -1)) parent = parent[seg] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (how === 'replace') parent[last] = value === undefined ? undefined : structuredClone(value);
  else if (how === 'remove') {
    if (Array.isArray(parent)) parent.splice(Number(last), 1);
    else delete parent[last];
  } else if (!Array.isArray(parent)) parent.colour = value;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === null && how === 'replace') parent[last] = Object.create(null);
  return copy;
}

describe('clusterSpecFits', () => {
  it('says true only for specs zod accepts and returns unchanged', () => {
    let fits = 0;
    let refused = 0;
    fc.assert(
      fc.property(validSpec, fc.nat(), fc.constantFrom('replace', 'remove', 'extra', 'none'), fc.constantFrom(...DAMAGE), (spec, at, how, value) => {
        const all = paths(spec);
        const input = how === 'none' ? spec : damaged(spec, all[at % all.length]!, how, value);
        const zod = clusterSpec.safeParse(input);
        if (how === 'none') expect(clusterSpecFits(input)).toBe(true);
        if (clusterSpecFits(input)) {
          fits++;
          expect(zod.success, JSON.stringify(input)).toBe(true);
          expect(zod.data).toStrictEqual(input);
        } else if (!zod.success) refused++;
      }),
      { numRuns: RUNS },
    );
    expect(fits).toBeGreaterThan(RUNS * 0.2);
    expect(refused).toBeGreaterThan(RUNS * 0.2);
  });

  it('says true only where zod agrees, for every damage at every field of a full spec', () => {
    // Every optional field present once, so every path is reached: each path × each damage × each way.
    const full = {
      at: '2026-11-20T12:00:00Z',
      standings: 'derive',
      nodeGroups: [{ prefix: 'n-', count: 4, start: 0, gpus: 8, cpu: 96, memory: '768Gi', pool: 'p', instanceType: 'ecs.x', gpuModel: 'A100', unschedulable: false }],
      nodes: [{ name: 'm-0', gpus: 8, cpu: '96', memory: 1024, pool: 'p', instanceType: 'ecs.x', gpuModel: 'A100', unschedulable: true }],
      jobs: [
        {
          name: 'j0',
          workspace: 'ws',
          quota: 'Root',
          module: 'DLC',
          priority: 3,
          pods: 2,
          resources: { gpu: 0.5, cpu: '500m', memory: '64Gi' },
          idleResources: 'acceptable',
          checkpoint: { every: '30m', last: '2026-11-20T01:00:00Z' },
          faultTolerance: { autoRestart: true, maxRestarts: 2 },
          submittedBy: 'alice',
          maxRuntime: '24h',
          gpuModels: ['A100'],
          standing: 'idle',
          startedAt: '2026-11-20T01:58:00Z',
          expectedEnd: '2026-11-21T00:00:00Z',
          duration: '6h',
          placement: [
            { node: 'n-0', gpus: [0] },
            { node: 'n-1', gpuCount: 1 },
          ],
        },
      ],
      queue: [
        {
          name: 'q0',
          workspace: 'ws',
          quota: 'Root',
          module: 'DLC',
          priority: 5,
          pods: 2,
          resources: { gpu: 1, cpu: 4, memory: '64Gi' },
          idleResources: 'none',
          checkpoint: { every: '30m' },
          faultTolerance: { autoRestart: false },
          submittedBy: 'alice',
          maxRuntime: '24h',
          gpuModels: ['A100'],
          submittedAt: '2026-11-20T11:00:00Z',
          duration: '6h',
        },
      ],
    };
    expect(clusterSpecFits(full)).toBe(true);
    let checked = 0;
    let refused = 0;
    for (const path of paths(full)) {
      for (const how of ['replace', 'remove', 'extra'] as const) {
        for (const value of DAMAGE) {
          const input = damaged(full, path, how, value);
          const zod = clusterSpec.safeParse(input);
          checked++;
          if (clusterSpecFits(input)) {
            expect(zod.success, `${how} ${path.join('.')} with ${inspect(value)}`).toBe(true);
            expect(zod.data).toStrictEqual(input);
          } else refused++;
        }
      }
    }
    expect(checked).toBeGreaterThan(3000);
    expect(refused).toBeGreaterThan(checked / 2);
  });

  it('leaves the findings of a damaged job to zod: code, file:line:col and path', () => {
    const tree = 'apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: { name: t }\nspec:\n  pool: { name: p }\n  quotas:\n    - name: Root\n      min: { gpu: 8 }\n';
    const cluster = (job: string) =>
      `apiVersion: quotient.dev/v1\nkind: Cluster\nmetadata: { name: c }\nspec:\n  nodeGroups:\n    - { prefix: n-, count: 1, gpus: 8, pool: p }\n  jobs:\n    - { name: j0, workspace: ws, quota: Root, module: DLC, priority: 3, resources: { gpu: 1 } }\n${job}\n`;
    const findings = (job: string) =>
      loadPolicy([
        { path: 't.yaml', text: tree },
        { path: 'c.yaml', text: cluster(job) },
      ]).findings.map((f) => [f.code, f.line, f.column, f.path]);
    // Line 9 holds the damaged job; each column is found in its text (the value, the key, or the mapping), not by a parser.
    const cases: Array<[job: string, code: string, at: string, path: string]> = [
      ['    - { name: j1, workspace: ws, quota: Root, module: DLC, priority: 10, resources: { gpu: 1 } }', 'policy/priority-out-of-range', '10', 'spec.jobs[1].priority'],
      ['    - { name: j1, workspace: ws, quota: Root, module: DLX, priority: 3, resources: { gpu: 1 } }', 'policy/unknown-module', 'DLX', 'spec.jobs[1].module'],
      ['    - { name: j1, workspace: ws, quota: Root, module: DLC, priority: 3, resources: { gpu: 1, gpuz: 2 } }', 'policy/unknown-field', 'gpuz', 'spec.jobs[1].resources.gpuz'],
      ['    - { name: j1, workspace: ws, module: DLC, priority: 3, resources: { gpu: 1 } }', 'policy/missing-field', '{', 'spec.jobs[1]'],
      [
        '    - { name: j1, workspace: ws, quota: Root, module: DLC, priority: 3, resources: { gpu: 1 }, placement: [{ node: n-0, gpus: [-1] }] }',
        'policy/out-of-range',
        '-1',
        'spec.jobs[1].placement[0].gpus[0]',
      ],
    ];
    for (const [job, code, at, path] of cases) expect(findings(job), code).toEqual([[code, 9, job.indexOf(at) + 1, path]]);
  });
});
