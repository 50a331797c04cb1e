/**
 * The interop commands end to end (built CLI): stdout holds only the document, the
 * summary and findings go to stderr, bad input is a located error with exit 1 and
 * never a stack trace.
 */
import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');

/** Runs the CLI; `input` is fed to stdin. */
export function quotient(args: string[], input?: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8', input, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined }, timeout: 20_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const STATE = 'test/fixtures/interop/kubectl-state.json';

describe('quotient import kubectl', () => {
  it('writes a Cluster document on stdout and the summary on stderr', () => {
    const r = quotient(['import', 'kubectl', STATE, '--at', '2026-11-23T12:00:00Z']);
    expect(r.status).toBe(0);
    const doc = parseYaml(r.stdout) as { kind: string; spec: { nodes: unknown[]; jobs: unknown[] } };
    expect(doc.kind).toBe('Cluster');
    expect(doc.spec.nodes).toHaveLength(24);
    expect(r.stderr).toMatch(/^read: 30 Node, 244 Pod/m);
    expect(r.stderr).toMatch(/skipped: \d+ object\(s\)/);
    expect(r.stderr).toMatch(/team-c\/frac-gpu/);
  });

  it('reads stdin for -', () => {
    const r = quotient(['import', 'kubectl', '-', '--at', '2026-11-23T12:00:00Z'], '{"kind":"List","items":[]}');
    expect(r.status).toBe(0);
    expect((parseYaml(r.stdout) as { kind: string }).kind).toBe('Cluster');
  });

  it('gives a located error and exit 1 for input that is not a List, never a trace', () => {
    const r = quotient(['import', 'kubectl', '-'], '{\n  "kind": "Service"\n}');
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/<stdin>:2:11 +error +interop\/not-a-list/);
    expect(r.stderr).not.toMatch(/\.js:\d+:\d+/);
  });

  it('refuses a bad flag with exit 2', () => {
    const r = quotient(['import', 'kubectl', STATE, '--priority-map', '0=9,10=1']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--priority-map/);
  });
});

describe('quotient whatif --job (a PAI CreateJob request)', () => {
  it('answers the request like any WhatIf', () => {
    const r = quotient(['whatif', 'test/fixtures/interop/policy', '--job', 'test/fixtures/interop/pai-request.json', '--json']);
    expect(r.status).toBe(0);
    const a = JSON.parse(r.stdout) as { job: string; quota: string; decision: string; placement: unknown[] };
    expect(a).toMatchObject({ job: 'llm-finetune', quota: 'team-a', decision: 'admit' });
    expect(a.placement).toHaveLength(4);
  });

  it('locates a bad request field and exits 1', () => {
    const r = quotient(['whatif', 'test/fixtures/interop/policy', '--job', '-'], '{\n  "DisplayName": "x",\n  "JobType": "PyTorchJob",\n  "ResourceId": "team-a",\n  "WorkspaceId": "team-a",\n  "Priority": 12,\n  "JobSpecs": [ { "PodCount": 1, "ResourceConfig": { "GPU": "8" } } ]\n}');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/<stdin>:6:15 +error +interop\/pai-invalid-field +Priority must be/);
  });

  it('puts a quota the policy lacks at ResourceId, exit 1', () => {
    const r = quotient(['whatif', 'test/fixtures/interop/policy', '--job', '-'], '{\n  "DisplayName": "x",\n  "JobType": "PyTorchJob",\n  "ResourceId": "team-z",\n  "WorkspaceId": "team-a",\n  "JobSpecs": [ { "PodCount": 1, "ResourceConfig": { "GPU": "8" } } ]\n}');
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/<stdin>:4:17 +error +policy\/unknown-quota/);
  });
});
