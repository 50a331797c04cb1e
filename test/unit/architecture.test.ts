/**
 * Imports flow one way (ARCHITECTURE.md): cli → interop → verify → engine → {rules, kernel} →
 * policy → model, with errors.ts and model/ importing nothing of ours, assembly/
 * standing alone, and nothing importing cli/. This test reads every source file's
 * imports and fails on a import against the flow, on a circle of files importing each
 * other, and on a cli file other than main.ts importing a command file.
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

/** The relative imports (and re-exports) of every file under `dir`, as paths of .ts files. */
function importGraph(dir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files(dir)) {
    const text = readFileSync(file, 'utf8');
    graph.set(
      file,
      [...text.matchAll(/from '(\.{1,2}\/[^']+)'/g)].map(([, spec = '']) => join(file, '..', spec).replace(/\.js$/, '.ts')),
    );
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan), each sorted: the circles of imports. */
function circlesOf(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) circles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return circles;
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

  it('has no circle of files importing each other', () => {
    expect(circlesOf(importGraph('src'))).toEqual([]);
  });

  it('finds a circle of imports, wherever it closes', () => {
    // The search itself, on a small graph: a -> b -> c -> a is one circle, d -> a none.
    const graph = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circlesOf(graph)).toEqual([['a', 'b', 'c']]);
  });

  it('keeps command files apart: no cli file but main.ts imports a command file', () => {
    // A command file registers a command; what two commands share lives below cli/ (simulate/, engine/, ...) or in a shared cli module.
    const cli = files('src/cli');
    const commands = new Set(cli.filter((f) => /export function register[A-Z]/.test(readFileSync(f, 'utf8'))).map((f) => relative('src/cli', f)));
    expect(commands.size).toBeGreaterThanOrEqual(10);
    const crossing = cli
      .filter((f) => relative('src/cli', f) !== 'main.ts')
      .flatMap((f) =>
        [...readFileSync(f, 'utf8').matchAll(/from '\.\/([^']+)\.js'/g)]
          .map(([, m = '']) => `${m}.ts`)
          .filter((m) => commands.has(m) && m !== relative('src/cli', f))
          .map((m) => `${relative('src/cli', f)} imports ${m}`),
      )
      .sort();
    expect(crossing).toEqual([]);
  });
});
