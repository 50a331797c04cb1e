/** `--priority-map as-is`: Kubernetes and Kueue priorities kept as they are, for a Kueue-rules policy (SEMANTICS 12). */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { importKubectl } from '../../../src/interop/import-kubectl.js';
import { AS_IS_MAP, DEFAULT_PRIORITY_MAP, describePriorityMap, mapPriority, parsePriorityMap } from '../../../src/interop/priority-map.js';
import { KUBECTL_DEFAULTS } from '../../helpers/kubectl-options.js';

describe('priority map as-is', () => {
  const asIs = parsePriorityMap(AS_IS_MAP).bands!;

  it('keeps every int32 as it is, negative included; the bands still band', () => {
    for (const p of [-2147483648, -5, 0, 1000, 10000, 2147483647]) expect(mapPriority(p, asIs)).toBe(p);
    expect(mapPriority(10000, parsePriorityMap(DEFAULT_PRIORITY_MAP).bands!)).toBe(4);
    // An empty list that is not the as-is map is not read as it.
    expect(mapPriority(10000, [])).toBe(1);
    expect(describePriorityMap(asIs)).toMatch(/kept as it is/);
  });

  it("gives import kubectl the pods' own priorities", () => {
    const FILE = 'test/fixtures/interop/kubectl-state.json';
    const r = importKubectl({ path: FILE, text: readFileSync(FILE, 'utf8') }, { ...KUBECTL_DEFAULTS, priorityMap: asIs });
    const banded = importKubectl({ path: FILE, text: readFileSync(FILE, 'utf8') }, KUBECTL_DEFAULTS);
    const sft = (x: typeof r) => x.jobs.find((j) => j.name === 'team-b/sft-7b')!;
    expect(sft(banded).priority).toBe(3);
    expect(sft(r).priority).toBe(1000);
    expect(r.mapped.join('\n')).toMatch(/spec.priority kept as it is/);
    expect(banded.mapped.join('\n')).toMatch(/spec.priority → 1..9 by bands 0=1,100=2/);
  });
});
