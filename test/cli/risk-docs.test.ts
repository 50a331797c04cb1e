/**
 * docs/risk.md stays true: every `$ quotient risk …` example in it is run on the built CLI
 * (at the width the examples were pasted at, 120 columns) and must print exactly what the
 * page shows; the JSON example's first job must be the real report's.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { quotient, ROOT } from '../helpers/run-cli.js';

interface Example {
  line: number;
  argv: string[];
  shown: string[];
}

/** The `$ quotient risk` commands of a Markdown text with the output lines under each, up to the fence. */
function examples(text: string): Example[] {
  const lines = text.split('\n');
  const out: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = /^\$ quotient (risk .*)$/.exec(lines[i]!);
    if (!m) continue;
    const shown: string[] = [];
    for (let j = i + 1; j < lines.length && !lines[j]!.startsWith('```'); j++) shown.push(lines[j]!);
    out.push({ line: i + 1, argv: m[1]!.trim().split(/\s+/), shown });
  }
  return out;
}

const DOC = readFileSync(join(ROOT, 'docs/risk.md'), 'utf8');
const EXAMPLES = examples(DOC);

describe('docs/risk.md examples', () => {
  it('has its examples', () => {
    expect(EXAMPLES.length).toBeGreaterThanOrEqual(6);
  });

  it.each(EXAMPLES.filter((e) => e.shown.length > 0).map((e) => [`docs/risk.md:${e.line} quotient ${e.argv.join(' ')}`, e] as const))('%s prints what the page shows', (_name, e) => {
    const r = quotient(e.argv, undefined, { COLUMNS: '120' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trimEnd().split('\n')).toEqual(e.shown.join('\n').trimEnd().split('\n'));
  });

  it("shows the JSON report's first job as the command prints it", () => {
    const json = /prints \(the first of the two jobs shown\):\n\n```json\n([\s\S]*?)\n```/.exec(DOC)![1]!;
    const shown = JSON.parse(json) as { jobs: unknown[] };
    const real = JSON.parse(quotient(['risk', 'policies/inference-preempts-training', '--as', 'bob', '--json']).stdout) as { jobs: unknown[] };
    expect(shown).toEqual({ ...real, jobs: real.jobs.slice(0, 1) });
  });
});
