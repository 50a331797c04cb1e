/**
 * `quotient report merge` checks every shard before merging (issue 27 item 6; cli/read-shards.ts):
 * garbage in the shape of a sweep merged with exit 0 under --json; 10,000 levels of nesting
 * overflowed the stack; 3,000 levels turned 60 KB into an 18.7 MB report. Each is now a located
 * finding (file:line:col, the field's path, a code) and exit 2 with nothing on stdout.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { quotient } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'quotient-merge-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const f = join(dir, name);
  writeFileSync(f, text);
  return f;
}
const shard = (report: unknown) => ({ apiVersion: 'quotient/v1', kind: 'SweepReport', total: 1, shard: { index: 0, count: 1 }, runs: [{ index: 0, policy: 'p', seed: 1, report }] });
/** A list `levels` deep around 1. */
const nested = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;

describe('quotient report merge: shards are checked before they are merged', () => {
  it('refuses a shard whose run holds garbage, at the field, with exit 2 and nothing on stdout', () => {
    const f = file('garbage.json', JSON.stringify(shard({ garbage: true }), null, 2));
    const r = quotient(['report', 'merge', f, '--json']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/garbage\.json:14:17 {2}error {2}report\/invalid-shard {2}runs\[0\]\.report lacks its field "policy"/);
    expect(r.stderr).toContain('runs[0].report has a field "garbage" a SweepReport does not have');
    expect(r.stderr).toContain('at runs[0].report');
  });

  it('refuses a document of another kind, at its kind', () => {
    const f = file('kind.json', JSON.stringify({ ...shard({}), kind: 'SimulateReport' }, null, 2));
    const r = quotient(['report', 'merge', f]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/kind\.json:3:11 {2}error {2}report\/invalid-shard {2}kind must be "SweepReport"/);
  });

  it.each([
    ['10,000', 10_000],
    ['3,000', 3_000],
  ])('refuses nesting %s deep at once where it passes the limit, without a stack trace or a huge report', (_, levels) => {
    const f = file(`deep-${levels}.json`, JSON.stringify(shard('X')).replace('"X"', nested(levels)));
    const started = Date.now();
    const r = quotient(['report', 'merge', f, '--json']);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/deep-\d+\.json:1:\d+ {2}error {2}report\/too-deep/);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at .*\.js:/);
    expect(r.stderr.length).toBeLessThan(2_000);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('refuses YAML nesting too, and an empty file', () => {
    const deep = file('deep.yaml', `apiVersion: quotient/v1\nkind: SweepReport\ntotal: 1\nruns: ${nested(500)}\n`);
    expect(quotient(['report', 'merge', deep]).stderr).toMatch(/deep\.yaml:4:\d+ {2}error {2}report\/too-deep/);
    const empty = quotient(['report', 'merge', file('empty.yaml', '')]);
    expect(empty.status).toBe(2);
    expect(empty.stderr).toContain('report/invalid-shard');
  });
});
