/**
 * The JSON contract (docs/cli.md "JSON output", schemas/*.json): every `--json` report of
 * the built CLI, on the shipped policies, validates against its published schema; whatif
 * prints one shape whatever the number of answers; every command with --json prints a
 * report of its kind, every kind is printed by some command, every command documents its
 * exit codes; an unknown quota is a finding (exit 1) in `scale --set` and `whatif --submit` alike.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REASON_CODES } from '../../src/engine/reason-codes.js';
import { REPORT_KINDS } from '../../src/cli/output.js';
import { onlyAnswer, readReport, schemaErrors } from '../helpers/report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');

function quotient(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  // No QUOTIENT_USER from the caller's shell: each test says who is asking.
  const { QUOTIENT_USER: _ignored, ...base } = process.env;
  const r = spawnSync(process.execPath, [MAIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...base, NO_COLOR: '1', ...env }, timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('JSON contract', () => {
  it('whatif on every shipped policy prints a WhatIfReport that matches its schema, each answer with codes and its lost GPU-hours', () => {
    const r = quotient(['whatif', 'policies/', '--json']);
    expect(r.status).toBe(0);
    const doc = readReport(r.stdout, 'WhatIfReport');
    expect(doc.answers.length).toBeGreaterThan(5);
    for (const a of doc.answers) {
      expect(a.lostGpuHours).toBeCloseTo(
        a.victims.reduce((s: number, v: { lostGpuHours?: number }) => s + (v.lostGpuHours ?? 0), 0),
        2,
      );
      for (const x of [...a.reasons, ...a.notes]) expect(Object.keys(REASON_CODES)).toContain(x.code);
      for (const v of a.victims) expect(Object.keys(REASON_CODES)).toContain(v.code);
    }
    // Every decision kind shows up on the shipped policies, so every branch's shape is checked.
    expect(new Set(doc.answers.map((a: { decision: string }) => a.decision))).toEqual(new Set(['admit', 'preempt', 'wait', 'reject']));
  });

  it('whatif prints one shape for one answer and for several', () => {
    const one = readReport(quotient(['whatif', 'policies/inference-preempts-training', '--query', 'team-a-inference', '--json']).stdout, 'WhatIfReport');
    const two = readReport(quotient(['whatif', 'policies/inference-preempts-training', '--json']).stdout, 'WhatIfReport');
    expect(Object.keys(one)).toEqual(Object.keys(two));
    expect(one.answers).toHaveLength(1);
    expect(two.answers.length).toBeGreaterThan(1);
  });

  it('check, scale, explain and test print their reports as their schemas say', () => {
    readReport(quotient(['check', 'policies/', '--json']).stdout, 'CheckReport');
    const scale = readReport(quotient(['scale', 'policies/quota-scaling', '--json']).stdout, 'ScaleReport');
    // Every reason and every changed job of a scaling carries a scale/ code (the schema holds the enum).
    const scaleCodes = scale.answers.flatMap((a: { reasons: Array<{ code: string }>; changes: Array<{ code: string }> }) => [...a.reasons, ...a.changes].map((p) => p.code));
    expect(scaleCodes).toContain('scale/job-turns-borrowing');
    for (const code of scaleCodes) expect(code).toMatch(/^scale\//);
    const uncodedChange = structuredClone(scale);
    delete uncodedChange.answers[0].changes[0].code;
    expect(schemaErrors('ScaleReport', uncodedChange).join('\n')).toContain("must have required property 'code'");
    readReport(quotient(['explain', 'policies/', '--json']).stdout, 'ExplainReport');
    readReport(quotient(['test', 'policies/self-level-preemption', '--runs', '10', '--seed', '1', '--json']).stdout, 'TestReport');
    // Redacted answers (hidden victims) match the schema too.
    const hidden = onlyAnswer(quotient(['whatif', 'policies/team-isolation', '--query', 'team-a-service', '--as', 'bob', '--json']).stdout);
    expect(hidden.victims.some((v: { hidden?: boolean }) => v.hidden)).toBe(true);
  });

  it('the schemas reject what the contract forbids (a missing code, an unknown field)', () => {
    const r = quotient(['whatif', 'policies/inference-preempts-training', '--query', 'team-a-inference', '--json']);
    const doc = readReport(r.stdout, 'WhatIfReport');
    const noCode = structuredClone(doc);
    delete noCode.answers[0].reasons[0].code;
    expect(schemaErrors('WhatIfReport', noCode).join('\n')).toContain("must have required property 'code'");
    const extra = structuredClone(doc);
    extra.answers[0].surprise = 1;
    expect(schemaErrors('WhatIfReport', extra).join('\n')).toContain('must NOT have additional properties');
  });

  it('an ad-hoc job with no submitter says in a coded note that membership and caps were not checked', () => {
    const args = ['whatif', 'policies/team-isolation', '--submit', 'workspace=workspace-a', 'quota=Quota1', 'module=EAS', 'priority=5', 'gpu=1', '--json'];
    const anon = onlyAnswer(quotient(args).stdout);
    expect(anon.notes).toEqual([expect.objectContaining({ code: 'admission/submitter-unknown' })]);
    const asAnn = onlyAnswer(quotient([...args, '--as', 'alice']).stdout);
    expect(asAnn.notes).toEqual([]);
  });

  it('an unknown quota is a finding, exit 1, in scale --set and in whatif --submit alike', () => {
    const set = quotient(['scale', 'policies/quota-scaling', '--set', 'Nope=8', '--json']);
    const submit = quotient(['whatif', 'policies/quota-scaling', '--submit', 'quota=Nope', 'workspace=workspace-b', 'module=DLC', 'priority=3', 'gpu=1', '--json']);
    expect([set.status, submit.status]).toEqual([1, 1]);
    expect(readReport(set.stdout, 'ScaleReport').findings[0]).toMatchObject({ code: 'policy/unknown-quota', file: '--set' });
    expect(readReport(submit.stdout, 'WhatIfReport')).toMatchObject({ answers: [], findings: [expect.objectContaining({ code: 'policy/unknown-quota', file: '--submit' })] });
  });

  it('a finding about a command-line value has line and column 0 and no span, whatever stage found it', () => {
    // Validate (the schema) for --submit, build (an unknown quota) for --set: neither may carry a place in the document built from the flag.
    const submit = quotient(['whatif', 'policies/quota-scaling', '--submit', 'quota=Quota1', 'workspace=workspace-b', 'module=DLC', 'priority=12', 'gpu=1', '--json']);
    const set = quotient(['scale', 'policies/quota-scaling', '--set', 'Nope=8', '--json']);
    type Found = { file: string; code: string; stage?: string; line: number; column: number };
    const found = [...(readReport(submit.stdout, 'WhatIfReport') as { findings: Found[] }).findings, ...(readReport(set.stdout, 'ScaleReport') as { findings: Found[] }).findings];
    expect(found.map((f) => [f.file, f.code, f.stage, f.line, f.column, 'start' in f || 'end' in f])).toEqual([
      ['--submit', 'policy/priority-out-of-range', 'validate', 0, 0, false],
      ['--set', 'policy/unknown-quota', 'build', 0, 0, false],
    ]);
  });

  it('in a table, an invalid scale --set and whatif --submit print their errors on stderr and nothing on stdout', () => {
    const set = quotient(['scale', 'policies/quota-scaling', '--set', 'Nope=8']);
    const submit = quotient(['whatif', 'policies/quota-scaling', '--submit', 'quota=Nope', 'workspace=workspace-b', 'module=DLC', 'priority=3', 'gpu=1']);
    for (const r of [set, submit]) {
      expect(r.status).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toContain('policy/unknown-quota');
    }
  });

  it('every command with --json prints its versioned report, and every kind of report is printed by some command', () => {
    const dir = mkdtempSync(join(tmpdir(), 'quotient-contract-'));
    try {
      const spot = ['policies/spot-market', '--trace', 'policies/spot-market/jobs.csv'];
      const shard = quotient(['simulate', ...spot, '--until', '12h', '--seeds', '1-2', '--shard', '0/1', '--json']);
      writeFileSync(join(dir, 'shard.json'), shard.stdout);
      const runs: Array<[string[], string]> = [
        [['check', 'policies/', '--json'], 'CheckReport'],
        [['whatif', 'policies/', '--json'], 'WhatIfReport'],
        [['whatif', ...spot, '--market', 'ecs.gn7i-1gpu=11@30h', '--json'], 'MarketWhatIfReport'],
        [['scale', 'policies/quota-scaling', '--json'], 'ScaleReport'],
        [['test', 'policies/self-level-preemption', '--runs', '5', '--seed', '1', '--json'], 'TestReport'],
        [['explain', 'policies/', '--json'], 'ExplainReport'],
        [['diff', 'docs/examples/quota-scaling-diff/old', 'docs/examples/quota-scaling-diff/new', '--samples', '5', '--promise-runs', '5', '--json'], 'DiffReport'],
        [['simulate', ...spot, '--until', '12h', '--json'], 'SimulateReport'],
        [['report', 'merge', join(dir, 'shard.json'), '--json'], 'SweepReport'],
        [['risk', 'policies/inference-preempts-training', '--samples', '20', '--horizon', '6h', '--runs', '2', '--json'], 'RiskReport'],
      ];
      expect(readReport(shard.stdout, 'SweepReport').shard).toEqual({ index: 0, count: 1 });
      for (const [args, kind] of runs) {
        const r = quotient(args);
        expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        readReport(r.stdout, kind as (typeof REPORT_KINDS)[number]);
      }
      expect(new Set(runs.map(([, k]) => k))).toEqual(new Set(REPORT_KINDS));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every command says its exit codes in --help, and docs/cli.md has a row for each', () => {
    const doc = readFileSync(join(ROOT, 'docs/cli.md'), 'utf8');
    const commands = ['check', 'whatif', 'scale', 'test', 'explain', 'diff', 'simulate', 'risk', 'report merge', 'import kubectl', 'export', 'schema'];
    for (const c of commands) {
      const help = quotient([...c.split(' '), '--help']);
      expect(help.stdout, `quotient ${c} --help`).toMatch(/Exit codes: 0 /);
      expect(doc, `docs/cli.md exit-code row for ${c}`).toContain(`| \`${c.replace(' kubectl', '')}\` |`);
    }
  });
  it("a sharing pod's answer (GPU sharing) matches the schema: placement carries gpuMilli, a victim its fraction of a GPU", () => {
    const golden = readFileSync(join(ROOT, 'test/golden/sharing/victims-free-shares.yaml'), 'utf8');
    const dir = mkdtempSync(join(tmpdir(), 'quotient-share-'));
    try {
      // The golden case without its Expect documents is a plain policy.
      writeFileSync(join(dir, 'share.yaml'), golden.slice(0, golden.indexOf('---\nkind: Expect')));
      const r = quotient(['whatif', join(dir, 'share.yaml'), '--query', 'share', '--json']);
      expect(r.status).toBe(0);
      const a = onlyAnswer(r.stdout);
      expect(a.placement).toEqual([{ pod: 0, node: 'n-0', gpus: [0], gpuMilli: 600 }]);
      expect(a.victims.map((v: { gpus: number }) => v.gpus)).toEqual([0.5]);
      const text = quotient(['whatif', join(dir, 'share.yaml'), '--query', 'share']);
      expect(text.stdout).toContain('placement: n-0 gpu 0 (600m)');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
