/**
 * The editor features of `quotient lsp`, driven over stdio as an editor would: hover on a
 * quota (guarantee, usage, the rules `explain` compiles that name it) and on a field (its
 * documentation from the policy format), completion of a quota reference and of field
 * names, go to definition, the outline, renaming a quota across files, the did-you-mean
 * quick fix, the what-if lens, and a broken file that leaves the server answering.
 */
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompletionItem, CompletionList, DocumentSymbol, Location, TextEdit } from 'vscode-languageserver-protocol';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { quotient } from '../helpers/run-cli.js';
import { tempDirs } from '../helpers/temp-dirs.js';
import { LspClient, positionOf, ROOT } from './lsp-client.js';

const temp = tempDirs('quotient-lsp-features-');

const labels = (r: CompletionItem[] | CompletionList | null): string[] => (Array.isArray(r) ? r : (r?.items ?? [])).map((i) => i.label);

/** The text with the edits applied (as an editor applies a WorkspaceEdit). */
function applyEdits(text: string, edits: TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create('file:///x', 'yaml', 0, text), edits);
}

describe('quotient lsp features', () => {
  const work = temp();
  const folder = join(work, 'team-isolation');
  const files = ['cluster.yaml', 'quotas.yaml', 'whatif.yaml'];
  const texts = new Map<string, string>();
  const uris = new Map<string, string>();
  let client: LspClient;

  beforeAll(async () => {
    cpSync(join(ROOT, 'policies', 'team-isolation'), folder, { recursive: true });
    const started = await LspClient.start(work);
    client = started.client;
    expect(started.init.capabilities.hoverProvider).toBe(true);
    for (const f of files) {
      texts.set(f, readFileSync(join(folder, f), 'utf8'));
      uris.set(f, await client.open(join(folder, f), texts.get(f)!));
    }
    await client.until(() => files.every((f) => client.diagnostics(uris.get(f)!) !== undefined));
  });
  afterAll(async () => {
    expect(await client?.stop()).toBe(0);
  });

  /** Puts every file back as shipped and waits until the server has checked them again. */
  async function restore(): Promise<void> {
    const count = client.published.length;
    for (const f of files) await client.change(uris.get(f)!, texts.get(f)!);
    await client.until(() => files.every((f) => client.published.slice(count).some((p) => p.uri === uris.get(f))));
  }

  it('answers initialize with the features it serves', async () => {
    const { client: other, init } = await LspClient.start(work);
    const caps = init.capabilities;
    expect(
      [caps.completionProvider, caps.definitionProvider, caps.referencesProvider, caps.documentSymbolProvider, caps.renameProvider, caps.codeActionProvider, caps.codeLensProvider].every(Boolean),
    ).toBe(true);
    expect(init.serverInfo?.name).toBe('quotient');
    expect(await other.stop()).toBe(0);
  });

  it('hovers a quota with its guarantee, usage and the rules that name it', async () => {
    const text = texts.get('quotas.yaml')!;
    const hover = await client.hover(uris.get('quotas.yaml')!, positionOf(text, 'name: Quota1', 0, 8));
    const value = (hover?.contents as { value: string }).value;
    expect(value).toContain('quota Quota1');
    expect(value).toContain('guarantee (min): 128 GPU');
    expect(value).toContain('usage in the snapshot: 128 GPU');
    // The rules are explain's: every rule `explain --json` lists for the quota appears, with its sentence.
    const explained = JSON.parse(quotient(['explain', '--json', folder]).stdout).policies[0].rules.filter((r: { quota: string }) => r.quota === 'Quota1');
    expect(explained.length).toBeGreaterThan(0);
    for (const r of explained) {
      expect(value).toContain(`\`${r.name}\``);
      expect(value).toContain(r.summary);
    }
    expect(value).toContain('Quota1/childPreemption');
  });

  it('hovers a preemption clause with the rule it compiles to and explain’s sentence', async () => {
    const text = texts.get('quotas.yaml')!;
    const hover = await client.hover(uris.get('quotas.yaml')!, positionOf(text, 'preemptiblePriority', 0, 3));
    const value = (hover?.contents as { value: string }).value;
    const rule = JSON.parse(quotient(['explain', '--json', folder]).stdout).policies[0].rules.find((r: { name: string }) => r.name === 'Quota1/childPreemption');
    expect(value).toContain('rule `Quota1/childPreemption`');
    expect(value).toContain(rule.summary);
    // And the field's own documentation below it.
    expect(value).toContain('**preemptiblePriority**');
  });

  it('hovers a priority range with the running jobs it covers', async () => {
    const text = texts.get('quotas.yaml')!;
    const hover = await client.hover(uris.get('quotas.yaml')!, positionOf(text, 'preemptiblePriority: 1-3', 0, 'preemptiblePriority: '.length + 1));
    const value = (hover?.contents as { value: string }).value;
    // Below Quota1 at priority 1-3 (cluster.yaml): train-b-secret-llm (2) and dsw-c-labeling (1); train-b-eval (5) and dsw-c-confidential (6) are not.
    expect(value).toContain('priority 1-3 covers 2 running jobs below Quota1');
    expect(value).toContain('train-b-secret-llm (Quota1.1, priority 2)');
    expect(value).toContain('dsw-c-labeling (Quota1.2, priority 1)');
  });

  it('hovers a running job with its standing in the snapshot', async () => {
    const text = texts.get('cluster.yaml')!;
    const hover = await client.hover(uris.get('cluster.yaml')!, positionOf(text, 'dsw-c-labeling', 0, 2));
    // Team C runs 80 GPUs on Quota1.2, whose guarantee is 80: every job of it is in quota.
    expect((hover?.contents as { value: string }).value).toContain('**job dsw-c-labeling** (running, in-quota)');
  });

  it('hovers a field with its documentation from the policy format', async () => {
    const text = texts.get('quotas.yaml')!;
    const hover = await client.hover(uris.get('quotas.yaml')!, positionOf(text, 'allowedModules', 0, 3));
    const schema = JSON.parse(readFileSync(join(ROOT, 'schemas/input/quotatree.json'), 'utf8'));
    const described = schema.$defs.__schema0.properties.allowedModules.description as string;
    expect(described.length).toBeGreaterThan(10);
    expect((hover?.contents as { value: string }).value).toContain(described);
  });

  it('completes a quota reference with the quotas the policy declares, and field names where a key goes', async () => {
    const uri = uris.get('whatif.yaml')!;
    const text = texts.get('whatif.yaml')!;
    const atRef = await client.completion(uri, positionOf(text, 'quota: Quota1,', 0, 'quota: '.length));
    expect(labels(atRef).sort()).toEqual(['Quota1', 'Quota1.1', 'Quota1.2']);
    // A key being typed in a quota: the fields a quota may have that it does not have yet.
    const quotas = uris.get('quotas.yaml')!;
    const typing = texts.get('quotas.yaml')!.replace('min: { gpu: 80 }\n', 'min: { gpu: 80 }\n          recl\n');
    await client.change(quotas, typing);
    const atKey = labels(await client.completion(quotas, positionOf(typing, '          recl\n', 0, 14)));
    expect(atKey).toEqual(expect.arrayContaining(['reclaim', 'allowedRoles', 'childPreemption']));
    expect(atKey).not.toContain('min');
    await restore();
    const enumAt = labels(await client.completion(uri, positionOf(text, 'module: EAS', 0, 'module: '.length)));
    expect(enumAt).toEqual(expect.arrayContaining(['DLC', 'DSW', 'EAS']));
  });

  it('goes to a quota’s declaration from a reference in another file', async () => {
    const text = texts.get('whatif.yaml')!;
    const found = (await client.definition(uris.get('whatif.yaml')!, positionOf(text, 'Quota1.2', 0, 3))) as Location[];
    expect(found).toHaveLength(1);
    expect(found[0]!.uri).toBe(uris.get('quotas.yaml'));
    expect(found[0]!.range.start).toEqual(positionOf(texts.get('quotas.yaml')!, 'name: Quota1.2', 0, 6));
  });

  it('outlines the quota tree', async () => {
    const symbols = (await client.symbols(uris.get('quotas.yaml')!)) as DocumentSymbol[];
    const tree = symbols.find((s) => s.name.startsWith('QuotaTree'))!;
    expect(tree.children?.map((c) => c.name)).toEqual(['Quota1']);
    expect(tree.children?.[0]?.children?.map((c) => c.name)).toEqual(['Quota1.1', 'Quota1.2']);
  });

  it('renames a quota in every file that declares or names it, leaving a clean policy', async () => {
    const refs = (await client.references(uris.get('whatif.yaml')!, positionOf(texts.get('whatif.yaml')!, 'Quota1.2', 0, 2))) as Location[];
    const edit = await client.rename(uris.get('whatif.yaml')!, positionOf(texts.get('whatif.yaml')!, 'Quota1.2', 0, 2), 'TeamC');
    const changes = edit?.changes ?? {};
    expect(Object.keys(changes).sort()).toEqual(files.map((f) => uris.get(f)!).sort());
    expect(Object.values(changes).flat()).toHaveLength(refs.length);
    const count = client.published.length;
    for (const f of files) {
      const renamed = applyEdits(texts.get(f)!, changes[uris.get(f)!] ?? []);
      // Every use is renamed; comments, which name it in prose, are the author's to reword.
      expect(renamed.replace(/#.*$/gm, '')).not.toMatch(/Quota1\.2\b/);
      await client.change(uris.get(f)!, renamed);
    }
    await client.until(() => files.every((f) => client.published.slice(count).some((p) => p.uri === uris.get(f))));
    await new Promise((r) => setTimeout(r, 300));
    for (const f of files) expect(client.diagnostics(uris.get(f)!)).toEqual([]);
    const hover = await client.hover(uris.get('quotas.yaml')!, positionOf(applyEdits(texts.get('quotas.yaml')!, changes[uris.get('quotas.yaml')!]!), 'name: TeamC', 0, 7));
    expect((hover?.contents as { value: string }).value).toContain('quota TeamC');
    await restore();
  });

  it('applies the did-you-mean fix of a finding, and the finding goes', async () => {
    const uri = uris.get('quotas.yaml')!;
    const broken = texts.get('quotas.yaml')!.replace('min: { gpu: 48 }', 'mni: { gpu: 48 }');
    let count = client.published.length;
    await client.change(uri, broken);
    await client.until(() => client.published.slice(count).some((p) => p.uri === uri && p.diagnostics.length > 0));
    const diagnostics = client.diagnostics(uri)!;
    expect(diagnostics.map((d) => d.code)).toEqual(['policy/unknown-field']);
    const actions = await client.codeActions(uri, diagnostics);
    expect(actions).toHaveLength(1);
    const action = actions![0] as { title: string; edit: { changes: Record<string, TextEdit[]> } };
    const fixed = applyEdits(broken, action.edit.changes[uri]!);
    expect(fixed).toBe(texts.get('quotas.yaml'));
    count = client.published.length;
    await client.change(uri, fixed);
    await client.until(() => client.published.slice(count).some((p) => p.uri === uri));
    expect(client.diagnostics(uri)).toEqual([]);
    await restore();
  });

  /** Sets quotas.yaml to `broken`, applies the one quick fix offered for `code`, and returns the fixed text and its diagnostics. */
  async function applyFix(broken: string, code: string): Promise<{ title: string; fixed: string; after: string[] }> {
    const uri = uris.get('quotas.yaml')!;
    let count = client.published.length;
    await client.change(uri, broken);
    await client.until(() => client.published.slice(count).some((p) => p.uri === uri && p.diagnostics.length > 0));
    const diagnostics = client.diagnostics(uri)!.filter((d) => d.code === code);
    expect(diagnostics).toHaveLength(1);
    const actions = (await client.codeActions(uri, diagnostics)) as Array<{ title: string; edit: { changes: Record<string, TextEdit[]> } }>;
    expect(actions).toHaveLength(1);
    const fixed = applyEdits(broken, actions[0]!.edit.changes[uri]!);
    count = client.published.length;
    await client.change(uri, fixed);
    await client.until(() => client.published.slice(count).some((p) => p.uri === uri));
    return { title: actions[0]!.title, fixed, after: client.diagnostics(uri)!.map((d) => String(d.code)) };
  }

  it('adds a missing required field where the finding says, for the author to fill in', async () => {
    const broken = texts.get('quotas.yaml')!.replace('          min: { gpu: 80 }\n', '');
    const { title, fixed, after } = await applyFix(broken, 'policy/missing-field');
    expect(title).toBe('Add "min:"');
    // The key, at the quota's indentation, inside Quota1.2's map.
    expect(fixed).toContain('        - name: Quota1.2          # Team C: DSW development\n          min: \n');
    expect(after).not.toContain('policy/missing-field');
    await restore();
  });

  it('ends lowPriority below highPriority, as the finding’s hint says', async () => {
    const broken = texts.get('quotas.yaml')!.replace('      childPreemption:', '      selfPreemption: { highPriority: 5-9, lowPriority: 2-6, modules: [EAS] }\n      childPreemption:');
    const { fixed, after } = await applyFix(broken, 'policy/low-not-below-high');
    expect(fixed).toContain('lowPriority: 2-4,');
    expect(after).toEqual([]);
    await restore();
  });

  it('shows each WhatIf’s decision as a lens', async () => {
    const lenses = await client.codeLens(uris.get('whatif.yaml')!);
    const titles = (lenses ?? []).map((l) => l.command?.title);
    const answered = JSON.parse(quotient(['whatif', '--json', folder]).stdout);
    expect(titles).toHaveLength(4);
    expect(titles[0]).toBe('PREEMPT 1 job · Quota1/childPreemption');
    // Each lens leads with the decision `quotient whatif` gives that query.
    const decisions = (answered.answers ?? answered.policies?.[0]?.answers ?? []).map((a: { decision: string }) => a.decision.toUpperCase());
    expect(decisions).toHaveLength(4);
    expect(titles.map((t) => t?.split(' ')[0])).toEqual(decisions);
  });

  it('survives a broken file: reports it and keeps answering', async () => {
    const uri = uris.get('quotas.yaml')!;
    const count = client.published.length;
    const garbage = 'apiVersion: quotient.dev/v1\nkind: QuotaTree\nspec: [ {{ : : \n\t- ]]] "unclosed\n\u0000';
    await client.change(uri, garbage);
    await client.until(() => client.published.slice(count).some((p) => p.uri === uri));
    expect(client.diagnostics(uri)!.length).toBeGreaterThan(0);
    for (const at of [0, 10, 40, 60]) {
      const position = { line: Math.floor(at / 20), character: at % 20 };
      await client.hover(uri, position);
      await client.completion(uri, position);
    }
    await client.symbols(uri);
    await client.codeLens(uri);
    await client.change(uri, texts.get('quotas.yaml')!);
    const again = client.published.length;
    await client.until(() => client.published.slice(again).some((p) => p.uri === uri));
    expect(client.diagnostics(uri)).toEqual([]);
    expect(client.child.exitCode).toBeNull();
  });
});
