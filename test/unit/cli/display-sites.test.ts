/**
 * Nothing unescaped, ever (issue 18 item 4), made structural: text for people is a
 * `Display` (model/display-text.ts), which only the escaper and its checked helpers
 * make, and the sinks take nothing else. The type checker keeps the renderers honest
 * (the `@ts-expect-error` lines below fail `npm run typecheck` if a sink or a renderer
 * took a plain string again); this test keeps the ways around the type closed: no
 * writer to a terminal but the sinks, no cast to `Display`, and the helpers that pass
 * line feeds or colours through used only where the text is Quotient's own.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { renderMarkdown, renderTable } from '../../../src/cli/diff.js';
import { mappingTable } from '../../../src/cli/export.js';
import { fitTable } from '../../../src/cli/fit-table.js';
import { colour, log, say, sayExactly } from '../../../src/cli/output.js';
import { renderAnswer } from '../../../src/cli/render-answer.js';
import { renderFindings, snippet } from '../../../src/cli/render-findings.js';
import { renderReport } from '../../../src/cli/render-report.js';
import { renderScale } from '../../../src/cli/render-scale.js';
import { renderSweep } from '../../../src/simulate/report-document.js';
import { junitReport, tapReport } from '../../../src/cli/test-report.js';
import { renderMarketAnswer } from '../../../src/cli/whatif-market.js';
import { Display, display, escapeDisplay, escapeEchoing, escapeKeepingLines, joinDisplay, laidOutDisplay, paintedDisplay } from '../../../src/model/display-text.js';

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** Every line of src/ matching `pattern`, as `file:line`, comments left out. */
function sitesOf(pattern: RegExp): string[] {
  return sources('src').flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) && !/^\s*(\/\/|\*|\/\*)/.test(line) ? [`${file}:${i + 1}`] : [])),
  );
}

/** The files of `sites`, each once. */
const filesOf = (sites: string[]): string[] => [...new Set(sites.map((s) => s.replace(/:\d+$/, '')))].sort();

describe('the sinks', () => {
  it('take a Display only, never a plain string', () => {
    const name = 'evil\u001b[8m';
    // @ts-expect-error a name printed raw does not compile
    expectTypeOf(say).toBeCallableWith(`  ${name}`);
    // @ts-expect-error nor logged raw
    expectTypeOf(log).toBeCallableWith(`  ${name}`);
    // @ts-expect-error nor written raw
    expectTypeOf(sayExactly).toBeCallableWith(name);
    expectTypeOf(say).toBeCallableWith(display`  ${name}`);
    expectTypeOf(colour.bold).returns.toEqualTypeOf<Display>();
  });

  it('are the only writers to stdout and stderr in src/ (but two one-line notes below the CLI, escaped whole)', () => {
    // read-files.ts: a path named twice, a folder settled; write-in-folder.ts: stale temp files swept.
    expect(filesOf(sitesOf(/process\.(stdout|stderr)\.write\(|console\.(log|error|warn|info)\(/))).toEqual(['src/cli/output.ts', 'src/io/write-in-folder.ts', 'src/policy/parse/read-files.ts']);
  });
});

describe('Display', () => {
  it('is made only in display-text.ts: no cast to it anywhere', () => {
    expect(sitesOf(/as (unknown as )?Display\b|<Display>/).filter((s) => !s.startsWith('src/model/display-text.ts'))).toEqual([]);
  });

  it('keeps what was shown and escapes what was not, in a template', () => {
    const shown = colour.red('x');
    expect(display`${shown} ${'a\nb'} ${3}`.text).toBe(`${shown.text} a\\nb 3`);
    expect(joinDisplay([display`a`, display`b`]).text).toBe('a\nb');
  });

  it('is a real type at run time: a string is escaped in a template, even one that looks laid out', () => {
    expect(display`${'\u001b[31mred\u001b[39m'}`.text).toBe('\\e[31mred\\e[39m');
    expect(escapeDisplay('x')).toBeInstanceOf(Display);
  });

  it('lets line feeds and colours through only where the text is our own', () => {
    // Each helper that keeps a line feed or a colour, and the files that may use it (with why).
    const allowed: Record<string, string[]> = {
      // cli-table3's layout of Display cells.
      laidOutDisplay: ['src/cli/fit-table.ts'],
      // picocolors' output, checked to have only gained colour sequences.
      paintedDisplay: ['src/cli/output.ts'],
      // YAML Quotient wrote (a counterexample), the debug trace.
      escapeKeepingLines: ['src/cli/main.ts', 'src/cli/test-report.ts', 'src/cli/test.ts'],
      // Commander's messages, which quote the arguments.
      escapeEchoing: ['src/cli/output.ts'],
    };
    for (const [helper, files] of Object.entries(allowed)) {
      expect(
        filesOf(sitesOf(new RegExp(`\\b${helper}\\(`))).filter((f) => f !== 'src/model/display-text.ts'),
        helper,
      ).toEqual(files);
    }
  });

  it('refuses a painter that changed the text, and a layout that brought a control character', () => {
    expect(() => paintedDisplay(display`a`, '\u001b[1mb\u001b[22m')).toThrow();
    expect(paintedDisplay(display`a`, '\u001b[1ma\u001b[22m').text).toBe('\u001b[1ma\u001b[22m');
    expect(() => laidOutDisplay('a\u0007b')).toThrow();
    expect(laidOutDisplay('│ a │\n│ b │').text).toBe('│ a │\n│ b │');
  });

  it('keeps the layout of text Quotient wrote, and escapes an echoed argument whole', () => {
    expect(escapeKeepingLines('a: 1\n\tb: "\u202e"\n').text).toBe('a: 1\n\tb: "\\u{202E}"\n');
    const arg = '--x\nFORGED\u001b[8m';
    expect(escapeEchoing(`error: unknown option '${arg}'\n(Did you mean --y?)\n`, [arg]).text).toBe("error: unknown option '--x\\nFORGED\\e[8m'\n(Did you mean --y?)\n");
  });
});

describe('every renderer', () => {
  it('gives a Display', () => {
    // The renderers and print sites of the CLI; each command prints through one of them or a `display` template.
    expectTypeOf(renderAnswer).returns.toEqualTypeOf<Display>();
    expectTypeOf(renderScale).returns.toEqualTypeOf<Display>();
    expectTypeOf(renderFindings).returns.toEqualTypeOf<Display>();
    expectTypeOf(snippet).returns.toEqualTypeOf<Display[]>();
    expectTypeOf(renderReport).returns.toEqualTypeOf<Display>();
    expectTypeOf(renderSweep).returns.toEqualTypeOf<Display>();
    expectTypeOf(renderMarketAnswer).returns.toEqualTypeOf<Display>();
    expectTypeOf(renderTable).returns.toEqualTypeOf<Display>();
    expectTypeOf(renderMarkdown).returns.toEqualTypeOf<Display>();
    expectTypeOf(mappingTable).returns.toEqualTypeOf<Display>();
    expectTypeOf(junitReport).returns.toEqualTypeOf<Display>();
    expectTypeOf(tapReport).returns.toEqualTypeOf<Display>();
    expectTypeOf(fitTable).returns.toEqualTypeOf<Display>();
  });
});
