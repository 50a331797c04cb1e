/**
 * The `quotient` command end to end: the built CLI (dist/cli/main.js, made by
 * `npm run build`, which the pretest script runs) is spawned as a user would run it,
 * and its exit codes, stdout and stderr are checked. Machine output (--json, -o yaml)
 * must hold only the document on stdout.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { yamlText } from '../../src/cli/output.js';
import { onlyAnswer, readReport } from '../helpers/report.js';
import { policyText, quotaEntry, quotaTreeDoc, whatIfDoc, workspaceDoc } from '../helpers/policy-yaml.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const SEEDS = 'policies/inference-preempts-training';

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function quotient(...args: string[]): Run {
  const r = spawnSync(process.execPath, [MAIN, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
    timeout: 15_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A policy with one typo (`prioirty`, line 22 column 5) and nothing else wrong. */
const TYPO_POLICY = policyText(
  quotaTreeDoc(quotaEntry('A', 8, { root: true })),
  workspaceDoc(['A']),
  whatIfDoc('q', '    name: job\n    workspace: ws\n    quota: A\n    prioirty: 5\n    module: DLC\n    resources: { gpu: 1 }\n'),
);

let dir = '';
let typoFile = '';

beforeAll(() => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run \`npm run build\` first`);
  dir = mkdtempSync(join(tmpdir(), 'quotient-cli-'));
  typoFile = join(dir, 'typo.yaml');
  writeFileSync(typoFile, TYPO_POLICY);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('quotient check', () => {
  it('exits 0 on the shipped example policies', () => {
    const r = quotient('check', 'policies');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });

  it('exits 1 on a policy with an unknown field', () => {
    expect(quotient('check', typoFile).status).toBe(1);
  });

  it('prints a CheckReport {apiVersion, kind, findings} with --json, located at the typo', () => {
    const r = quotient('check', typoFile, '--json');
    expect(r.status).toBe(1);
    const doc = readReport(r.stdout, 'CheckReport') as { findings: Array<Record<string, unknown>> };
    expect(Object.keys(doc)).toEqual(['apiVersion', 'kind', 'findings']);
    // The typo is the one finding: the required `priority` it leaves out is not reported again.
    expect(doc.findings).toHaveLength(1);
    const typo = doc.findings.find((f) => f.code === 'policy/unknown-field');
    expect(typo).toBeDefined();
    expect(Object.keys(typo!).sort()).toEqual(['code', 'column', 'end', 'file', 'hint', 'line', 'message', 'path', 'severity', 'stage', 'start']);
    expect(typo).toMatchObject({ file: typoFile, line: 22, column: 5, severity: 'error', path: 'spec.submit.prioirty', stage: 'validate' });
    for (const f of doc.findings) expect(typeof f.message).toBe('string');
  });

  it('exits 2 with a message on stderr and nothing on stdout when a file is missing', () => {
    const r = quotient('check', join(dir, 'no-such-file.yaml'));
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no-such-file.yaml');
  });
});

describe('quotient whatif', () => {
  it('prints a WhatIfReport whose answers array holds the one answer, naming the victim, the rule with its policy line and codes', () => {
    const r = quotient('whatif', SEEDS, '--query', 'team-a-inference', '--json');
    expect(r.status).toBe(0);
    const answer = onlyAnswer(r.stdout) as Record<string, unknown> & { victims: Array<Record<string, unknown>>; reasons: Array<{ code: string }> };
    expect(answer).toMatchObject({ query: 'team-a-inference', decision: 'preempt', standing: 'in-quota' });
    expect(answer.victims).toHaveLength(1);
    expect(answer.victims[0]).toMatchObject({ job: 'train-b-llm', rule: 'Quota1/childPreemption', code: 'victim/child-preemption' });
    expect(answer.lostGpuHours).toBe(answer.victims[0]!.lostGpuHours);
    expect(answer.reasons.map((x) => x.code)).toContain('preempt/victims');
    expect(String(answer.victims[0]!.source)).toMatch(/quotas\.yaml:14:9$/);
  });

  it('prints the same shape for several queries: the answers array grows', () => {
    const r = quotient('whatif', SEEDS, '--query', 'team-a-inference', 'team-b-wrong-module', '--json');
    expect(r.status).toBe(0);
    const answers = readReport(r.stdout, 'WhatIfReport').answers as Array<{ query: string; decision: string }>;
    expect(answers.map((a) => [a.query, a.decision])).toEqual([
      ['team-a-inference', 'preempt'],
      ['team-b-wrong-module', 'reject'],
    ]);
  });

  it('prints YAML with -o yaml', () => {
    const r = quotient('whatif', SEEDS, '--query', 'team-a-inference', '-o', 'yaml');
    expect(r.status).toBe(0);
    expect(r.stdout.trimStart().startsWith('{')).toBe(false);
    const doc = parseYaml(r.stdout) as { kind: string; answers: Array<{ decision: string; victims: Array<{ job: string }> }> };
    expect(doc.kind).toBe('WhatIfReport');
    const answer = doc.answers[0]!;
    expect(answer.decision).toBe('preempt');
    expect(answer.victims.map((v) => v.job)).toEqual(['train-b-llm']);
  });

  it('answers an ad-hoc job given with --submit', () => {
    const r = quotient('whatif', SEEDS, '--submit', 'quota=Quota1', 'workspace=workspace-a', 'module=EAS', 'priority=9', 'pods=2', 'gpu=8', '--json');
    expect(r.status).toBe(0);
    const answer = onlyAnswer(r.stdout) as { decision: string; quota: string; victims: Array<{ job: string }> };
    expect(answer).toMatchObject({ decision: 'preempt', quota: 'Quota1' });
    expect(answer.victims.map((v) => v.job)).toEqual(['train-b-llm']);
  });

  it('exits 2 and answers nothing for a policy with errors', () => {
    const r = quotient('whatif', typoFile, '--json');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('policy/unknown-field');
  });

  it('exits 1 with --fail-on-preempt when an answer preempts, 0 when none does', () => {
    expect(quotient('whatif', SEEDS, '--query', 'team-a-inference', '--fail-on-preempt', '--json').status).toBe(1);
    expect(quotient('whatif', SEEDS, '--query', 'team-b-wrong-module', '--fail-on-preempt', '--json').status).toBe(0);
  });

  it('exits 2 for a --query no WhatIf has', () => {
    const r = quotient('whatif', SEEDS, '--query', 'no-such-query', '--json');
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no-such-query');
  });
});

describe('quotient --help', () => {
  it.each([[[]], [['check']], [['whatif']], [['explain']], [['schema']]] as Array<[string[]]>)('exits 0 and prints usage for %j', (command) => {
    const r = quotient(...command, '--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Usage: quotient');
  });

  it('says which command is unknown, for `help NAME` as for `NAME` (exit 2)', () => {
    for (const args of [['nosuch'], ['help', 'nosuch']]) {
      const r = quotient(...args);
      expect(r.status, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain("unknown command 'nosuch'");
    }
    expect(quotient('help', 'check').status).toBe(0);
  });
});

describe('-o yaml', () => {
  it('quotes the strings a YAML 1.1 reader would take for booleans or timestamps (yes, on, no, y, dates)', () => {
    const doc = { job: 'yes', quota: 'on', team: 'no', flag: 'y', start: '2026-11-20T13:00:00.000Z', count: 5, ok: true };
    const text = yamlText(doc);
    expect(parseYaml(text, { version: '1.1' })).toEqual(doc);
    expect(parseYaml(text)).toEqual(doc);
    // A real report: the estimated start times stay strings for a YAML 1.1 reader.
    const r = quotient('whatif', 'policies/when-will-it-start', '-o', 'yaml');
    const json = quotient('whatif', 'policies/when-will-it-start', '--json');
    expect(r.stdout).toMatch(/start: "2026-/);
    expect(parseYaml(r.stdout, { version: '1.1' })).toEqual(JSON.parse(json.stdout));
  });
});
