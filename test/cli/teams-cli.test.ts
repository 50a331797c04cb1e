/**
 * `quotient scale` and `--as` end to end, spawned as a user runs them: exit codes,
 * machine output holding only the document, and `--apply` rewriting min values while
 * keeping every comment and the layout.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { onlyAnswer, readReport } from '../helpers/report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const SCALING = 'policies/quota-scaling';
const ISOLATION = 'policies/team-isolation';

function quotient(args: string[], env: Record<string, string | undefined> = {}, cwd = ROOT) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined, QUOTIENT_USER: undefined, ...env }, timeout: 15_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const tmp = mkdtempSync(join(tmpdir(), 'quotient-scale-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('quotient scale', () => {
  it('answers --set as JSON with only the document on stdout', () => {
    const r = quotient(['scale', SCALING, '--set', 'Quota1.1=56', '--set', 'Quota1.2=72', '--json']);
    expect(r.status).toBe(0);
    const a = readReport(r.stdout, 'ScaleReport').answers[0];
    // A --set value cites the flag and the quota, never a line of a document the user never saw.
    expect(a.set).toEqual([expect.objectContaining({ quota: 'Quota1.1', before: 48, after: 56, source: '--set Quota1.1' }), expect.objectContaining({ quota: 'Quota1.2', before: 80, after: 72 })]);
    expect(a.changes.map((c: { job: string }) => c.job)).toEqual(['dsw-c-notebooks']);
  });

  it('exits 1 with located findings for a scaling that does not fit the parent', () => {
    const r = quotient(['scale', SCALING, '--set', 'Quota1.1=64', '--json']);
    expect(r.status).toBe(1);
    expect(readReport(r.stdout, 'ScaleReport').findings).toEqual([expect.objectContaining({ code: 'policy/scale-children-exceed-parent', file: '--set', path: 'spec.set.Quota1.1' })]);
  });

  it('exits 1 for an unknown quota and 2 for a malformed flag or a missing folder', () => {
    expect(quotient(['scale', SCALING, '--set', 'Quota9=8']).status).toBe(1);
    const bad = quotient(['scale', SCALING, '--set', 'Quota1.1:56']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('--set expects Quota=GPUs');
    expect(quotient(['scale', 'no/such/folder', '--set', 'Quota1.1=56']).status).toBe(2);
  });

  it('--apply writes the new mins into a copy, keeping comments and layout', () => {
    const dir = join(tmp, 'apply');
    cpSync(join(ROOT, SCALING), dir, { recursive: true });
    const before = readFileSync(join(dir, 'quotas.yaml'), 'utf8');
    const r = quotient(['scale', dir, '--set', 'Quota1.1=56', '--set', 'Quota1.2=72', '--apply', '--json']);
    expect(r.status).toBe(0);
    const after = readFileSync(join(dir, 'quotas.yaml'), 'utf8');
    // Exactly the two numbers changed; every other byte (comments, alignment) is kept.
    expect(after).toBe(before.replace('min: { gpu: 48 }', 'min: { gpu: 56 }').replace('min: { gpu: 80 }', 'min: { gpu: 72 }'));
    expect(after).toContain('- name: Quota1.1          # Team B: DLC training');
    expect(readdirSync(dir).filter((f) => f.includes('.tmp'))).toEqual([]);
    // The job that turned borrowing is marked so in the snapshot: the policy stays valid.
    const cluster = readFileSync(join(dir, 'cluster.yaml'), 'utf8');
    expect(cluster).toContain('startedAt: 2026-11-20T11:30:00Z, standing: borrowing }');
    expect(cluster.match(/standing:/g)).toHaveLength(1);
    const check = quotient(['check', dir]);
    expect(check.stdout + check.stderr).toContain('no findings');
    expect(check.status).toBe(0);
  });

  it('--apply writes nothing when the scaling is invalid', () => {
    const dir = join(tmp, 'invalid');
    cpSync(join(ROOT, SCALING), dir, { recursive: true });
    const before = readFileSync(join(dir, 'quotas.yaml'), 'utf8');
    expect(quotient(['scale', dir, '--set', 'Quota1.1=96', '--apply']).status).toBe(1);
    expect(readFileSync(join(dir, 'quotas.yaml'), 'utf8')).toBe(before);
  });

  it("hides other teams' jobs for QUOTIENT_USER", () => {
    const r = quotient(['scale', SCALING, '--query', 'rebalance-b-c', '--json'], { QUOTIENT_USER: 'bob' });
    expect(r.status).toBe(0);
    expect(r.stdout).not.toContain('dsw-c-notebooks');
    expect(readReport(r.stdout, 'ScaleReport').answers[0].changes[0].job).toBe('(hidden: workspace-c)');
  });
});

describe('quotient whatif --as', () => {
  it("names another team's victim only as hidden usage, in JSON and in the table", () => {
    const json = quotient(['whatif', ISOLATION, '--query', 'team-a-service', '--as', 'bob', '--json']);
    expect(json.status).toBe(0);
    expect(json.stdout).not.toContain('dsw-c-labeling');
    expect(onlyAnswer(json.stdout).victims[0]).toMatchObject({ job: '(hidden: workspace-c)', priorityBand: 'low (1-3)' });
    const table = quotient(['whatif', ISOLATION, '--query', 'team-a-service', '--as', 'bob']);
    expect(table.stdout).toContain('(hidden: workspace-c)');
    expect(table.stdout).not.toContain('dsw-c-labeling');
  });

  it('exits 2 for a user no workspace lists', () => {
    const r = quotient(['whatif', ISOLATION, '--as', 'nobody']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('not a member or guest');
  });

  it('submits ad-hoc jobs as the --as user, so membership is checked', () => {
    const r = quotient(['whatif', ISOLATION, '--as', 'bob', '--submit', 'workspace=workspace-c', 'quota=Quota1.2', 'module=DSW', 'priority=5', 'gpu=1', '--json']);
    expect(r.status).toBe(0);
    const a = onlyAnswer(r.stdout);
    expect(a.decision).toBe('reject');
    expect(a.reasons[0]).toMatchObject({ code: 'admission/access-denied', message: expect.stringContaining('workspace-c/members') });
  });

  it('explain lists the admission rules with their policy lines', () => {
    const r = quotient(['explain', 'policies/resource-policies', '--json']);
    expect(r.status).toBe(0);
    const names = readReport(r.stdout, 'ExplainReport').policies[0].admission.map((x: { name: string; source: string }) => `${x.name} ${x.source}`);
    expect(names).toContain('research/resourcePolicies[1] policies/resource-policies/quotas.yaml:26:7');
    expect(names).toContain('research/admission/DLC/maxRuntime policies/resource-policies/quotas.yaml:30:19');
  });
});
