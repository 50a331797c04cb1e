/**
 * A ClusterQueue's `spec.preemption` → Quotient's reclaim and self-level preemption.
 * `reclaimWithinCohort` (Never, LowerPriority, Any) is `reclaim` one to one; Kueue's
 * default is Never. `withinClusterQueue` and `borrowWithinCohort` have no exact
 * counterpart: Kueue lets any workload preempt any of lower priority, Quotient's
 * selfPreemption (PAI's) names a preempting range above a preemptible one and reaches the
 * same-level quotas too. Either becomes the nearest selfPreemption (NEAREST: the split of
 * 1..9 that keeps the most preemptor-victim pairs, 20 of Kueue's 36), and a warning at
 * the field says exactly what differs.
 */
import { MODULES, type ReclaimMode } from '../model/policy.js';
import type { PathSeg } from '../policy/parse/source-doc.js';
import { asObject, type ForeignObject, type Report } from './located-json.js';
import type { LocatedQuota } from './tree-quota.js';

const RECLAIM: Record<string, ReclaimMode> = { Never: 'never', LowerPriority: 'lower-priority', Any: 'any' };

/** The selfPreemption Kueue's LowerPriority policies become. */
export const NEAREST_SELF_PREEMPTION = { highPriority: '5-9', lowPriority: '1-4', modules: [...MODULES] };

const NEAREST_TEXT = `selfPreemption {highPriority: ${NEAREST_SELF_PREEMPTION.highPriority}, lowPriority: ${NEAREST_SELF_PREEMPTION.lowPriority}, modules: ${NEAREST_SELF_PREEMPTION.modules.join(', ')}}`;
const RANGES_DIFFER = `only jobs at priority ${NEAREST_SELF_PREEMPTION.highPriority} preempt, and only jobs at ${NEAREST_SELF_PREEMPTION.lowPriority} (a 4 never preempts a 2, a 9 never preempts a 7), priorities being Kueue's mapped onto 1..9 (import kubectl --priority-map)`;
const HINT = "edit selfPreemption's ranges to your priority classes as they map onto 1..9, or remove it";

/** Reads `spec.preemption` into `q` (reclaim, selfPreemption), warning where it approximates. */
export function readPreemption(o: ForeignObject, spec: Record<string, unknown>, sp: PathSeg[], q: LocatedQuota, report: Report): void {
  const pre = asObject(spec.preemption) ?? {};
  const pp: PathSeg[] = [...sp, 'preemption'];
  if (pre.reclaimWithinCohort === undefined && q.parent !== null) {
    q.reclaim = 'never';
    (q.notes ??= []).push("reclaim never: no preemption.reclaimWithinCohort, Kueue's default Never");
  }
  for (const [key, value] of Object.entries(pre)) {
    if (key === 'reclaimWithinCohort') {
      const mode = typeof value === 'string' ? RECLAIM[value] : undefined;
      if (mode) q.reclaim = mode;
      else
        report.error(
          o.sd,
          [...pp, key],
          'interop/invalid-field',
          `ClusterQueue ${o.name}: reclaimWithinCohort ${JSON.stringify(value)} is not Never, LowerPriority or Any`,
          'Kueue accepts Never, LowerPriority, Any',
        );
    } else if (key === 'withinClusterQueue') {
      if (value === 'Never') continue;
      if (value !== 'LowerPriority' && value !== 'LowerOrNewerEqualPriority') {
        report.error(
          o.sd,
          [...pp, key],
          'interop/invalid-field',
          `ClusterQueue ${o.name}: withinClusterQueue ${JSON.stringify(value)} is not Never, LowerPriority or LowerOrNewerEqualPriority`,
          'Kueue accepts Never, LowerPriority, LowerOrNewerEqualPriority',
        );
        continue;
      }
      q.selfPreemption = { ...NEAREST_SELF_PREEMPTION, modules: [...NEAREST_SELF_PREEMPTION.modules] };
      report.warn(
        o.sd,
        [...pp, key],
        'interop/approximated',
        `ClusterQueue ${o.name}: withinClusterQueue ${value} becomes the nearest ${NEAREST_TEXT}. What differs: in Kueue any workload may preempt any workload of lower priority${value === 'LowerOrNewerEqualPriority' ? ' (or of equal priority and newer)' : ''} in its ClusterQueue; here ${RANGES_DIFFER}${value === 'LowerOrNewerEqualPriority' ? ', and a job of equal priority is never a victim' : ''}; and Quotient's selfPreemption also takes victims from the cohort's other ClusterQueues (what Kueue's borrowWithinCohort does)`,
        HINT,
      );
    } else if (key === 'borrowWithinCohort') {
      const b = asObject(value) ?? {};
      if (b.policy === undefined || b.policy === 'Never') continue;
      if (b.policy !== 'LowerPriority') {
        report.error(
          o.sd,
          [...pp, key, 'policy'],
          'interop/invalid-field',
          `ClusterQueue ${o.name}: borrowWithinCohort.policy ${JSON.stringify(b.policy)} is not Never or LowerPriority`,
          'Kueue accepts Never, LowerPriority',
        );
        continue;
      }
      q.selfPreemption = { ...NEAREST_SELF_PREEMPTION, modules: [...NEAREST_SELF_PREEMPTION.modules] };
      const threshold =
        b.maxPriorityThreshold === undefined
          ? ''
          : `; maxPriorityThreshold ${JSON.stringify(b.maxPriorityThreshold)} (a Kueue priority value) is not carried over: lowPriority ${NEAREST_SELF_PREEMPTION.lowPriority} bounds the victims instead`;
      report.warn(
        o.sd,
        [...pp, key],
        'interop/approximated',
        `ClusterQueue ${o.name}: borrowWithinCohort LowerPriority becomes the nearest ${NEAREST_TEXT}. What differs: in Kueue a workload that borrows may preempt workloads of lower priority in the cohort's other ClusterQueues; here ${RANGES_DIFFER}, whether or not the job borrows, and its own quota's jobs are victims too (what Kueue's withinClusterQueue does)${threshold}`,
        HINT,
      );
    } else {
      report.warn(
        o.sd,
        [...pp, key],
        'interop/no-counterpart',
        `ClusterQueue ${o.name}: preemption.${key} ${JSON.stringify(value)} has no counterpart in Quotient; it is not imported`,
        "Quotient models PAI's self- and child-level preemption",
      );
    }
  }
}
