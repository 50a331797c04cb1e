/**
 * `quotient explain` on a tree under Kueue's rules with fair sharing prints each quota's
 * weighted share now (docs/fair-sharing.md section 3's cohort before r-pretrain: vision
 * 222.2, Kueue's rounded 223; the rest 0), in words and in the ExplainReport; a PAI
 * policy's explain has neither. Runs dist/ (npm run build:ts first).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { schemaErrors } from '../helpers/report.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');
const GOLDEN = readFileSync(join(ROOT, 'test/golden/kueue/fair-sharing-worked-example.yaml'), 'utf8');
const FILE = join(mkdtempSync(join(tmpdir(), 'quotient-explain-fair-')), 'fair.yaml');
writeFileSync(FILE, GOLDEN.slice(0, GOLDEN.indexOf('---\napiVersion: quotient.dev/v1\nkind: WhatIf')));

function explain(...args: string[]): { status: number | null; stdout: string } {
  const r = spawnSync(process.execPath, [MAIN, 'explain', ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  return { status: r.status, stdout: r.stdout };
}

describe('quotient explain: fair sharing', () => {
  it("prints each quota's weighted share and weight", () => {
    const r = explain(FILE);
    expect(r.status).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.includes("fair sharing: each quota's weighted share now"));
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 5).map((l) => l.trim())).toEqual([
      'org  weighted share 0  (weight 1)',
      'research  weighted share 0  (weight 2)',
      'vision  weighted share 223  (weight 1)',
      'nlp  weighted share 0  (weight 1)',
    ]);
  });

  it('the ExplainReport lists them under fairShares, as schemas/explain-report.json says', () => {
    const r = explain('--json', FILE);
    expect(r.status).toBe(0);
    const doc = JSON.parse(r.stdout) as { policies: Array<{ fairShares?: unknown }> };
    expect(schemaErrors('ExplainReport', doc)).toEqual([]);
    expect(schemaErrors('ExplainReport', { ...doc, policies: [{ ...doc.policies[0], fairShares: [{ quota: 'vision', weightedShare: 'huge', weight: 1 }] }] })).not.toEqual([]);
    expect(doc.policies[0]!.fairShares).toEqual([
      { quota: 'org', weightedShare: 0, weight: 1 },
      { quota: 'research', weightedShare: 0, weight: 2 },
      { quota: 'vision', weightedShare: 223, weight: 1 },
      { quota: 'nlp', weightedShare: 0, weight: 1 },
    ]);
  });

  it('a weight-0 borrower is "infinite" in the report, which the schema takes', () => {
    const zero = FILE.replace(/fair\.yaml$/, 'zero.yaml');
    writeFileSync(zero, readFileSync(FILE, 'utf8').replace('        - name: vision\n', '        - name: vision\n          fairSharing: { weight: 0 }\n'));
    const doc = JSON.parse(explain('--json', zero).stdout) as { policies: Array<{ fairShares: Array<{ quota: string; weightedShare: unknown }> }> };
    expect(doc.policies[0]!.fairShares.find((s) => s.quota === 'vision')!.weightedShare).toBe('infinite');
    expect(schemaErrors('ExplainReport', doc)).toEqual([]);
  });

  it('a PAI policy has no fair-sharing lines and no fairShares', () => {
    const pai = join(ROOT, 'test/serve/fixtures/two-teams.yaml');
    expect(explain(pai).stdout).not.toContain('fair sharing');
    const doc = JSON.parse(explain('--json', pai).stdout) as { policies: Array<Record<string, unknown>> };
    expect('fairShares' in doc.policies[0]!).toBe(false);
  });
});
