/**
 * A property over generated command lines with an output flag (`simulate --html`,
 * `export --report`, `test --save`): whatever the target — a file the command reads, a
 * file of the policy folder it does not read, a symlink or hard link to one of those, a
 * new name inside or outside the policy folder, an earlier output of quotient's, a file
 * of the user's, with or without --force — no file but the target itself changes (bytes
 * or mode), and the exit is 2 exactly when the target is an input (or, without --force,
 * a file quotient did not write), with nothing on stdout and no stack trace.
 *
 * Each case spawns the real CLI in a fresh scratch folder (output-fixture.ts), so the
 * run count is small (QUOTIENT_OUTPUT_RUNS, default 24) and seeded; the branches every
 * case reached are counted and each must be reached at least once.
 */
import { linkSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fingerprint, makeFixture, quotientIn } from './output-fixture.js';

const RUNS = Number(process.env.QUOTIENT_OUTPUT_RUNS ?? 24);

/** The files of the scratch folder a target can lead to; all but `jobs.csv` are in the policy folder P. */
const EXISTING = ['P/quotas.yaml', 'P/cluster.yaml', 'P/market.yaml', 'P/whatif.yaml', 'P/prices.csv', 'P/inventory.csv', 'P/jobs.csv', 'jobs.csv'] as const;
/** The files `simulate P` reads besides P's YAML (the market CSVs); `export` reads P's YAML only. */
const MARKET = ['P/prices.csv', 'P/inventory.csv'];

type Command = { cmd: 'simulate'; trace: 'jobs.csv' | 'P/jobs.csv' } | { cmd: 'export'; format: 'pai' | 'kueue' };
type FileTarget =
  { at: 'existing' | 'symlink' | 'hardlink'; file: (typeof EXISTING)[number] } | { at: 'fresh'; where: 'out' | 'P' | 'P/sub'; ext: '.html' | '.txt' | '.yaml' } | { at: 'own' | 'foreign' };
type SaveTarget = 'B' | 'B/sub' | 'out/cex' | 'out/symlinked' | 'out/hardlinked' | '.';
type Case = { kind: 'file'; command: Command; target: FileTarget; force: boolean } | { kind: 'save'; dir: SaveTarget };

const fileTarget: fc.Arbitrary<FileTarget> = fc.oneof(
  fc.record({ at: fc.constantFrom('existing' as const, 'symlink' as const, 'hardlink' as const), file: fc.constantFrom(...EXISTING) }),
  fc.record({ at: fc.constant('fresh' as const), where: fc.constantFrom('out' as const, 'P' as const, 'P/sub' as const), ext: fc.constantFrom('.html' as const, '.txt' as const, '.yaml' as const) }),
  fc.record({ at: fc.constantFrom('own' as const, 'foreign' as const) }),
);
const command: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ cmd: fc.constant('simulate' as const), trace: fc.constantFrom('jobs.csv' as const, 'P/jobs.csv' as const) }),
  fc.record({ cmd: fc.constant('export' as const), format: fc.constantFrom('pai' as const, 'kueue' as const) }),
);
const caseArb: fc.Arbitrary<Case> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('file' as const), command, target: fileTarget, force: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('save' as const), dir: fc.constantFrom<SaveTarget>('B', 'B/sub', 'out/cex', 'out/symlinked', 'out/hardlinked', '.') }) },
);

/** Is `file` (a path in the scratch folder) an input of the command: a file of the policy folder P, or the trace it reads? */
function isInput(c: Command, file: string): boolean {
  return file.startsWith('P/') || (c.cmd === 'simulate' && (file === c.trace || MARKET.includes(file)));
}

/** Sets the target up in `root`; returns its path (relative), whether it is an input, and whether something not quotient's is there. */
function placeTarget(root: string, c: Command, t: FileTarget): { path: string; input: boolean; foreign: boolean; branch: string } {
  switch (t.at) {
    case 'existing':
      return {
        path: t.file,
        input: isInput(c, t.file),
        foreign: true,
        branch: isInput(c, t.file) ? (t.file.endsWith('.yaml') || c.cmd === 'simulate' ? 'refused: a file read' : 'refused: a file of the policy folder') : 'not an input: the user file',
      };
    case 'symlink':
    case 'hardlink': {
      const path = `out/${t.at}-${t.file.replace('/', '-')}`;
      if (t.at === 'symlink') symlinkSync(join(root, t.file), join(root, path));
      else linkSync(join(root, t.file), join(root, path));
      return { path, input: isInput(c, t.file), foreign: true, branch: isInput(c, t.file) ? `refused: a ${t.at} to an input` : `not an input: a ${t.at} to the user file` };
    }
    case 'fresh': {
      const path = `${t.where}/new${t.ext}`;
      const input = t.where !== 'out' && t.ext === '.yaml';
      return { path, input, foreign: false, branch: input ? 'refused: a new YAML file in the policy folder' : `written: a new file${t.where === 'out' ? '' : ' in the policy folder'}` };
    }
    case 'own':
      // An earlier output of quotient's: the mark on its first line.
      writeFileSync(join(root, 'out/old.txt'), '# quotient-output: written by quotient\nold\n', { mode: 0o600 });
      return { path: 'out/old.txt', input: false, foreign: false, branch: 'written: over its own output' };
    case 'foreign':
      writeFileSync(join(root, 'out/notes.txt'), 'the user wrote this\n');
      return { path: 'out/notes.txt', input: false, foreign: true, branch: 'not an input: the user file' };
  }
}

function argsOf(c: Command, target: string, force: boolean): string[] {
  const args = c.cmd === 'simulate' ? ['simulate', 'P', '--trace', c.trace, '--html', target] : ['export', c.format, 'P', '--report', target];
  return force ? [...args, '--force'] : args;
}

function placeSaveDir(root: string, dir: SaveTarget): void {
  if (dir === 'out/symlinked' || dir === 'out/hardlinked') {
    mkdirSync(join(root, dir));
    // A name the save wants (policy.yaml) that leads to B's own policy.yaml.
    if (dir === 'out/symlinked') symlinkSync(join(root, 'B/policy.yaml'), join(root, dir, 'policy.yaml'));
    else linkSync(join(root, 'B/policy.yaml'), join(root, dir, 'policy.yaml'));
  }
}

describe('output flags over generated command lines', () => {
  it('never change a byte of any input, and exit 2 exactly when the target is an input', { timeout: 600_000 }, () => {
    const reached = new Map<string, number>();
    const count = (branch: string) => reached.set(branch, (reached.get(branch) ?? 0) + 1);
    fc.assert(
      fc.property(caseArb, (c) => {
        const root = makeFixture('quotient-outprop-');
        try {
          mkdirSync(join(root, 'out'));
          mkdirSync(join(root, 'P/sub'));
          let args: string[];
          let target: string;
          let expected: number;
          if (c.kind === 'file') {
            const t = placeTarget(root, c.command, c.target);
            target = t.path;
            args = argsOf(c.command, t.path, c.force);
            // P's nodes have no instanceType: export pai refuses them (exit 1, nothing written) once the target passes.
            expected = t.input || (t.foreign && !c.force) ? 2 : c.command.cmd === 'export' && c.command.format === 'pai' ? 1 : 0;
            count(t.branch.startsWith('not an input') ? `${t.branch}${c.force ? ', --force' : ''}` : t.branch);
          } else {
            placeSaveDir(root, c.dir);
            target = join(c.dir, 'policy.yaml');
            args = ['test', 'B', '--seed', '7', '--save', c.dir];
            expected = c.dir.startsWith('B') ? 2 : 1;
            count(expected === 2 ? 'save: refused into the policy folder' : c.dir.includes('linked') ? 'save: a name leading to an input passed over' : 'save: a new file');
          }
          const before = fingerprint(root);
          const r = quotientIn(root, args);
          const after = fingerprint(root);
          expect(r.status, `${args.join(' ')}\n${r.stderr}`).toBe(expected);
          // A stack frame, not a finding's `at <field path>` line.
          expect(r.stderr).not.toMatch(/internal error|\n\s+at .*\.js:\d+/);
          // Nothing but the target itself changed: every input, link and other file as it was.
          for (const [file, was] of Object.entries(before)) if (file !== target) expect(after[file], `${args.join(' ')}: ${file}`).toBe(was);
          if (expected === 2) {
            expect(r.stdout).toBe('');
            expect(after).toEqual(before);
          }
        } finally {
          rmSync(root, { recursive: true, force: true });
        }
      }),
      { seed: 18, numRuns: RUNS },
    );
    const seen = Object.fromEntries(reached);
    // Every kind of target was tried: refused inputs of each kind, and writes that went ahead.
    for (const branch of [
      'refused: a file read',
      'refused: a file of the policy folder',
      'refused: a symlink to an input',
      'refused: a hardlink to an input',
      'refused: a new YAML file in the policy folder',
      'written: a new file',
      'written: over its own output',
      'save: refused into the policy folder',
    ])
      expect(seen[branch] ?? 0, `${branch} in ${JSON.stringify(seen)}`).toBeGreaterThanOrEqual(1);
    expect(Object.entries(seen).filter(([b]) => b.startsWith('not an input')).length, JSON.stringify(seen)).toBeGreaterThanOrEqual(1);
  });
});
