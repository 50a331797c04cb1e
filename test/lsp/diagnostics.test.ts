/**
 * The server's diagnostics are `quotient check --json`'s findings for the same files: for
 * every shipped example and for broken variants of them (a typo, a dangling reference
 * that lands in other files than the edited one, a YAML syntax error, a bad range), the
 * diagnostics published on every file of the policy, read back as findings, equal check's.
 * The broken text is only in the editor's buffer at first (the disk still holds the clean
 * file): the server must read the buffer, not the disk.
 */
import { cpSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Diagnostic } from 'vscode-languageserver-protocol';
import { quotient } from '../helpers/run-cli.js';
import { tempDirs } from '../helpers/temp-dirs.js';
import { LspClient, ROOT, uriOf } from './lsp-client.js';

const temp = tempDirs('quotient-lsp-diag-');

/** A finding as the editor sees it: where, what, how bad, and the words. */
interface Seen {
  uri: string;
  line: number;
  column: number;
  code: string;
  severity: string;
  message: string;
}

function fromCheck(folder: string): Seen[] {
  const r = quotient(['check', '--json', folder]);
  expect(r.status === 0 || r.status === 1, r.stderr).toBe(true);
  const report = JSON.parse(r.stdout);
  return report.findings.map((f: { file: string; line: number; column: number; code: string; severity: string; message: string; hint: string }) => ({
    uri: uriOf(resolve(ROOT, f.file)),
    line: f.line,
    column: f.column,
    code: f.code,
    severity: f.severity,
    message: f.hint ? `${f.message}\nhint: ${f.hint}` : f.message,
  }));
}

function fromServer(client: LspClient, uris: string[]): Seen[] {
  return uris.flatMap((uri) =>
    (client.diagnostics(uri) ?? []).map((d: Diagnostic) => ({
      uri,
      line: d.range.start.line + 1,
      column: d.range.start.character + 1,
      code: String(d.code),
      severity: d.severity === 1 ? 'error' : 'warning',
      message: typeof d.message === 'string' ? d.message : d.message.value,
    })),
  );
}

const order = (a: Seen, b: Seen): number => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : a.line - b.line || a.column - b.column || (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));

/** One broken variant: the shipped example, the file edited, and the edit. */
const VARIANTS: Array<{ name: string; example: string; file: string; edit: (t: string) => string; codes: string[] }> = [
  { name: 'a misspelt field', example: 'team-isolation', file: 'quotas.yaml', edit: (t) => t.replace('min: { gpu: 48 }', 'mni: { gpu: 48 }'), codes: ['policy/unknown-field'] },
  {
    name: 'a quota renamed in the tree only: its references in other files dangle',
    example: 'team-isolation',
    file: 'quotas.yaml',
    edit: (t) => t.replace('- name: Quota1.2', '- name: Quota1.3'),
    codes: ['policy/unknown-quota'],
  },
  { name: 'a YAML syntax error', example: 'self-level-preemption', file: 'quotas.yaml', edit: (t) => t.replace('spec:', 'spec: [unclosed'), codes: [] },
  { name: 'a misspelt quota in a WhatIf', example: 'team-isolation', file: 'whatif.yaml', edit: (t) => t.replace('quota: Quota1, module: EAS', 'quota: Qouta1, module: EAS'), codes: [] },
];

describe('quotient lsp diagnostics equal check --json', () => {
  const work = temp();
  let client: LspClient;
  beforeAll(async () => {
    cpSync(join(ROOT, 'policies'), work, { recursive: true });
    ({ client } = await LspClient.start(work));
  });
  afterAll(async () => {
    await client?.stop();
  });

  it.each(readdirSync(join(ROOT, 'policies')).sort())('shipped example %s: the same findings (none)', async (example) => {
    const folder = join(work, example);
    const file = readdirSync(folder).find((f) => f.endsWith('.yaml'))!;
    const uri = await client.open(join(folder, file), readFileSync(join(folder, file), 'utf8'));
    await client.until(() => client.diagnostics(uri) !== undefined);
    const uris = readdirSync(folder)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => uriOf(join(folder, f)));
    await client.until(() => uris.every((u) => client.diagnostics(u) !== undefined));
    expect(fromServer(client, uris).sort(order)).toEqual(fromCheck(folder).sort(order));
  });

  it.each(VARIANTS)('$name: the buffer is checked, with check’s findings on every file of the policy', async (v) => {
    const folder = join(temp(), v.example);
    cpSync(join(ROOT, 'policies', v.example), folder, { recursive: true });
    const path = join(folder, v.file);
    const clean = readFileSync(path, 'utf8');
    const broken = v.edit(clean);
    expect(broken).not.toBe(clean);
    const uri = await client.open(path, clean);
    const uris = readdirSync(folder)
      .filter((f) => f.endsWith('.yaml'))
      .map((f) => uriOf(join(folder, f)));
    await client.until(() => uris.every((u) => client.diagnostics(u) !== undefined));
    const count = client.published.length;
    await client.change(uri, broken);
    // Every file of the policy is published again after an edit to one of them.
    await client.until(() => uris.every((u) => client.published.slice(count).some((p) => p.uri === u)));
    // check reads the disk: the same text written there.
    writeFileSync(path, broken);
    const expected = fromCheck(folder).sort(order);
    expect(expected.length).toBeGreaterThan(0);
    for (const code of v.codes) expect(expected.map((f) => f.code)).toContain(code);
    expect(fromServer(client, uris).sort(order)).toEqual(expected);
  });

  it('links the place a finding cites (“already declared at …”) as related information', async () => {
    const folder = join(temp(), 'team-isolation');
    cpSync(join(ROOT, 'policies', 'team-isolation'), folder, { recursive: true });
    const path = join(folder, 'quotas.yaml');
    const clean = readFileSync(path, 'utf8');
    const uri = await client.open(path, clean);
    await client.until(() => client.diagnostics(uri) !== undefined);
    const count = client.published.length;
    await client.change(uri, clean.replace('- name: Quota1.2', '- name: Quota1.1'));
    await client.until(() => client.published.slice(count).some((p) => p.uri === uri && p.diagnostics.some((d) => d.code === 'policy/duplicate-quota')));
    const dup = client.diagnostics(uri)!.find((d) => d.code === 'policy/duplicate-quota')!;
    // The first Quota1.1 is the place the message cites.
    const first = clean.split('\n').findIndex((l) => l.includes('- name: Quota1.1'));
    expect(dup.relatedInformation?.map((r) => [r.location.uri, r.location.range.start.line])).toEqual([[uri, first]]);
  });

  it('points findings of another file of the policy at that file', async () => {
    // The dangling-reference variant: the edit is in quotas.yaml, the findings in whatif.yaml and cluster.yaml.
    const folder = join(temp(), 'team-isolation');
    cpSync(join(ROOT, 'policies', 'team-isolation'), folder, { recursive: true });
    const path = join(folder, 'quotas.yaml');
    const uri = await client.open(path, readFileSync(path, 'utf8'));
    await client.until(() => client.diagnostics(uriOf(join(folder, 'whatif.yaml'))) !== undefined);
    const count = client.published.length;
    await client.change(uri, readFileSync(path, 'utf8').replace('- name: Quota1.2', '- name: Quota1.3'));
    await client.nextOn(uriOf(join(folder, 'whatif.yaml')), count);
    const onWhatIf = client.diagnostics(uriOf(join(folder, 'whatif.yaml'))) ?? [];
    expect(onWhatIf.map((d) => d.code)).toContain('policy/unknown-quota');
  });
});
