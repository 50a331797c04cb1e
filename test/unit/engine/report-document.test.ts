/**
 * The envelope every machine document has (engine/report-document.ts), shared by the CLI's
 * --json and the server: its apiVersion and kind first, and JSON text that leaves no
 * character a terminal obeys raw yet parses back to the same document.
 */
import { describe, expect, it } from 'vitest';
import { API_VERSION, documentJson, report } from '../../../src/engine/report-document.js';

describe('report document', () => {
  it('puts apiVersion and kind before the body', () => {
    const doc = report('CheckReport', { findings: [] });
    expect(Object.keys(doc)).toEqual(['apiVersion', 'kind', 'findings']);
    expect(doc).toEqual({ apiVersion: API_VERSION, kind: 'CheckReport', findings: [] });
  });

  it('writes JSON with every unsafe character escaped, which reads back as the same document', () => {
    const hostile = { job: 'a\u202Eb\u0085c\u001B[8md\u200Be', note: 'line\nbreak' };
    const text = documentJson(hostile);
    expect(text.endsWith('\n')).toBe(true);
    for (const c of ['\u202E', '\u0085', '\u001B', '\u200B']) expect(text).not.toContain(c);
    expect(text).toContain('\\u202e');
    expect(JSON.parse(text)).toEqual(hostile);
  });
});
