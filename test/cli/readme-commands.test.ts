/**
 * The README's tour runs as written after set-up (issue 7 item 9): every `quotient …`
 * command in it — after a `$ ` prompt, on its own line in a code block, or as a complete
 * inline command — is run on the built CLI and must exit 0; for a `$ ` command the lines
 * of output the README shows (except abbreviated ones, with `…`, and table borders) must
 * be in the real output. A mention (`quotient whatif` alone) or a template
 * (`quotient diff OLD NEW`, `kueue|koordinator`) is not a command. A command that reads
 * data outside the repository (`../shared/…`) is listed, not run.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'dist/cli/main.js');

interface Example {
  line: number;
  argv: string[];
  /** Output lines the README shows under a `$ ` command. */
  shown: string[];
}

/** The commands of a Markdown text. */
function readmeCommands(text: string): { run: Example[]; skipped: string[] } {
  const lines = text.split('\n');
  const run: Example[] = [];
  const skipped: string[] = [];
  const add = (line: number, command: string, shown: string[] = []) => {
    const argv = command.trim().split(/\s+/).slice(1);
    const template = argv.some((a) => /^[A-Z]{3,}$/.test(a) || a.includes('|') || a.includes('...'));
    if (argv.length < 2 || template) return;
    if (argv.some((a) => a.includes('../shared/'))) return void skipped.push(command);
    run.push({ line, argv, shown });
  };
  let fence = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.startsWith('```')) {
      fence = !fence;
      continue;
    }
    if (fence) {
      const m = /^(\$ )?(quotient .*)$/.exec(l);
      if (!m) continue;
      let command = m[2]!;
      while (command.endsWith('\\') && i + 1 < lines.length) command = `${command.slice(0, -1)} ${lines[++i]!.trim()}`;
      const shown: string[] = [];
      if (m[1]) for (let j = i + 1; j < lines.length && !lines[j]!.startsWith('```') && !lines[j]!.startsWith('$ '); j++) shown.push(lines[j]!);
      add(i + 1, command, shown);
    }
  }
  // Inline commands, which may wrap across lines of the paragraph.
  for (const m of text.matchAll(/`(quotient [^`]*)`/g)) add(text.slice(0, m.index).split('\n').length, m[1]!.replace(/\s+/g, ' '));
  return { run, skipped };
}

const dir = mkdtempSync(join(tmpdir(), 'quotient-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
// Commands run in a scratch folder that sees the repository's examples, so files they write (report.html) land there.
for (const name of ['policies', 'docs']) symlinkSync(join(ROOT, name), join(dir, name));

const { run, skipped } = readmeCommands(readFileSync(join(ROOT, 'README.md'), 'utf8'));

describe('README commands', () => {
  it("finds the tour's commands", () => {
    expect(run.length).toBeGreaterThanOrEqual(6);
    expect(skipped.every((c) => c.includes('../shared/'))).toBe(true);
  });

  it.each(run.map((e) => [`README.md:${e.line} quotient ${e.argv.join(' ')}`, e] as const))('%s', (_name, e) => {
    const r = spawnSync(process.execPath, [MAIN, ...e.argv], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', COLUMNS: '200' }, timeout: 200_000 });
    expect(r.status, r.stderr).toBe(0);
    const real = r.stdout.split('\n').map((l) => l.trimEnd());
    for (const shown of e.shown.filter((l) => l.trim() && !l.includes('…') && !/^\s*[┌├└│]/.test(l))) expect(real, `README.md:${e.line} shows "${shown}"`).toContain(shown.trimEnd());
  });
});
