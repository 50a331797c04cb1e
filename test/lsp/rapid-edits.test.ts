/**
 * 200 edits sent as fast as the client can write them leave one final, correct set of
 * diagnostics: after the last edit the server settles on check's findings for the final
 * text, and no notification after it says otherwise. The edits alternate between texts
 * with different findings, so a stale check that published late would show.
 */
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { quotient } from '../helpers/run-cli.js';
import { tempDirs } from '../helpers/temp-dirs.js';
import { LspClient, ROOT, uriOf } from './lsp-client.js';

const temp = tempDirs('quotient-lsp-rapid-');

describe('quotient lsp under rapid edits', () => {
  let client: LspClient | undefined;
  afterAll(async () => {
    await client?.stop();
  });

  it('200 rapid edits leave one final, correct set of diagnostics', async () => {
    const work = temp();
    const folder = join(work, 'team-isolation');
    cpSync(join(ROOT, 'policies', 'team-isolation'), folder, { recursive: true });
    const path = join(folder, 'quotas.yaml');
    const clean = readFileSync(path, 'utf8');
    // Each edit types a different misspelling (a field, a quota's guarantee): every text has its own findings.
    const variant = (i: number): string =>
      i % 3 === 0 ? clean.replace('min: { gpu: 48 }', `mi${'n'.repeat(1 + (i % 5))}: { gpu: 48 }`) : i % 3 === 1 ? clean.replace('min: { gpu: 80 }', `min: { gpu: ${80 + i} }`) : clean;
    ({ client } = await LspClient.start(work));
    const c = client;
    const uri = await c.open(path, clean);
    const uris = ['cluster.yaml', 'quotas.yaml', 'whatif.yaml'].map((f) => uriOf(join(folder, f)));
    await c.until(() => uris.every((u) => c.diagnostics(u) !== undefined));
    const before = c.published.length;
    const last = 199;
    for (let i = 0; i <= last; i++) void c.change(uri, variant(i));
    // The final text: check's findings for it, from the disk.
    writeFileSync(path, variant(last));
    const report = JSON.parse(quotient(['check', '--json', folder]).stdout);
    const findings = report.findings as Array<{ file: string; line: number; column: number; code: string }>;
    const expected = findings.filter((f) => uriOf(resolve(ROOT, f.file)) === uri).map((f) => ({ line: f.line, column: f.column, code: f.code }));
    expect(expected.length).toBeGreaterThan(0);
    const seen = () => (c.diagnostics(uri) ?? []).map((d) => ({ line: d.range.start.line + 1, column: d.range.start.character + 1, code: String(d.code) }));
    await c.until(() => JSON.stringify(seen()) === JSON.stringify(expected));
    // Quiet for a while: nothing stale arrives after the final set.
    const settled = c.published.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(c.published.slice(settled).filter((p) => p.uri === uri)).toEqual([]);
    expect(seen()).toEqual(expected);
    // Debounced: far fewer checks than edits (each check publishes every file of the policy once).
    const onFile = c.published.slice(before).filter((p) => p.uri === uri).length;
    expect(onFile).toBeLessThan(50);
  });
});
