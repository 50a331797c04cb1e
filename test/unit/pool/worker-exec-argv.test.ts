/**
 * BatchPool's workers start without a TypeScript loader the calling process was started
 * with (batch-pool.ts `workerExecArgv`): the worker file is compiled JavaScript, and under
 * tsx it would load as CommonJS with a getter per imported binding (B5 measured answers
 * ~1.6-1.8× slower). Every other flag passes through unchanged, in order; with nothing to
 * leave out, the workers inherit the process's flags as Node does by default (given
 * explicitly, Node refuses V8 flags such as --max-old-space-size in a worker).
 */
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { workerExecArgv } from '../../../src/pool/batch-pool.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');

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

  it('leaves the flags to Node (undefined) when there is no tsx to drop, a module whose name only contains "tsx" included', () => {
    expect(workerExecArgv(['--import', './my-tsx-helpers.mjs', '--require=tsxlike'])).toBeUndefined();
    expect(workerExecArgv(['--max-old-space-size=4096'])).toBeUndefined();
    expect(workerExecArgv([])).toBeUndefined();
  });

  it('starts the pool and answers under tsx with a V8 flag, which Node refuses in an explicit worker execArgv', { timeout: 120_000 }, () => {
    const script = [
      "import { BatchPool } from './src/pool/batch-pool.ts';",
      "import { readFileSync, readdirSync } from 'node:fs';",
      "const dir = 'policies/inference-preempts-training';",
      "const files = readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => ({ path: `${dir}/${f}`, text: readFileSync(`${dir}/${f}`, 'utf8') }));",
      'const pool = new BatchPool({ workers: 1 });',
      "try { const [a] = await pool.answerAll('k', files, [{ request: { query: 'team-a-inference' } }]); console.log(a.decision); } finally { await pool.close(); }",
    ].join('\n');
    const r = spawnSync(process.execPath, ['--max-old-space-size=600', '--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 110_000 });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toMatch(/^(admit|preempt|wait|reject)$/);
    expect(r.status).toBe(0);
  });
});
