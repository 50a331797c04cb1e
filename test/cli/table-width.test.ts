/**
 * Tables for people fit the width asked for (issue 7 item 9): every command that draws a
 * table (whatif, scale, simulate, whatif --market, diff, export) fits it to COLUMNS (the
 * terminal's width when stdout is one) through fit-table.ts: wrapping at spaces, breaking
 * only a word longer than its column, never the first column's names (a table that cannot
 * fit without that is printed as records), and wider when given room.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/run-cli.js';

/** stdout and stderr together: export draws its table on stderr (stdout holds the objects). */
function run(args: string[], columns: number): string {
  const r = spawnSync(process.execPath, [join(ROOT, 'dist/cli/main.js'), ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: String(columns) }, timeout: 120_000 });
  expect(r.status, r.stderr).toBe(0);
  return `${r.stdout}\n${r.stderr}`;
}

/** Table lines: those drawn with the box characters. */
const tableLines = (out: string): string[] => out.split('\n').filter((l) => /[┌│├└]/.test(l));

const MARKET = ['whatif', 'policies/spot-market', '--trace', 'policies/spot-market/jobs.csv', '--market', 'ecs.gn7i-1gpu=11@39h'];
const DIFF = ['diff', 'docs/examples/quota-scaling-diff/old', 'docs/examples/quota-scaling-diff/new', '--samples', '0'];

describe('tables fit COLUMNS', { timeout: 240_000 }, () => {
  // `names`: first-column values (and short words) that must be printed whole, on one line, at every width.
  // `narrowAnyway`: the table is narrower than 80 at its natural width (so the wide run cannot use more).
  const cases: Array<{ what: string; args: string[]; names: string[]; narrowAnyway?: boolean }> = [
    { what: 'whatif', args: ['whatif', 'policies/inference-preempts-training', '--query', 'team-a-inference'], names: ['train-b-llm'] },
    { what: 'scale', args: ['scale', 'policies/quota-scaling', '--set', 'Quota1.1=56', '--set', 'Quota1.2=72'], names: ['dsw-c-notebooks', 'workspace-b', 'workspace-c'] },
    { what: 'whatif --market', args: MARKET, names: ['teamb-spot-04', 'teamb-spot-08'], narrowAnyway: true },
    { what: 'diff', args: DIFF, names: ['team-b-needs-16', 'dsw-c-notebooks;'] },
    { what: 'export', args: ['export', 'kueue', 'policies/quota-scaling'], names: ['Quota1.1', 'nominalQuota'] },
    { what: 'simulate', args: ['simulate', 'policies/spot-market', '--trace', 'policies/spot-market/jobs.csv'], names: ['team-a', 'Research', 'TeamA/selfPreemption'] },
  ];
  for (const c of cases) {
    it(`${c.what}: every table line within 80 columns, names whole, and wider when given room`, () => {
      const narrow = run(c.args, 80);
      const over = tableLines(narrow).filter((l) => l.length > 80);
      expect(over, over.join('\n')).toEqual([]);
      const wide = run(c.args, 250);
      for (const out of [narrow, wide]) for (const name of c.names) expect(out, name).toMatch(new RegExp(`(^|[\\s│(])${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([\\s│)]|$)`, 'm'));
      // The wide run is not simply the narrow one: some table line uses the room it is given.
      const widest = (out: string) => Math.max(...tableLines(out).map((l) => l.length));
      if (c.narrowAnyway) expect(widest(wide)).toBe(widest(narrow));
      else expect(widest(wide)).toBeGreaterThan(80);
    });
  }
});
