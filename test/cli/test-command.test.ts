/**
 * `quotient test` and `quotient whatif --workers` end to end, as a user runs them: exit
 * codes, the counterexample replaying through `quotient whatif`, CI report formats, and
 * worker answers equal to one-thread answers.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { onlyAnswer, readReport } from '../helpers/report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const tmp = mkdtempSync(join(tmpdir(), 'quotient-test-cmd-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function quotient(...args: string[]) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 180_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// Each case runs `quotient test` (hundreds of generated states) up to three times: minutes on a loaded machine.
describe('quotient test', { timeout: 240_000 }, () => {
  it('exits 0 when every shipped promise holds, and says how many runs each got', () => {
    const r = quotient('test', 'policies/', '--seed', '1', '--runs', '50');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/✓ held +team-a-service-always-runs +\(50 runs\)/);
    expect(r.stdout).toMatch(/\d+ held, 0 broken \(seed 1\)/);
  });

  it('exits 1 on the broken example and saves a counterexample that quotient whatif reproduces', () => {
    const dir = join(tmp, 'cex');
    const r = quotient('test', 'docs/examples/broken-promise', '--seed', '7', '--save', dir);
    expect(r.status).toBe(1);
    expect(r.stdout).toContain('✗ broken  workspace-b-loses-little');
    expect(r.stdout).toContain('replayed through quotient whatif: reproduces');
    // The replay hint carries every flag that shaped the states, and runs as printed.
    const hint = /replay: quotient (test .*)/.exec(r.stdout)?.[1];
    expect(hint).toBe('test docs/examples/broken-promise --promise workspace-b-loses-little --seed 7 --runs 200');
    const again = quotient(...(hint ?? '').split(' '));
    expect(again.status).toBe(1);
    expect(again.stdout).toMatch(/✗ broken {2}workspace-b-loses-little {2}\(after \d+ runs\)/);
    expect(again.stdout.match(/\(after \d+ runs\)/)?.[0]).toBe(r.stdout.match(/\(after \d+ runs\)/)?.[0]);
    expect(r.stdout).toMatch(/coverage: \d+ distinct of \d+ states \(.*\); rules fired: .*Quota1\/childPreemption \d+/);
    const file = join(dir, 'workspace-b-loses-little.yaml');
    const replay = quotient('whatif', file, '--json');
    expect(replay.status).toBe(0);
    const answer = onlyAnswer(replay.stdout);
    const lost = answer.victims.filter((v: { quota: string }) => v.quota === 'Quota1.1').reduce((s: number, v: { lostGpuHours: number }) => s + v.lostGpuHours, 0);
    expect(lost).toBeGreaterThan(50);
  });

  it('--save writes only inside its folder: a promise named ../../x, and a symlink planted at the name left alone', () => {
    const policy = join(tmp, 'escape');
    cpSync(join(ROOT, 'docs/examples/broken-promise'), policy, { recursive: true });
    const promises = join(policy, 'promises.yaml');
    writeFileSync(promises, readFileSync(promises, 'utf8').replace('metadata: { name: workspace-b-loses-little }', 'metadata: { name: "../../x" }'));
    const out = join(tmp, 'save', 'a', 'b');
    mkdirSync(out, { recursive: true });
    // A symlink at the very name the file will get, pointing outside: never written through, nor replaced (it is not
    // quotient's): the counterexample takes the next free name.
    const victim = join(tmp, 'victim.txt');
    writeFileSync(victim, 'keep me\n');
    symlinkSync(victim, join(out, '%2E.%2F..%2Fx.yaml'));
    const r = quotient('test', policy, '--seed', '7', '--save', out);
    expect(r.status).toBe(1);
    expect(readdirSync(out).sort()).toEqual(['%2E.%2F..%2Fx-2.yaml', '%2E.%2F..%2Fx.yaml']);
    expect(lstatSync(join(out, '%2E.%2F..%2Fx.yaml')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(out, '%2E.%2F..%2Fx-2.yaml'), 'utf8')).toContain('kind: WhatIf');
    expect(readFileSync(victim, 'utf8')).toBe('keep me\n');
    expect(existsSync(join(tmp, 'save', 'x.yaml'))).toBe(false);
    expect(readdirSync(join(tmp, 'save'))).toEqual(['a']);
  });

  it('prints JSON with stable fields, and JUnit and TAP reports for CI', () => {
    const json = readReport(quotient('test', 'docs/examples/broken-promise', '--seed', '7', '--json').stdout, 'TestReport');
    expect(Object.keys(json)).toEqual(['apiVersion', 'kind', 'seed', 'runs', 'policies']);
    expect(json.policies[0].results[0]).toMatchObject({
      promise: 'workspace-b-loses-little',
      status: 'broken',
      seed: 7,
      replay: 'quotient test docs/examples/broken-promise --promise workspace-b-loses-little --seed 7 --runs 200',
    });
    const coverage = json.policies[0].results[0].coverage;
    expect(coverage.distinctStates).toBeGreaterThan(1);
    expect(coverage.distinctStates).toBeLessThanOrEqual(coverage.states);
    expect(coverage.rules.map((r: { rule: string }) => r.rule)).toEqual(expect.arrayContaining(['Quota1/childPreemption', 'reclaim/idle']));
    const junit = quotient('test', 'docs/examples/broken-promise', '--seed', '7', '--format', 'junit');
    expect(junit.stdout).toMatch(/^<\?xml/);
    expect(junit.stdout).toContain('<testcase name="workspace-b-loses-little"');
    expect(junit.stdout).toContain('<failure message=');
    const tap = quotient('test', 'policies/self-level-preemption', '--seed', '1', '--runs', '20', '--format', 'tap');
    expect(tap.status).toBe(0);
    expect(tap.stdout.split('\n').slice(0, 3)).toEqual(['TAP version 14', '1..2', 'ok 1 - policies/self-level-preemption: inference-never-preempted (held over 20 runs)']);
  });

  it('refuses --format with --json or -o yaml (two formats) instead of letting one win', () => {
    for (const [flags, said] of [
      [['--format', 'junit', '--json'], '--format junit and --json ask for two formats'],
      [['--format', 'tap', '-o', 'yaml'], '--format tap and -o yaml ask for two formats'],
    ] as const) {
      const r = quotient('test', 'docs/examples/broken-promise', '--seed', '1', '--runs', '1', ...flags);
      expect(r.status).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain(said);
    }
  });

  it('exits 2 with a located finding for a malformed promise, and for a folder without promises', () => {
    const dir = join(tmp, 'bad-promise');
    cpSync(join(ROOT, 'policies/self-level-preemption'), dir, { recursive: true });
    writeFileSync(join(dir, 'promises.yaml'), readFileSync(join(dir, 'promises.yaml'), 'utf8').replace('priority: 5-9, standing: in-quota', 'priority: 5-9, standin: in-quota'));
    const bad = quotient('test', dir);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/promises\.yaml:\d+:\d+ +error +policy\/unknown-field/);
    const none = quotient('test', 'policies/team-isolation');
    expect(none.status).toBe(2);
    expect(none.stderr).toContain('the files hold no Promise document');
  });

  it('rejects bad flags with exit 2', () => {
    expect(quotient('test', 'policies/', '--runs', '0').status).toBe(2);
    expect(quotient('test', 'policies/', '--format', 'xml').status).toBe(2);
  });
});

describe('quotient whatif --workers', () => {
  it('answers on worker threads exactly as on one thread', () => {
    const one = quotient('whatif', 'policies/', '--json');
    const two = quotient('whatif', 'policies/', '--json', '--workers', '2');
    expect(two.status).toBe(0);
    expect(two.stdout).toBe(one.stdout);
  });

  it('answers on worker threads when node was started with a V8 flag (node --max-old-space-size=... quotient)', () => {
    const one = quotient('whatif', 'policies/', '--json');
    const r = spawnSync(process.execPath, ['--max-old-space-size=2048', MAIN, 'whatif', 'policies/', '--json', '--workers', '2'], {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
      timeout: 180_000,
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(one.stdout);
  });
});
