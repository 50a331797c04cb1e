/**
 * Imports flow one way (ARCHITECTURE.md): cli → interop → verify → engine → {rules, kernel} →
 * policy → model, with errors.ts and model/ importing nothing of ours, assembly/
 * standing alone, and nothing importing cli/. This test reads every source file's
 * imports and fails on a import against the flow.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/** What each layer may import (besides itself): test/layers.json, which eslint.config.js reads too. */
const { $comment: _why, ...ALLOWED } = JSON.parse(readFileSync('test/layers.json', 'utf8')) as Record<string, string[]>;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

function layerOf(file: string): string {
  const rel = relative('src', file).split('/');
  const top = rel[0] ?? '';
  return rel.length === 1 ? top.replace(/\.ts$/, '') : top;
}

describe('architecture', () => {
  it('keeps every import of src/ inside the layers it may use', () => {
    const violations: string[] = [];
    for (const file of files('src')) {
      const layer = layerOf(file);
      const text = readFileSync(file, 'utf8');
      for (const [, spec = ''] of text.matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
        const target = relative('src', join(file, '..', spec));
        const targetLayer = target.split('/').length === 1 ? target.replace(/\.js$/, '') : target.split('/')[0];
        if (targetLayer === layer) continue;
        if (!(ALLOWED[layer] ?? []).includes(targetLayer ?? '')) violations.push(`${file} imports ${spec} (${layer} → ${targetLayer})`);
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps assembly/ free of imports from src/', () => {
    const bad = files('assembly').filter((f) => /from '\.\.\/src/.test(readFileSync(f, 'utf8')));
    expect(bad).toEqual([]);
  });
});
