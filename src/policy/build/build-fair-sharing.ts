/**
 * Fair sharing's clauses under `rules: kueue` (SEMANTICS 13): the tree's `fairSharing`
 * (on for every cohort of the tree, with Kueue's preemption strategies) and each quota's
 * `fairSharing.weight`. Kueue's own rules are checked here, each a located error: the
 * strategies must be one of the lists Kueue's Configuration accepts, and a weight is a
 * non-negative quantity that, when not 0, is above 10^-9.
 */
import { KUEUE_FAIR_STRATEGY_LISTS, type KueueFairSharing } from '../../model/kueue-policy.js';
import type { Source } from '../../model/source.js';
import type { Collector } from '../collector.js';
import { sourceAt, type PathSeg, type SourceDoc } from '../parse/source-doc.js';
import type { QuotaInput, QuotaTreeSpec } from '../validate/schema.js';

/** Kueue's smallest non-zero weight (its API validation: "When not 0, Weight must be greater than 10^-9"). */
const MIN_WEIGHT = 1e-9;

/** The tree's fair sharing, or undefined when it is off (no `spec.fairSharing`). */
export function buildFairSharing(c: Collector, sd: SourceDoc, spec: QuotaTreeSpec): KueueFairSharing | undefined {
  const fs = spec.fairSharing;
  if (fs === undefined) return undefined;
  const path: PathSeg[] = ['spec', 'fairSharing'];
  const written = fs.preemptionStrategies;
  if (written === undefined) return { strategies: [...KUEUE_FAIR_STRATEGY_LISTS[2]!], src: sourceAt(sd, path) };
  const allowed = KUEUE_FAIR_STRATEGY_LISTS.find((l) => l.length === written.length && l.every((s, i) => s === written[i]));
  if (allowed === undefined) {
    c.error(
      sd,
      [...path, 'preemptionStrategies'],
      'policy/kueue-fair-strategies',
      `preemptionStrategies [${written.join(', ')}] is not a list Kueue accepts`,
      'use [LessThanOrEqualToFinalShare], [LessThanInitialShare], or [LessThanOrEqualToFinalShare, LessThanInitialShare] (the default, in that order)',
    );
    return undefined;
  }
  return { strategies: [...allowed], src: sourceAt(sd, [...path, 'preemptionStrategies']) };
}

/** A Kubernetes quantity as a weight: `2`, `0.5`, `500m`; undefined when it is not one. */
export function parseWeight(value: number | string): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  const m = /^(\d+(?:\.\d+)?|\.\d+)(m?)$/.exec(value.trim());
  if (m === null) return undefined;
  const n = Number(m[1]);
  return m[2] === 'm' ? n / 1000 : n;
}

/** A quota's fair-sharing weight, when written (absent: Kueue's default 1, left to the reader). */
export function buildFairWeight(c: Collector, sd: SourceDoc, path: PathSeg[], input: QuotaInput): { weight: number; src: Source } | undefined {
  const raw = input.fairSharing?.weight;
  if (raw === undefined) return undefined;
  const at: PathSeg[] = [...path, 'fairSharing', 'weight'];
  const weight = parseWeight(raw);
  if (weight === undefined || (weight > 0 && weight <= MIN_WEIGHT)) {
    c.error(
      sd,
      at,
      'policy/kueue-bad-weight',
      `fairSharing.weight "${String(raw)}" of quota "${input.name}" is not a weight Kueue accepts`,
      'give 0 (always last while borrowing) or a quantity above 10^-9, such as 1, 2, 0.5 or 500m',
    );
    return undefined;
  }
  return { weight, src: sourceAt(sd, at) };
}
