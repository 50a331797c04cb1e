/**
 * Bad-input fixtures: a valid base policy, edited by exact-string replacement, with a
 * `«` marker where the finding must point. Tests assert code, line and column against
 * the marker, never message text.
 */
import { loadPolicy } from '../../src/policy/load-policy.js';

/** The marker character placed just before the spot a finding must point at. */
export const MARK = '«';

/** Helpers bound to one base policy text and the file name findings will carry. */
export function markedPolicy(base: string, file: string) {
  return {
    /** The base with each `from` (which must occur exactly once) replaced by `to`. */
    variant(this: void, ...edits: Array<[from: string, to: string]>): string {
      let text = base;
      for (const [from, to] of edits) {
        const at = text.indexOf(from);
        if (at < 0 || text.indexOf(from, at + 1) >= 0) throw new Error(`"${from}" must occur exactly once in the base policy`);
        text = text.slice(0, at) + to + text.slice(at + from.length);
      }
      return text;
    },
    /** Loads `text` as the file, at the fixtures' fixed time. */
    load(this: void, text: string) {
      return loadPolicy([{ path: file, text }], { now: Date.parse('2026-11-20T12:00:00Z') });
    },
  };
}

/** Strips the markers; returns the clean text and each marker's 1-based line and column. */
export function located(marked: string): { text: string; marks: Array<{ line: number; column: number }> } {
  const marks: Array<{ line: number; column: number }> = [];
  const lines = marked.split('\n').map((line, i) => {
    let out = '';
    for (const ch of line) {
      if (ch === MARK) marks.push({ line: i + 1, column: out.length + 1 });
      else out += ch;
    }
    return out;
  });
  return { text: lines.join('\n'), marks };
}
