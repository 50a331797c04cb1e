/**
 * Golden cases as data: one YAML file holds the policy, the snapshot, the WhatIf
 * queries and, last, `kind: Expect` documents with the hand-checked answer. An Expect
 * lists only the fields it pins; the runner compares those and nothing else, so a case
 * says exactly what it is about. Victims and placement are compared in order. Every
 * Expect pins its answer's reasons: their codes in order, and where the case is about
 * the wording, substrings of the sentence beside the code.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

export interface Expect {
  query?: string;
  decision?: string;
  standing?: string | null;
  victims?: Array<Record<string, unknown>>;
  placement?: Array<Record<string, unknown>>;
  /** The answer's reasons, in order: each its code, with the text the case is about where it is. */
  reasons: ExpectedReason[];
  /**
   * The answer's `queue` (SEMANTICS 8): the keys named are compared; `started` in order,
   * each entry by the keys it names; `heldBy` by the keys it names (its `reasons` as
   * substrings of its reasons' sentences), or `null`.
   */
  queue?: { position?: number; strategy?: string; started?: Array<Record<string, unknown>>; heldBy?: (Record<string, unknown> & { reasons?: string[] }) | null };
}

/**
 * One expected reason: its code (`quota/over-min`), or its code and substrings its
 * sentence must hold (`{ code: preempt/cannot-help, text: "no preemption can help" }`)
 * where the case pins the wording, not only the reason.
 */
export type ExpectedReason = string | { code: string; text: string | string[] };

/** The code of an expected reason. */
export function expectedCode(r: ExpectedReason): string {
  return typeof r === 'string' ? r : r.code;
}

/** The substrings an expected reason's sentence must hold (none for a code alone). */
export function expectedTexts(r: ExpectedReason): string[] {
  if (typeof r === 'string') return [];
  return typeof r.text === 'string' ? [r.text] : r.text;
}

export interface GoldenCase {
  file: string;
  /** The policy text: the file up to its first Expect document. */
  text: string;
  expects: Expect[];
}

/** Every golden case under `dir` (recursively), sorted by path. */
export function loadGoldenCases(dir: string): GoldenCase[] {
  const out: GoldenCase[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else if (e.name.endsWith('.yaml')) out.push(readCase(full));
    }
  };
  walk(dir);
  return out;
}

function readCase(file: string): GoldenCase {
  const text = readFileSync(file, 'utf8');
  const docs = parseAllDocuments(text);
  if (!Array.isArray(docs)) throw new Error(`${file}: no documents`);
  let cut = text.length;
  const expects: Expect[] = [];
  for (const d of docs) {
    const js = d.toJS() as { kind?: string } | null;
    if (js?.kind === 'Expect') {
      cut = Math.min(cut, d.range[0]);
      const { kind: _kind, ...rest } = js as Expect & { kind: string };
      // Every answer pinned pins its reason codes: a reason added, dropped or recoded shows.
      if (!Array.isArray(rest.reasons)) throw new Error(`${file}: an Expect needs "reasons": its answer's reason codes, in order`);
      expects.push(rest);
    }
  }
  if (expects.length === 0) throw new Error(`${file}: a golden case needs at least one "kind: Expect" document`);
  return { file, text: text.slice(0, cut), expects };
}
