// Command files (src/cli files that register a command) never import each other: what two
// commands share lives in a helper file or below cli/ (issue 19: `whatif --market` and
// `report` once imported the `simulate` command file).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const CLI = join(__dirname, '../../../src/cli');

function commandFiles(): Set<string> {
  const out = new Set<string>();
  for (const f of readdirSync(CLI)) if (f.endsWith('.ts') && /export function register[A-Z]\w*\(/.test(readFileSync(join(CLI, f), 'utf8'))) out.add(f.replace(/\.ts$/, ''));
  return out;
}

/** Edges command file -> command file it imports. */
export function commandEdges(files: Map<string, string>, commands: Set<string>): string[] {
  const edges: string[] = [];
  for (const [name, text] of files) {
    if (!commands.has(name)) continue;
    for (const m of text.matchAll(/from '\.\/([\w-]+)\.js'/g)) if (commands.has(m[1]!)) edges.push(`${name} -> ${m[1]}`);
  }
  return edges;
}

describe('command files', () => {
  it('are found (the check reaches real files)', () => {
    const commands = commandFiles();
    expect(commands.size).toBeGreaterThanOrEqual(10);
    expect(commands.has('simulate')).toBe(true);
    expect(commands.has('report')).toBe(true);
  });

  it('never import each other', () => {
    const commands = commandFiles();
    const files = new Map([...commands].map((c) => [c, readFileSync(join(CLI, `${c}.ts`), 'utf8')]));
    expect(commandEdges(files, commands)).toEqual([]);
  });

  it('the check sees an import of one command file by another', () => {
    const commands = new Set(['simulate', 'report']);
    const files = new Map([
      ['report', "import { renderSweep } from './simulate.js';"],
      ['simulate', "import { log } from './output.js';"],
    ]);
    expect(commandEdges(files, commands)).toEqual(['report -> simulate']);
  });
});
