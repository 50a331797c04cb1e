/**
 * Start estimates for a snapshot without ends (issue 27 item 19): a cluster imported from
 * Kubernetes gives no expected end, so no estimate existed and the CLI did not say why.
 * Now a wait answer's estimate is "none" with the reason (table and JSON), and a quota's
 * `runtimeDefault` gives its running jobs assumed ends, so an estimate exists, marked as
 * assumed in the table (an `assumed:` line), the JSON (`assumedEnds`) and its assumptions.
 * The policy: policies/when-will-it-start with every end taken out (as `import kubectl` writes it).
 */
import { stripVTControlCharacters } from 'node:util';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readReport } from '../helpers/report.js';
import { quotient } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'quotient-runtime-default-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** when-will-it-start without ends; `teamB` lines added under TeamB's quota (e.g. `runtimeDefault: 3h`). */
function policy(name: string, teamB = ''): string {
  const p = join(dir, name);
  cpSync('policies/when-will-it-start', p, { recursive: true });
  const cluster = readFileSync(join(p, 'cluster.yaml'), 'utf8').replace('      duration: 3h\n', '').replace('      expectedEnd: 2026-11-20T15:00:00Z\n', '');
  expect(cluster).not.toMatch(/^ +(duration|expectedEnd):/m);
  writeFileSync(join(p, 'cluster.yaml'), cluster);
  if (teamB) {
    const quotas = readFileSync(join(p, 'quotas.yaml'), 'utf8').replace('          queueStrategy: fifo\n', `          queueStrategy: fifo\n          ${teamB}\n`);
    writeFileSync(join(p, 'quotas.yaml'), quotas);
  }
  return p;
}

describe('start estimates without ends in the snapshot', () => {
  it('says why there is none, in the table and the JSON', () => {
    const p = policy('no-ends');
    const json = quotient(['whatif', p, '--query', 'team-b-next', '--json']);
    expect(json.status, json.stderr).toBe(0);
    const a = readReport(json.stdout, 'WhatIfReport').answers[0];
    expect(a.decision).toBe('wait');
    expect(a.estimate).toMatchObject({ start: null, inHours: null, queuePosition: 1, assumedEnds: [] });
    expect(a.estimate.reason).toContain('no running job of the snapshot says when it ends');
    expect(a.estimate.reason).toContain('runtimeDefault');
    const table = stripVTControlCharacters(quotient(['whatif', p, '--query', 'team-b-next']).stdout);
    expect(table).toMatch(/estimated start: none — no running job of the snapshot says when it ends .* set runtimeDefault on the quotas/);
  });

  it("estimates from TeamB's runtimeDefault, and marks the estimate assumed everywhere", () => {
    // b-train started 10:00, b-eval 11:00, each assumed to run 3 h: ends 13:00 and 14:00.
    // b-next (8 GPUs) fits TeamB once b-train ends: 13:00, in 1 h. a-serve (TeamA, no default) runs on.
    const p = policy('assumed', 'runtimeDefault: 3h');
    const json = quotient(['whatif', p, '--query', 'team-b-next', '--json']);
    expect(json.status, json.stderr).toBe(0);
    const e = readReport(json.stdout, 'WhatIfReport').answers[0].estimate;
    expect(e).toMatchObject({ start: '2026-11-20T13:00:00.000Z', inHours: 1, reason: null, withoutExpectedEnd: ['a-serve'] });
    expect(e.assumedEnds).toEqual([
      { job: 'b-train', quota: 'TeamB', end: '2026-11-20T13:00:00.000Z', runtimeDefault: "TeamB's 3 h runtimeDefault" },
      { job: 'b-eval', quota: 'TeamB', end: '2026-11-20T14:00:00.000Z', runtimeDefault: "TeamB's 3 h runtimeDefault" },
    ]);
    expect(e.assumptions.join('\n')).toMatch(/^ASSUMED: 2 running job\(s\) give no expected end/m);
    const table = stripVTControlCharacters(quotient(['whatif', p, '--query', 'team-b-next']).stdout);
    expect(table).toContain('estimated start: 2026-11-20T13:00:00.000Z (in 1 h)');
    expect(table).toContain('assumed: 2 running job(s) give no expected end; their ends are assumed from runtimeDefault');
  });

  it('takes the nearest runtimeDefault up the path: on Lab, it reaches TeamB', () => {
    const p = policy('on-lab');
    const quotas = readFileSync(join(p, 'quotas.yaml'), 'utf8').replace('      min: { gpu: 32 }\n', '      min: { gpu: 32 }\n      runtimeDefault: 4h\n');
    writeFileSync(join(p, 'quotas.yaml'), quotas);
    const e = readReport(quotient(['whatif', p, '--query', 'team-b-next', '--json']).stdout, 'WhatIfReport').answers[0].estimate;
    // b-train ends 14:00 (10:00 + 4 h), and a-serve (started the day before) is past its 4 h: it ends at the snapshot time.
    expect(e.assumedEnds.map((x: { job: string; end: string }) => [x.job, x.end])).toEqual([
      ['a-serve', '2026-11-20T12:00:00.000Z'],
      ['b-train', '2026-11-20T14:00:00.000Z'],
      ['b-eval', '2026-11-20T15:00:00.000Z'],
    ]);
    expect(e.start).toBe('2026-11-20T14:00:00.000Z');
  });

  it('lets an import supply it: import kueue --runtime-default puts it on the root quotas, and check loads the tree', () => {
    // Under Kueue's rules (the default) on the walk's fixture: the roots carry it, and the tree checks clean.
    const k = quotient(['import', 'kueue', 'test/fixtures/interop/kueue-cluster/kueue.yaml', '--runtime-default', '8h']);
    expect(k.status, k.stderr).toBe(0);
    expect(k.stdout).toMatch(/^ {6}runtimeDefault: "8h"$/m);
    const kp = join(dir, 'imported-kueue');
    mkdirSync(kp);
    writeFileSync(join(kp, 'quotas.yaml'), k.stdout);
    expect(quotient(['check', kp]).status).toBe(0);
    // Under PAI's rules, on a fixture written for them.
    const r = quotient(['import', 'kueue', 'test/fixtures/interop/quotas/kueue-v1beta2.yaml', '--rules', 'pai', '--runtime-default', '8h']);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {6}runtimeDefault: 8h$/m);
    const p = join(dir, 'imported');
    cpSync('policies/when-will-it-start', p, { recursive: true });
    writeFileSync(join(p, 'quotas.yaml'), r.stdout);
    rmSync(join(p, 'cluster.yaml'));
    rmSync(join(p, 'whatif.yaml'));
    expect(quotient(['check', p]).status).toBe(0);
    // A bad duration is a usage error, before any input is read.
    expect(quotient(['import', 'kueue', 'test/fixtures/interop/quotas/kueue-v1beta2.yaml', '--runtime-default', 'soon']).status).toBe(2);
  });
});
