/**
 * BatchPool's workers start without a TypeScript loader the calling process was started
 * with (batch-pool.ts `workerExecArgv`): the worker file is compiled JavaScript, and under
 * tsx it would load as CommonJS with a getter per imported binding (B5 measured answers
 * ~1.6-1.8× slower). Every other flag passes through unchanged, in order.
 */
import { describe, expect, it } from 'vitest';
import { workerExecArgv } from '../../../src/engine/batch-pool.js';

describe('workerExecArgv', () => {
  it('drops tsx given to --import, --loader or --require, in both spellings, and keeps the rest in order', () => {
    expect(
      workerExecArgv([
        '--import',
        'tsx',
        '--max-old-space-size=4096',
        '--import=tsx',
        '--import',
        'file:///work/bench/rss-probe.mjs',
        '--loader',
        '/repo/node_modules/tsx/dist/esm/index.mjs',
        '--require',
        'C:\\repo\\node_modules\\tsx\\dist\\cjs\\index.cjs',
        '--enable-source-maps',
      ]),
    ).toEqual(['--max-old-space-size=4096', '--import', 'file:///work/bench/rss-probe.mjs', '--enable-source-maps']);
  });

  it('keeps a module whose name only contains "tsx"', () => {
    const argv = ['--import', './my-tsx-helpers.mjs', '--require=tsxlike'];
    expect(workerExecArgv(argv)).toEqual(argv);
  });

  it('gives an empty list for an empty one', () => {
    expect(workerExecArgv([])).toEqual([]);
  });
});
