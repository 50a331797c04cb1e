/**
 * What reaches the terminal, and flag values at their edges. `escapeDisplay` is the
 * one function every renderer passes input through; the sinks (say, log) keep only
 * our own colour sequences.
 */
import { describe, expect, it } from 'vitest';
import { MAX_SEED, runsFlag, seedFlag, workersFlag } from '../../../src/cli/flags.js';
import { renderFindings, snippet } from '../../../src/cli/render-findings.js';
import { escapeDisplay, escapeDocument, escapeTerminal, unsafeCharacter } from '../../../src/model/display-text.js';
import type { Finding } from '../../../src/errors.js';
import { coded } from '../../helpers/codes.js';

describe('escaping', () => {
  it('makes every control, bidi and separator character visible', () => {
    expect(escapeDisplay('a\u001b[2Jb\u0000c\td\ne\u202Ef\u2028g\u0085h\u007f').text).toBe('a\\e[2Jb\\0c\\td\\ne\\u{202E}f\\u{2028}g\\u{85}h\\u{7F}');
    expect(escapeDisplay('plain ascii, é and 日本').text).toBe('plain ascii, é and 日本');
  });

  it('keeps our colour sequences and layout at the sink, and nothing else', () => {
    expect(escapeTerminal('\u001b[31merror\u001b[39m\n\tx\u001b[2J\u001b]0;title\u0007')).toBe('\u001b[31merror\u001b[39m\n\tx\\e[2J\\e]0;title\\u{7}');
  });

  it('keeps JSON parseable to the same text', () => {
    const value = { name: 'a\u202Eb\u0085c\u2028' };
    const json = escapeDocument(JSON.stringify(value));
    expect(json).not.toMatch(/[\u0085\u202e\u2028]/);
    expect(JSON.parse(json)).toEqual(value);
  });

  it('allows tabs and line feeds in free text only', () => {
    expect(unsafeCharacter('a\nb')).toEqual({ index: 1, char: '\n' });
    expect(unsafeCharacter('a\nb\tc', true)).toBeUndefined();
    expect(unsafeCharacter('a\u001bb', true)).toEqual({ index: 1, char: '\u001b' });
  });

  it('escapes a finding whose message quotes the input', () => {
    const f: Finding = { file: 'x\u001b[2J.yaml', line: 1, column: 1, code: 'policy/x', severity: 'error', path: 'a', message: 'name "\u001b[2J"', hint: 'h' };
    const out = renderFindings([f], () => undefined).text;
    expect(out).not.toContain('\u001b[2J');
    expect(out).toContain('x\\e[2J.yaml:1:1');
  });
});

describe('snippet', () => {
  const f = (line: number, column: number, start?: number, end?: number): Pick<Finding, 'line' | 'column' | 'start' | 'end' | 'severity'> => ({ line, column, start, end, severity: 'error' });
  it('underlines the span on its line', () => {
    // eslint-disable-next-line no-control-regex -- control characters are what this matches
    expect(snippet('a: 1\nbb: [x]\n'.split('\n'), f(2, 6, 10, 11)).map((l) => l.text.replace(/\u001b\[[0-9;]*m/g, ''))).toEqual(['    2 | bb: [x]', '      |      ^']);
  });

  it('lines the caret up under escaped characters', () => {
    // eslint-disable-next-line no-control-regex -- control characters are what this matches
    expect(snippet(['\tk: v'], f(1, 2, 1, 2))[1]?.text.replace(/\u001b\[[0-9;]*m/g, '')).toBe('      |   ^');
  });

  it('cuts a long line to a window around the spot', () => {
    const line = `${'x'.repeat(5000)}Y${'z'.repeat(5000)}`;
    // eslint-disable-next-line no-control-regex -- control characters are what this matches
    const [shown, caret] = snippet([line], f(1, 5001, 5000, 5001)).map((l) => l.text.replace(/\u001b\[[0-9;]*m/g, ''));
    expect(shown!.length).toBeLessThan(120);
    expect(shown![caret!.indexOf('^')]).toBe('Y');
  });

  it('shows nothing when the line is not in the text (the file changed since)', () => {
    expect(snippet(['a: 1', ''], f(9, 1))).toEqual([]);
  });
});

describe('flags', () => {
  it('--seed: 0 to 2^32-1, nothing else, never wrapped', () => {
    expect(seedFlag('0')).toBe(0);
    expect(seedFlag(String(MAX_SEED))).toBe(MAX_SEED);
    for (const bad of ['', ' ', '4294967296', '-1', '1.5', '1e3', '0x10', 'abc']) expect(() => seedFlag(bad), bad).toThrow(coded('cli/bad-seed'));
    expect(seedFlag(undefined, 2 ** 31 + 5)).toBe(5);
  });

  it('--runs: 1 to the budget', () => {
    expect(runsFlag('200')).toBe(200);
    expect(() => runsFlag('0')).toThrow(coded('cli/bad-runs'));
    expect(() => runsFlag('1000001')).toThrow(coded('cli/too-many-runs'));
  });

  it('--workers: capped to the cores', () => {
    expect(workersFlag('2', 4)).toBe(2);
    expect(workersFlag('200', 4)).toBe(4);
    expect(() => workersFlag('0', 4)).toThrow(coded('cli/bad-workers'));
    expect(() => workersFlag('', 4)).toThrow(coded('cli/bad-workers'));
  });
});
