/**
 * The text edits of `scale --apply` (src/policy/write/write-min.ts): each changed token, or a
 * new `standing` line / pair, and nothing else. The first case is the reported
 * corruption: a block-style job without a `standing:` line got a character offset where
 * a line break belongs (`- name: j1447      standing: borrowing`).
 */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { planScaleWrite, type ScaleWrite } from '../../../src/policy/write/write-min.js';
import { coded } from '../../helpers/codes.js';

const write = (values: Record<string, number>, standings: Record<string, string> = {}): ScaleWrite => ({ values: new Map(Object.entries(values)), standings: new Map(Object.entries(standings)) });

function one(text: string, w: ScaleWrite): string {
  const out = planScaleWrite([{ path: 'f.yaml', text }], w).get('f.yaml');
  if (out === undefined) throw new Error('nothing planned');
  return out;
}

const CLUSTER_HEAD = 'kind: Cluster\nspec:\n  jobs:\n';

describe('standing edits', () => {
  it("puts a block job's new standing on its own line after the name line, comment kept", () => {
    const text = `${CLUSTER_HEAD}    - name: j1447      # the notebooks\n      quota: Q\n    - name: j2\n      quota: Q\n`;
    expect(one(text, write({}, { j1447: 'borrowing' }))).toBe(`${CLUSTER_HEAD}    - name: j1447      # the notebooks\n      standing: borrowing\n      quota: Q\n    - name: j2\n      quota: Q\n`);
  });

  it("ends the new line with the file's own break (CRLF) and keeps the BOM", () => {
    const text = `\uFEFF${CLUSTER_HEAD}    - name: a\r\n      quota: Q\r\n`.replace(/(?<!\r)\n/g, '\r\n');
    expect(one(text, write({}, { a: 'idle' }))).toBe(text.replace('name: a\r\n', 'name: a\r\n      standing: idle\r\n'));
  });

  it('adds a line break first when the name pair ends the file', () => {
    expect(one(`${CLUSTER_HEAD}  - quota: Q\n    name: last`, write({}, { last: 'borrowing' }))).toBe(`${CLUSTER_HEAD}  - quota: Q\n    name: last\n    standing: borrowing`);
  });

  it('adds `, standing: X` after the last value of a flow job, before its comment', () => {
    const text = `${CLUSTER_HEAD}    - { name: a,   # first\n        quota: Q }  # end\n`;
    expect(one(text, write({}, { a: 'borrowing' }))).toBe(`${CLUSTER_HEAD}    - { name: a,   # first\n        quota: Q, standing: borrowing }  # end\n`);
  });

  it('replaces an existing standing scalar, quoted or not', () => {
    const text = `${CLUSTER_HEAD}    - { name: a, standing: "in-quota" }\n    - name: b\n      standing: borrowing # was lent\n`;
    expect(one(text, write({}, { a: 'borrowing', b: 'in-quota' }))).toBe(`${CLUSTER_HEAD}    - { name: a, standing: borrowing }\n    - name: b\n      standing: in-quota # was lent\n`);
  });

  it('refuses (exit 2) when a job whose standing changes is not found, instead of skipping it', () => {
    expect(() => planScaleWrite([{ path: 'f.yaml', text: `${CLUSTER_HEAD}    - name: a\n` }], write({}, { ghost: 'borrowing' }))).toThrow(coded('scale/cannot-apply'));
  });
});

describe('min edits', () => {
  it('replaces only the number, in any style', () => {
    const text = 'kind: QuotaTree\nspec:\n  quotas:\n    - name: R   # root\n      min:\n        gpu: 0x10 # hex\n      children: [ {name: A, min: {gpu: 8}} ]\n';
    expect(one(text, write({ R: 16, A: 12 }))).toBe(text.replace('0x10', '16').replace('gpu: 8', 'gpu: 12'));
  });

  it('refuses a quota whose min.gpu is not written as a number', () => {
    const text = 'kind: QuotaTree\nspec:\n  quotas:\n    - name: R\n      min: {}\n';
    expect(() => planScaleWrite([{ path: 'f.yaml', text }], write({ R: 4 }))).toThrow(coded('scale/cannot-apply'));
  });
});

describe('the shipped example', () => {
  it('applied to a block-style copy of policies/quota-scaling, still loads', async () => {
    const { readFileSync } = await import('node:fs');
    const files = ['quotas.yaml', 'cluster.yaml', 'scale.yaml', 'whatif.yaml'].map((f) => ({ path: f, text: readFileSync(`policies/quota-scaling/${f}`, 'utf8') }));
    // The cluster's jobs rewritten one key per line, a comment after each name.
    const cluster = files[1];
    if (!cluster) throw new Error('no cluster');
    cluster.text = cluster.text.replace(/^ {4}- \{ (.*) \}$/gm, (line, body: string) =>
      body.startsWith('name:')
        ? `    - ${body
            .split(/, (?![^{]*\})/)
            .join('\n      ')
            .replace(/\n/, '   # a job\n')}`
        : line,
    );
    expect(cluster.text).toContain('- name: dsw-c-notebooks   # a job\n      workspace: workspace-c');
    const planned = planScaleWrite(files, write({ 'Quota1.1': 56, 'Quota1.2': 72 }, { 'dsw-c-notebooks': 'borrowing' }));
    const after = files.map((f) => ({ ...f, text: planned.get(f.path) ?? f.text }));
    const r = loadPolicy(after, { now: 0 });
    expect(r.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(r.policy?.cluster?.jobs.find((j) => j.name === 'dsw-c-notebooks')?.standing).toBe('borrowing');
  });
});
