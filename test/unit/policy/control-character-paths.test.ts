/**
 * A control or bidirectional character anywhere in a document is a finding at the exact
 * field path and line: deep in a list (a value, a key) and in free text where only tabs
 * and line feeds are allowed. validate-schema.ts walks every string of a document and
 * spells a path out only for a finding, so these pin the path it spells.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../src/policy/load-policy.js';

const DIR = 'policies/inference-preempts-training';
const file = (name: string) => ({ path: `${DIR}/${name}`, text: readFileSync(`${DIR}/${name}`, 'utf8') });

function controlFindings(whatif: string) {
  const { findings } = loadPolicy([file('quotas.yaml'), file('cluster.yaml'), { path: 'w.yaml', text: whatif }]);
  return findings.filter((f) => f.code === 'policy/control-character').map((f) => [f.path, f.line]);
}

describe('control characters', () => {
  it('are found at the path and line of a value deep in the document', () => {
    const text =
      'apiVersion: quotient.dev/v1\nkind: WhatIf\nmetadata: { name: w }\nspec:\n  submit:\n    name: j\n    workspace: workspace-a\n    quota: Quota1\n    module: EAS\n    priority: 9\n    pods: 1\n    resources: { gpu: 8 }\n    gpuModels: [A100, "H\\u202E100"]\n';
    expect(controlFindings(text)).toEqual([['spec.submit.gpuModels[1]', 13]]);
  });

  it("are found in a key, named by the key's own path", () => {
    const text =
      'apiVersion: quotient.dev/v1\nkind: WhatIf\nmetadata: { name: w, "ab\\e": x }\nspec:\n  submit: { name: j, workspace: workspace-a, quota: Quota1, module: EAS, priority: 9, pods: 1, resources: { gpu: 8 } }\n';
    const found = controlFindings(text);
    expect(found).toHaveLength(1);
    expect(found[0]![0]).toBe('metadata.ab\u001b');
  });

  it('leave the rest of the document checked: a bad value elsewhere is reported in the same run', () => {
    const text =
      'apiVersion: quotient.dev/v1\nkind: WhatIf\nmetadata: { name: "w\\u202E" }\nspec:\n  submit: { name: j, workspace: workspace-a, quota: Quota1, module: EAS, priority: 12, pods: 1, resources: { gpu: 8 } }\n';
    const { findings } = loadPolicy([file('quotas.yaml'), file('cluster.yaml'), { path: 'w.yaml', text }]);
    expect(findings.map((f) => [f.code, f.path, f.line])).toEqual([
      ['policy/control-character', 'metadata.name', 3],
      ['policy/priority-out-of-range', 'spec.submit.priority', 5],
    ]);
  });

  it('are not echoed again by the schema: a refused key is one finding, not also an unknown field', () => {
    const text =
      'apiVersion: quotient.dev/v1\nkind: WhatIf\nmetadata: { name: w }\nspec:\n  submit: { name: j, "wo\\erkspace": workspace-a, quota: Quota1, module: EAS, priority: 9, pods: 1, resources: { gpu: 8 } }\n';
    const { findings } = loadPolicy([file('quotas.yaml'), file('cluster.yaml'), { path: 'w.yaml', text }]);
    // Unfiltered, the schema's unknown-field finding would print the raw escape in its message.
    expect(findings.map((f) => [f.code, f.path])).toEqual([['policy/control-character', 'spec.submit.wo\u001brkspace']]);
  });
});
