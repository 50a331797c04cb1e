/**
 * "did you mean" for an unknown field names where it goes: a close field of the same
 * object, else a field one level down (`gpu` beside `resources` → `resources.gpu`),
 * never the refused name itself (issue 18: a WhatIf `submit` with `gpu:` at top level
 * said "unknown field gpu … did you mean gpu?").
 */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { nearestField } from '../../../src/policy/validate/suggest.js';
import { ONE_ROOT } from '../../helpers/one-root.js';

const whatIf = (submit: string) => `${ONE_ROOT}---
apiVersion: quotient.dev/v1
kind: WhatIf
metadata: { name: q }
spec:
  submit: { ${submit} }
`;
const load = (text: string) => loadPolicy([{ path: 'p.yaml', text }], { now: 0 }).findings;
/** The quoted suggestion of a hint (`did you mean "X"?`). */
const suggested = (hint: string) => /did you mean "([^"]+)"/.exec(hint)?.[1];

describe('nearestField', () => {
  const submit = { here: ['name', 'quota', 'pods', 'resources'], below: new Map([['resources', ['gpu', 'cpu', 'memory']]]) };

  it('finds a field one level down by its name, spelled with its parent', () => {
    expect(nearestField('gpu', submit)).toBe('resources.gpu');
    expect(nearestField('memroy', submit)).toBe('resources.memory');
  });

  it('prefers a close field of the object itself on a tie', () => {
    expect(nearestField('qouta', submit)).toBe('quota');
    expect(nearestField('cpu', { here: ['cpus'], below: new Map([['x', ['cpuz']]]) })).toBe('cpus');
  });

  it('never gives the refused name itself, nor a far one', () => {
    expect(nearestField('name', { here: ['name'], below: new Map() })).toBeUndefined();
    expect(nearestField('colour', submit)).toBeUndefined();
  });
});

describe('an unknown field in a policy', () => {
  it('a WhatIf submit with gpu at top level: did you mean resources.gpu, and no missing-resources finding beside it', () => {
    const findings = load(whatIf('name: j, workspace: ws, quota: Root, module: DLC, priority: 5, gpu: 8'));
    expect(findings.map((f) => [f.code, f.path])).toEqual([['policy/unknown-field', 'spec.submit.gpu']]);
    expect(suggested(findings[0]!.hint)).toBe('resources.gpu');
  });

  it('with resources given as well, the top-level gpu still points under resources', () => {
    const findings = load(whatIf('name: j, workspace: ws, quota: Root, module: DLC, priority: 5, cpu: 4, resources: { gpu: 1 }'));
    expect(findings.map((f) => [f.code, f.path])).toEqual([['policy/unknown-field', 'spec.submit.cpu']]);
    expect(suggested(findings[0]!.hint)).toBe('resources.cpu');
  });

  it('a Cluster job with gpu beside its other fields: resources.gpu too (any kind, any depth)', () => {
    const cluster = `${ONE_ROOT}---
apiVersion: quotient.dev/v1
kind: Cluster
metadata: { name: c }
spec:
  at: 2026-11-20T12:00:00Z
  nodes: [ { name: n1, pool: p, gpus: 8 } ]
  jobs:
    - { name: j1, workspace: ws, quota: Root, module: DLC, priority: 3, gpu: 1 }
`;
    const unknown = load(cluster).filter((f) => f.code === 'policy/unknown-field');
    expect(unknown.map((f) => [f.path, suggested(f.hint)])).toEqual([['spec.jobs[0].gpu', 'resources.gpu']]);
  });

  it('a misspelt field of the object itself is still named (mni → min)', () => {
    const findings = load(ONE_ROOT.replace('      min: { gpu: 8 }', '      min: { gpu: 8 }\n      mxa: { gpu: 8 }'));
    expect(findings.map((f) => [f.code, suggested(f.hint)])).toEqual([['policy/unknown-field', 'max']]);
  });

  it('no hint ever proposes the name it refuses', () => {
    // Field names that exist somewhere in the schemas, each put where it does not belong.
    for (const key of ['gpu', 'cpu', 'memory', 'gpus', 'pool', 'min', 'priority', 'every']) {
      const findings = load(whatIf(`name: j, workspace: ws, quota: Root, module: DLC, priority: 5, resources: { gpu: 1 }, ${key === 'priority' ? 'prio' : key}: 1`));
      const f = findings.find((x) => x.code === 'policy/unknown-field');
      expect(f, key).toBeDefined();
      expect(suggested(f!.hint), key).not.toBe(key);
    }
  });
});

describe('a very long unknown key (issue 27 item 2)', () => {
  it('is checked in time linear in its length and quoted back shortened', () => {
    // 1,000,000 characters: the unbounded edit distance took ~9 s here (a row per character, per field name).
    const key = 'k'.repeat(1_000_000);
    const started = performance.now();
    const findings = load(whatIf(`name: j, workspace: ws, quota: Root, module: DLC, priority: 5, resources: { gpu: 1 }, ${key}: 1`));
    const ms = performance.now() - started;
    const f = findings.find((x) => x.code === 'policy/unknown-field')!;
    expect(f.message).toContain('(1,000,000 characters)');
    expect(f.message.length + f.hint.length + f.path.length).toBeLessThan(400);
    expect(f.line).toBeGreaterThan(0);
    expect(ms).toBeLessThan(4000);
  });

  it('a long key close to a long field name is still compared in full (the bound only skips what cannot be close)', () => {
    expect(nearestField('resourcse', { here: ['resources'], below: new Map() })).toBe('resources');
  });
});
