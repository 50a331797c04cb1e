/**
 * The proof a write is owed before it happens: the new texts, read through the real
 * loader (loadPolicy, as `quotient check` reads them), must load to exactly the intended
 * policy — the old one with the new `min.gpu` values and standings, and nothing else
 * changed. The whole model is compared, every field, with source positions reduced to
 * their file and field path (an added line moves the lines below it, nothing else).
 */
import { QuotientError, formatLoc } from '../../errors.js';
import type { Policy } from '../../model/policy.js';
import { loadPolicy } from '../load-policy.js';
import type { InputFile } from '../parse/source-doc.js';
import type { ScaleWrite } from './write-min.js';

/** A copy without `line`/`column` in source positions (objects with file, line and column). */
function withoutPositions(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutPositions);
  if (v instanceof Map) return [...v].map(withoutPositions);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const isSource = typeof o.file === 'string' && typeof o.line === 'number' && typeof o.column === 'number';
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(o)) if (!(isSource && (k === 'line' || k === 'column'))) out[k] = withoutPositions(x);
  return out;
}

/** The first place two plain values differ, as `path: a ≠ b`; undefined when equal. */
export function firstDifference(a: unknown, b: unknown, path = 'policy'): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return `${path}: ${JSON.stringify(a)} ≠ ${JSON.stringify(b)}`;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: ${a.length} entries ≠ ${b.length}`;
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  for (const k of new Set([...Object.keys(ao), ...Object.keys(bo)])) {
    const d = firstDifference(ao[k], bo[k], `${path}.${k}`);
    if (d) return d;
  }
  return undefined;
}

/** The policy `w` intends: `old` with the new mins and standings. */
export function intendedPolicy(old: Policy, w: ScaleWrite): Policy {
  const copy = structuredClone(old);
  for (const q of copy.quotas) {
    const v = w.values.get(q.name);
    if (v !== undefined) q.min = { ...q.min, gpu: v };
  }
  for (const j of copy.cluster?.jobs ?? []) {
    const s = w.standings.get(j.name);
    if (s !== undefined) j.standing = s as typeof j.standing;
  }
  return copy;
}

/**
 * Throws a QuotientError (exit 2, nothing written) unless `after` loads to exactly the
 * policy `before` loads to with `w` applied. `now` fixes the time both loads assume.
 */
export function proveScaleWrite(before: InputFile[], after: InputFile[], w: ScaleWrite, now: number): void {
  const old = loadPolicy(before, { now });
  if (!old.policy) throw new QuotientError('scale/write-not-proven', 'the policy on disk no longer loads; nothing was written', 'run `quotient check` on it');
  const fresh = loadPolicy(after, { now });
  const hint =
    'the changed value is probably shared through a YAML anchor or merge key, which quotient will not rewrite; apply the change by hand (and report it if the layout is plain: then the edit was wrong)';
  if (!fresh.policy) {
    const e = fresh.findings.find((f) => f.severity === 'error');
    if (e?.code.startsWith('policy/scale-'))
      throw new QuotientError(
        'scale/breaks-other-scaling',
        `with the new mins, a ScaleQuota document of the files would no longer be valid (${formatLoc(e)} ${e.code}: ${e.message}); nothing was written`,
        'update or remove that ScaleQuota document first, then apply again',
      );
    throw new QuotientError('scale/write-not-proven', `the edited files would not load${e ? ` (${formatLoc(e)} ${e.code}: ${e.message})` : ''}; nothing was written`, hint);
  }
  const d = firstDifference(withoutPositions(intendedPolicy(old.policy, w)), withoutPositions(fresh.policy));
  if (d) throw new QuotientError('scale/write-not-proven', `the edited files would not load to the intended policy (${d}); nothing was written`, hint);
}
