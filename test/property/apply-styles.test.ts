/**
 * `scale --apply` on policies written in every YAML style (test/helpers/yaml-styles.ts:
 * block, flow, mixed, comments everywhere, CRLF, BOM, Latin-1 bytes in comments):
 * after applyScaling, the files reload (through readBundles, as every command reads
 * them) to exactly the intended policy, and every byte outside the changed values is
 * unchanged. The byte check is independent of the writer: it finds the changed tokens
 * by parsing the old and the new text itself, cuts them (and an added standing pair or
 * line) out of both, and requires the rest to be identical.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { isMap, isScalar, isSeq, parseAllDocuments, type Node as YamlNode, type YAMLMap } from 'yaml';
import { decodeLossless } from '../../src/io/text-bytes.js';
import { rescaleStandings } from '../../src/model/rescale.js';
import type { Policy } from '../../src/model/policy.js';
import { applyScaling } from '../../src/policy/write/apply-scaling.js';
import { loadPolicy } from '../../src/policy/load-policy.js';
import { readBundles } from '../../src/policy/parse/read-files.js';
import { render, styleArb, stylePolicyArb } from '../helpers/yaml-styles.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 40);
const NOW = Date.parse('2026-11-20T12:00:00Z');
const tmp = mkdtempSync(join(tmpdir(), 'quotient-styles-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The model with source positions cut to file and field path (lines move below an added line). */
function plain(p: Policy): unknown {
  return JSON.parse(JSON.stringify(p), (k, v: unknown) => (k === 'line' || k === 'column' ? undefined : v));
}

function maps(text: string, kind: string): YAMLMap[] {
  const out: YAMLMap[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (Array.isArray(doc) || doc.get('kind') !== kind) continue;
    const visit = (n: unknown): void => {
      if (isSeq(n)) n.items.forEach(visit);
      if (isMap(n)) {
        if (n.has('name')) out.push(n);
        visit(n.get('children', true));
      }
    };
    visit(doc.getIn(['spec', kind === 'Cluster' ? 'jobs' : 'quotas'], true));
  }
  return out;
}

/** [start, end) of what was changed or added for these quotas and jobs; checks each new value. */
function changedSpans(text: string, mins: Map<string, number>, standings: Map<string, string>, added: Set<string>, check: boolean): Array<[number, number, string]> {
  const spans: Array<[number, number, string]> = [];
  for (const q of maps(text, 'QuotaTree')) {
    const v = mins.get(String(q.get('name')));
    const gpu = q.getIn(['min', 'gpu'], true) as YamlNode | undefined;
    if (v === undefined || !isScalar(gpu) || !gpu.range) continue;
    if (check) expect(text.slice(gpu.range[0], gpu.range[1])).toBe(String(v));
    spans.push([gpu.range[0], gpu.range[1], '\u0000']);
  }
  for (const j of maps(text, 'Cluster')) {
    const name = String(j.get('name'));
    const to = standings.get(name);
    const node = j.get('standing', true) as YamlNode | undefined;
    if (to === undefined || !isScalar(node) || !node.range) continue;
    const pair = j.items.find((p) => isScalar(p.key) && p.key.value === 'standing');
    const key = pair?.key as YamlNode | undefined;
    if (!added.has(name) || !key?.range) {
      if (check) expect(text.slice(node.range[0], node.range[1])).toBe(to);
      spans.push([node.range[0], node.range[1], '\u0000']);
    } else if (j.flow) {
      // `, standing: X` added after the last value.
      const start = text.lastIndexOf(',', key.range[0]);
      expect(text.slice(start, node.range[1])).toBe(`, standing: ${to}`);
      spans.push([start, node.range[1], '']);
    } else {
      // A whole line `<indent>standing: X<break>` (or `<break><indent>standing: X` at the end).
      const lineStart = Math.max(text.lastIndexOf('\n', key.range[0]), text.lastIndexOf('\r', key.range[0])) + 1;
      const after = text.slice(node.range[1]);
      const rest = /^(\r\n|\n|\r)/.exec(after);
      // The added line ends right after its value (nothing moved onto it), or ends the file.
      expect(rest !== null || after === '', `added standing line of ${name} does not end after its value`).toBe(true);
      const span: [number, number, string] = rest ? [lineStart, node.range[1] + rest[0].length, ''] : [text.slice(0, lineStart).endsWith('\r\n') ? lineStart - 2 : lineStart - 1, node.range[1], ''];
      expect(text.slice(span[0], span[1])).toMatch(new RegExp(`^(\\r?\\n)? *standing: ${to}(\\r?\\n)?$`));
      spans.push(span);
    }
  }
  return spans.sort((a, b) => a[0] - b[0]);
}

function cut(text: string, spans: Array<[number, number, string]>): string {
  let out = '';
  let at = 0;
  // A replaced value leaves a mark (it must be in both texts); an added pair leaves none.
  for (const [s, e, mark] of spans) {
    out += `${text.slice(at, s)}${mark}`;
    at = e;
  }
  return out + text.slice(at);
}

let n = 0;
let applied = 0;

describe('scale --apply in every YAML style', () => {
  it(
    'reloads to exactly the intent and keeps every byte outside the changed values',
    () => {
      fc.assert(
        fc.property(stylePolicyArb, styleArb, fc.nat(), (p, latin1Style, pick) => {
          // Policies are read as UTF-8 only (policy/invalid-utf8): no Latin-1 bytes here; text-bytes.test.ts keeps them.
          const style = { ...latin1Style, latin1: [] };
          const dir = join(tmp, `s${n++}`);
          rmSync(dir, { recursive: true, force: true });
          mkdirSync(dir);
          const files = render(p, style);
          for (const [f, b] of files) writeFileSync(join(dir, f), b);
          const [bundle] = readBundles([dir]);
          if (!bundle) throw new Error('no bundle');
          const old = loadPolicy(bundle.files, { now: NOW });
          if (!old.policy?.cluster) throw new Error(`generated policy does not load: ${JSON.stringify(old.findings.slice(0, 2))}`);
          // A new split of the pool between A and B; skip the splits the scaling refuses.
          const a = pick % (p.nodes * 8 + 1);
          const mins = new Map([
            ['A', a],
            ['B', p.nodes * 8 - a],
          ]);
          const rescale = rescaleStandings(old.policy.quotas, old.policy.cluster.jobs, mins);
          fc.pre(rescale.over.length === 0);
          applied++;
          const standings = new Map(rescale.changes.map((c) => [c.job.name, c.to as string]));
          applyScaling(bundle.files, { values: mins, standings }, NOW);

          const [again] = readBundles([dir]);
          const fresh = loadPolicy(again?.files ?? [], { now: NOW });
          expect(fresh.findings.filter((f) => f.severity === 'error')).toEqual([]);
          const intent = structuredClone(old.policy);
          for (const q of intent.quotas) q.min.gpu = mins.get(q.name) ?? q.min.gpu;
          for (const j of intent.cluster?.jobs ?? []) j.standing = (standings.get(j.name) as typeof j.standing | undefined) ?? j.standing;
          expect(plain(fresh.policy as Policy)).toEqual(plain(intent));

          const added = new Set(p.jobs.filter((j) => !j.standing && standings.has(j.name)).map((j) => j.name));
          for (const [f, before] of files) {
            const oldText = decodeLossless(before);
            const newText = decodeLossless(readFileSync(join(dir, f)));
            const oldMins = new Map([...mins].map(([q]) => [q, Number.NaN]));
            const oldSpans = changedSpans(oldText, oldMins, new Map([...standings].filter(([j]) => !added.has(j))), new Set(), false);
            const newSpans = changedSpans(newText, mins, standings, added, true);
            expect(cut(newText, newSpans)).toBe(cut(oldText, oldSpans));
          }
        }),
        { numRuns: RUNS },
      );
      // Not vacuous: fc.pre skips the splits the scaling refuses (measured none skipped in 40 runs).
      expect(applied).toBeGreaterThanOrEqual(RUNS / 2);
    },
    60_000 + RUNS * 2_000,
  );
});
