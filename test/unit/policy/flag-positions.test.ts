/**
 * Values given on the command line (`--submit`, `--set`) are read as a document Quotient
 * builds from the flag; a line or column of that document is nothing the user wrote. Their
 * findings (every stage) and Sources have line and column 0 and no span; a file's keep theirs.
 */
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { parseFiles } from '../../../src/policy/parse/source-doc.js';
import { ONE_ROOT } from '../../helpers/one-root.js';

const tree = { path: 'p.yaml', text: ONE_ROOT };

/** A WhatIf of one job at `priority`, in the file `path` (`--submit`: as whatif --submit builds it from the flag). */
function submitted(path: string, priority: number): { path: string; text: string } {
  return {
    path,
    text: `apiVersion: quotient.dev/v1\nkind: WhatIf\nmetadata: { name: submit }\nspec:\n  submit:\n    name: j\n    workspace: ws\n    quota: Root\n    module: DLC\n    priority: ${priority}\n    resources: { gpu: 1 }\n`,
  };
}

/** [file, code, line, column, has a span] of every finding of loading `files`. */
function places(files: Array<{ path: string; text: string }>): Array<[string, string, number, number, boolean]> {
  return loadPolicy(files).findings.map((f) => [f.file, f.code, f.line, f.column, f.start !== undefined || f.end !== undefined]);
}

describe('positions of command-line values', () => {
  it('gives a schema finding of --submit line and column 0, and no span', () => {
    expect(places([tree, submitted('--submit', 12)])).toEqual([['--submit', 'policy/priority-out-of-range', 0, 0, false]]);
  });

  it('gives a build finding of --set (made from a Source) line and column 0', () => {
    const set = { path: '--set', text: 'apiVersion: quotient.dev/v1\nkind: ScaleQuota\nmetadata: { name: set }\nspec:\n  set: { Nope: 4 }\n' };
    expect(places([tree, set])).toEqual([['--set', 'policy/unknown-quota', 0, 0, false]]);
  });

  it('gives a parse finding of a flag no position either', () => {
    const { findings } = parseFiles([{ path: '--set', text: 'a: [1\n' }]);
    expect(findings.map((f) => [f.file, f.line, f.column, f.start, f.end])).toEqual([['--set', 0, 0, undefined, undefined]]);
  });

  it('gives the Source of a value from a flag line and column 0, and keeps a file’s', () => {
    const whatif = {
      path: 'w.yaml',
      text: '---\napiVersion: quotient.dev/v1\nkind: WhatIf\nmetadata: { name: w }\nspec:\n  submit: { name: j, workspace: ws, quota: Root, module: DLC, priority: 5, resources: { gpu: 1 } }\n',
    };
    const { policy } = loadPolicy([tree, whatif, submitted('--submit', 5)]);
    expect(policy?.whatIfs.map((w) => [w.src.file, w.src.line, w.src.column])).toEqual([
      ['w.yaml', 2, 1],
      ['--submit', 0, 0],
    ]);
    // The same value in a file is located as ever.
    expect(places([tree, submitted('submit.yaml', 12)])).toEqual([['submit.yaml', 'policy/priority-out-of-range', 10, 15, true]]);
  });
});
