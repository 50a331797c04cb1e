/**
 * `quotient lsp` diagnostic latency (issue 33): how long after an edit the editor has the
 * policy's diagnostics, as an editor sees it — the built server (`node dist/cli/main.js
 * lsp`, `npm run build` first) driven over stdio by the tests' JSON-RPC client, the time
 * from sending a didChange to receiving the edited file's publishDiagnostics, the
 * server's debounce included (its default, 60 ms, unless --debounce is given).
 *
 * - every shipped example (policies/): edits to its quotas.yaml, one at a time, each
 *   waited for; alternately a finding appears and goes (a misspelt field), so every edit
 *   is checked in full;
 * - B3's policy (bench/b3-policy.ts: 10,000 nodes × 8 GPUs, 1,011 quotas): edits to its
 *   quotas.yaml (a guarantee changed back and forth);
 * - memory: the server's resident set (Linux /proc) before and after --memory-edits
 *   edits (default 1,000) to one shipped example.
 *
 *   npm run bench:lsp                          # all three
 *   npm run bench:lsp -- --edits 10 --b3-edits 3 --memory-edits 0
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { LspClient, ROOT } from '../test/lsp/lsp-client.js';
import { b3Policy } from './b3-policy.js';
import { distribution, printRows } from './timing.js';

function flag(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}
const EDITS = flag('--edits', 20);
const B3_EDITS = flag('--b3-edits', 5);
const MEMORY_EDITS = flag('--memory-edits', 1000);
const debounceAt = process.argv.indexOf('--debounce');
const serverArgs = debounceAt >= 0 ? ['--debounce', process.argv[debounceAt + 1] ?? '60'] : [];

if (!existsSync(join(ROOT, 'dist/cli/main.js'))) throw new Error('dist/ is not built: npm run build first');
const work = mkdtempSync(join(tmpdir(), 'quotient-bench-lsp-'));

/** Opens `path` in a started server and times `edits` edits of it (ms each), alternating `a` and `b`. */
async function timeEdits(client: LspClient, path: string, a: string, b: string, edits: number): Promise<number[]> {
  const uri = await client.open(path, a);
  await client.until(() => client.diagnostics(uri) !== undefined, 600_000);
  const out: number[] = [];
  for (let i = 0; i < edits; i++) {
    const count = client.published.length;
    const sent = performance.now();
    await client.change(uri, i % 2 === 0 ? b : a);
    const got = await client.nextOn(uri, count);
    out.push(got.at - sent);
  }
  return out;
}

/** The server's CPU time so far (user + system, ms; Linux /proc, in clock ticks of 10 ms). */
function cpuMs(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /, '')
    .split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The server's resident set in MiB (Linux). */
function rssMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

const row = (name: string, ms: number[]): string[] => {
  const d = distribution(ms.map((x) => x * 1000));
  return [name, String(ms.length), (d.medianUs / 1000).toFixed(1), (d.minUs / 1000).toFixed(1), (d.maxUs / 1000).toFixed(1)];
};

try {
  const rows: string[][] = [];
  cpSync(join(ROOT, 'policies'), join(work, 'policies'), { recursive: true });
  const examples = readdirSync(join(work, 'policies')).sort();
  const { client } = await LspClient.start(join(work, 'policies'), serverArgs);
  const all: number[] = [];
  for (const ex of examples) {
    const path = join(work, 'policies', ex, 'quotas.yaml');
    const text = readFileSync(path, 'utf8');
    // A misspelt field: the finding appears, then goes.
    const broken = text.replace(/\bmin:/, 'mni:');
    const ms = await timeEdits(client, path, text, broken, EDITS);
    all.push(...ms);
    rows.push(row(ex, ms));
  }
  rows.push(row('all shipped examples', all));
  if (MEMORY_EDITS > 0) {
    const path = join(work, 'policies', 'team-isolation', 'quotas.yaml');
    const text = readFileSync(path, 'utf8');
    const before = rssMiB(client.child.pid);
    await timeEdits(client, path, text, text.replace(/\bmin:/, 'mni:'), MEMORY_EDITS);
    const after = rssMiB(client.child.pid);
    console.log(`memory over ${MEMORY_EDITS} edits (team-isolation): RSS ${before.toFixed(0)} MiB before, ${after.toFixed(0)} MiB after`);
  }
  await client.stop();

  if (B3_EDITS > 0) {
    const b3 = b3Policy();
    for (const f of b3.files) {
      mkdirSync(dirname(join(work, f.path)), { recursive: true });
      writeFileSync(join(work, f.path), f.text);
    }
    const path = join(work, 'b3/quotas.yaml');
    const text = readFileSync(path, 'utf8');
    // A project's guarantee one GPU lower: still a valid policy, checked whole each time.
    const m = /min: \{ gpu: (\d+) \}/.exec(text.slice(text.indexOf('children')));
    const edited = m ? text.replace(m[0], `min: { gpu: ${Number(m[1]) - 1} }`) : `${text}\n# edited\n`;
    const { client: big } = await LspClient.start(join(work, 'b3'), serverArgs);
    const opened = performance.now();
    const uri = await big.open(path, text);
    await big.until(() => big.diagnostics(uri) !== undefined, 600_000);
    console.log(`B3 (${b3.stats.nodes} nodes, ${b3.stats.quotas} quotas, ${b3.stats.jobs} jobs): first diagnostics ${(performance.now() - opened).toFixed(0)} ms after open`);
    const cpuBefore = cpuMs(big.child.pid);
    const ms = await timeEdits(big, path, text, edited, B3_EDITS);
    rows.push(row(`B3 ${b3.stats.nodes}-node policy`, ms));
    // Wall time on a shared machine waits for the CPU too: the server's own CPU time per edit beside it.
    console.log(`B3: the server's CPU time per edit ${((cpuMs(big.child.pid) - cpuBefore) / B3_EDITS).toFixed(0)} ms (mean over ${B3_EDITS} edits)`);
    await big.stop();
  }
  console.log(`diagnostic latency after an edit, ms (debounce ${serverArgs[1] ?? '60 (default)'} ms included)`);
  printRows(['policy', 'edits', 'median', 'min', 'max'], rows);
} finally {
  rmSync(work, { recursive: true, force: true });
}
