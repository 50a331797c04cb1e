/** `quotient lsp` as a command: its help and exit codes, and a bad flag refused with a code before any protocol starts. */
import { describe, expect, it } from 'vitest';
import { quotient } from '../helpers/run-cli.js';

describe('quotient lsp, the command', () => {
  it('says what it is and its exit codes in --help, and is listed in the top-level help', () => {
    const help = quotient(['lsp', '--help']);
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/Exit codes: 0 /);
    expect(help.stdout).toContain('--debounce <ms>');
    expect(quotient(['--help']).stdout).toMatch(/^\s+lsp \[options\]/m);
  });

  it('exits 1 when its input ends without a shutdown request, as the protocol says', () => {
    expect(quotient(['lsp'], '').status).toBe(1);
  });

  it('refuses a bad --debounce with exit 2 and a message naming it, printing nothing on stdout (the protocol’s)', () => {
    for (const bad of ['x', '-1', '1.5', '20000']) {
      const r = quotient(['lsp', '--debounce', bad], '');
      expect(r.status).toBe(2);
      // The message names the value refused (the CLI prints a QuotientError's words, not its code).
      expect(r.stderr).toContain(`--debounce ${bad} is not`);
      expect(r.stdout).toBe('');
    }
  });
});
