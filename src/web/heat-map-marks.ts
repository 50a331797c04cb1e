/**
 * What a what-if answer marks on the heat map: the nodes the job would be placed on, and
 * the GPUs of its victims. A victim the caller may see is found by its name on every node
 * it runs on. A hidden victim (`(hidden: WORKSPACE)`) has no name to find; the map marks
 * the hidden jobs of the same workspace, quota, standing and priority band on the nodes
 * the job would be placed on, which is where its victims make room. Nothing here learns
 * more than the caller's answer and node list already say.
 */
import type { NodeEntry, WhatIfAnswer } from './api-types.js';

/** Marks by node index. */
export interface HeatMapMarks {
  /** Node index → the GPU indices of victims on it. */
  victims: Map<number, Set<number>>;
  /** Nodes the job would be placed on. */
  placement: Set<number>;
}

/** No marks. */
export const NO_MARKS: HeatMapMarks = { victims: new Map(), placement: new Set() };

/** The marks of `answer` on `nodes`. */
export function marksOf(nodes: readonly NodeEntry[], answer: WhatIfAnswer | undefined): HeatMapMarks {
  if (!answer || (answer.placement.length === 0 && answer.victims.length === 0)) return NO_MARKS;
  const index = new Map(nodes.map((n, i) => [n.name, i]));
  const placement = new Set<number>();
  for (const p of answer.placement) {
    const i = index.get(p.node);
    if (i !== undefined) placement.add(i);
  }
  const victims = new Map<number, Set<number>>();
  const mark = (i: number, gpus: readonly number[]): void => {
    let set = victims.get(i);
    if (!set) victims.set(i, (set = new Set()));
    for (const g of gpus) set.add(g);
  };
  const named = new Set(answer.victims.filter((v) => !v.hidden).map((v) => v.job));
  const hidden = answer.victims.filter((v) => v.hidden);
  nodes.forEach((n, i) => {
    for (const j of n.jobs) {
      if (!j.hidden && named.has(j.job)) mark(i, j.indices);
      else if (
        j.hidden &&
        placement.has(i) &&
        hidden.some((v) => v.workspace === j.workspace && v.quota === j.quota && v.standing === j.standing && (v.priorityBand === undefined || v.priorityBand === j.priorityBand))
      )
        mark(i, j.indices);
    }
  });
  return { victims, placement };
}
