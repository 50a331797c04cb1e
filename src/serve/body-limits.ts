/**
 * What a request body may hold, checked on the HTTP thread as the body is read, before
 * anything builds on it: a body nested thousands deep overflows the stack of whatever
 * walks it next (the structured clone that hands it to the engine thread, zod), and one
 * key of 250,000 characters costs the single engine thread seconds and comes back in
 * every message that names it. A job or a PAI request is a few levels deep with short
 * keys, so the bounds sit far above any real body; passing one is a quick 400 whose one
 * finding says where (line and column in the body), as a PAI body's own findings do.
 */
import { scanJson } from '../interop/json-scan.js';
import type { Finding } from '../errors.js';
import { shortText } from '../model/short-text.js';
import { currentLimits } from '../policy/parse/limits.js';

/** The bounds of a request body. */
export const BODY_LIMITS = {
  /** Nested objects and lists: the policy files' own limit (policy/parse/limits.ts). */
  maxDepth: currentLimits().maxDepth,
  /** JSON values of any kind: 100 jobs of 30 fields each is 3,000. */
  maxValues: 50_000,
  /** Characters in one key: every field of a job is a short word, names are at most 253. */
  maxKeyLength: 256,
} as const;

/** The file name a request body's findings carry (as engine answers name it). */
const REQUEST_FILE = 'request';

/** The first bound `text` (its parsed `value`) passes, as a finding; undefined when it fits. */
export function bodyProblem(text: string, value: unknown): Finding | undefined {
  const scan = scanJson(text, { maxDepth: BODY_LIMITS.maxDepth, maxValues: BODY_LIMITS.maxValues });
  const p = scan.problem;
  if (p?.kind === 'too-deep')
    return finding(
      text,
      p.at,
      'serve/too-deep',
      `the body nests objects and lists more than ${BODY_LIMITS.maxDepth} levels deep here`,
      'a job is a few levels deep: send the fields docs/serve.md lists',
    );
  if (p?.kind === 'too-many-values')
    return finding(text, p.at, 'serve/too-many-values', `the body holds more than ${BODY_LIMITS.maxValues.toLocaleString('en-US')} JSON values`, 'send fewer or smaller jobs (at most 100 in submits)');
  const long = longKey(value);
  if (long !== undefined)
    return finding(
      text,
      text.indexOf(JSON.stringify(long).slice(0, 64)),
      'serve/key-too-long',
      `the key "${shortText(long)}" is ${long.length.toLocaleString('en-US')} characters long, over ${BODY_LIMITS.maxKeyLength}`,
      'every field of a job is a short word: see docs/serve.md for the fields',
    );
  return undefined;
}

/** The first key longer than the bound, walking the value without recursion (its depth is bounded already). */
function longKey(value: unknown): string | undefined {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (Array.isArray(v)) {
      for (const item of v) stack.push(item);
      continue;
    }
    for (const [k, item] of Object.entries(v)) {
      if (k.length > BODY_LIMITS.maxKeyLength) return k;
      stack.push(item);
    }
  }
  return undefined;
}

/** A finding at character `at` of the body (line and column from 1). */
function finding(text: string, at: number, code: string, message: string, hint: string): Finding {
  const offset = Math.max(0, Math.min(at, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { file: REQUEST_FILE, line, column: offset - lineStart + 1, code, severity: 'error', path: '', message, hint };
}
