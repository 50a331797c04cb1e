import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Session } from '../../../src/engine/session.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { checkPromise } from '../../../src/verify/check-promise.js';

function bundle(dir: string) {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => ({ path: join(dir, f), text: readFileSync(join(dir, f), 'utf8') }));
}

async function check(dir: string, runs = 100, seed = 1) {
  const files = bundle(dir);
  const { session } = Session.open(files);
  expect(session).toBeDefined();
  return Promise.all(session!.policy.promises.map((p) => checkPromise(session!, files, p, { runs, seed })));
}

// Each case checks promises over hundreds of generated states: minutes on a loaded 2-core machine.
describe('checkPromise', { timeout: 240_000 }, () => {
  it.each(['policies/inference-preempts-training', 'policies/self-level-preemption', 'policies/idle-resources'])('holds every shipped promise of %s', async (dir) => {
    const results = await check(dir);
    expect(results.length).toBeGreaterThan(0);
    for (const r of results) expect({ promise: r.promise, status: r.status, runs: r.runs }).toEqual({ promise: r.promise, status: 'held', runs: 100 });
  });

  it('breaks the documented example and returns a counterexample that replays through quotient whatif', async () => {
    const r = (await check('docs/examples/broken-promise', 300, 7))[0]!;
    expect(r.status).toBe('broken');
    const c = r.counterexample!;
    expect(c.broken.join()).toMatch(/GPU-hours of jobs of workspace workspace-b, promised at most 50/);
    expect(c.replayed).toBe(true);
    // The counterexample is a valid policy on its own, with the WhatIf it names.
    const loaded = loadPolicy([{ path: 'cex.yaml', text: c.yaml }]);
    expect(loaded.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(loaded.policy!.whatIfs.map((w) => w.name)).toEqual([c.query]);
  });

  it('gives the same verdict and counterexample for the same seed', async () => {
    const a = (await check('docs/examples/broken-promise', 300, 7))[0]!;
    const b = (await check('docs/examples/broken-promise', 300, 7))[0]!;
    expect(b.counterexample!.yaml).toBe(a.counterexample!.yaml);
  });
});

describe('Promise documents', () => {
  const base = readFileSync('policies/inference-preempts-training/quotas.yaml', 'utf8');
  const promise = (spec: string) => `apiVersion: quotient.dev/v1\nkind: Promise\nmetadata: { name: p }\nspec:\n${spec}`;
  it.each([
    ['an unknown quota in submit', '  submit: { quota: Quota9 }\n  expect: { maxVictims: 0 }\n', 'policy/unknown-name', 5, 20],
    ['a reversed range', '  submit: { pods: "4-1" }\n  expect: { maxVictims: 0 }\n', 'policy/reversed-range', 5, 19],
    ['a priority out of range', '  submit: { priority: 12 }\n  expect: { maxVictims: 0 }\n', 'policy/out-of-range', 5, 23],
    ['an empty expectation', '  submit: {}\n  expect: {}\n', 'policy/empty-promise', 6, 11],
    ['an unknown field', '  submit: {}\n  expect: { maxVictim: 1 }\n', 'policy/unknown-field', 6, 13],
    ['an unknown workspace in a selector', '  submit: {}\n  expect: { neverPreempts: { workspace: ws-z } }\n', 'policy/unknown-workspace', 6, 41],
  ])('reports %s at its line and column', (_name, spec, code, line, column) => {
    const { policy, findings } = loadPolicy([
      { path: 'quotas.yaml', text: base },
      { path: 'promise.yaml', text: promise(spec) },
    ]);
    expect(policy).toBeUndefined();
    const f = findings.find((x) => x.severity === 'error')!;
    expect({ code: f.code, file: f.file, line: f.line, column: f.column }).toEqual({ code, file: 'promise.yaml', line, column });
  });
});
