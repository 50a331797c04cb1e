/**
 * A YAML alias inside the node its anchor names makes a value that holds itself: the
 * loader once walked it until Node ran out of memory. It is now refused at the alias
 * (policy/recursive-alias, or interop/… on import), and aliases that only reuse a value,
 * or whose anchor name was given again to a node outside them, still load.
 */
import { describe, expect, it } from 'vitest';
import { readLocated } from '../../../src/interop/located-json.js';
import { loadPolicy } from '../../../src/policy/load-policy.js';
import { parseFiles } from '../../../src/policy/parse/source-doc.js';

const HINT = 'an alias cannot refer to the node that contains it; copy the values instead';

/** A quota that is its own child, the shape the fresh-user trial wrote. */
const OWN_CHILD = `apiVersion: quotient.dev/v1
kind: QuotaTree
metadata: { name: t }
spec:
  pool: { name: p }
  quotas:
    - &q
      name: A
      min: { gpu: 16 }
      children:
        - *q
`;

/** The error findings of loading `text`, which must not load. */
function refused(text: string) {
  const { policy, findings } = loadPolicy([{ path: 'p.yaml', text }]);
  expect(policy).toBeUndefined();
  return findings.filter((f) => f.severity === 'error').map((f) => ({ code: f.code, line: f.line, column: f.column, path: f.path, hint: f.hint }));
}

describe('recursive YAML aliases', () => {
  it('refuses a quota that is its own child, at the alias, with its path and hint', () => {
    expect(refused(OWN_CHILD)).toEqual([{ code: 'policy/recursive-alias', line: 11, column: 11, path: 'spec.quotas[0].children[0]', hint: HINT }]);
    const [finding] = loadPolicy([{ path: 'p.yaml', text: OWN_CHILD }]).findings;
    // The text is the behaviour here: the message names the anchor's own line (the `- &q`
    // line), not the line its mapping starts on.
    expect(finding?.message).toContain('&q on line 7');
    expect(OWN_CHILD.slice(finding?.start, finding?.end)).toBe('*q');
  });

  it('refuses an alias inside a flow mapping it names, and one under spec', () => {
    const tree = (metadata: string, spec: string) => `apiVersion: quotient.dev/v1\nkind: QuotaTree\nmetadata: ${metadata}\nspec: ${spec}\n`;
    const flow = tree('&m { name: t, x: *m }', '{ pool: { name: p }, quotas: [ { name: A, min: { gpu: 1 } } ] }');
    expect(refused(flow)).toEqual([{ code: 'policy/recursive-alias', line: 3, column: 28, path: 'metadata.x', hint: HINT }]);
    const spec = tree('{ name: t }', '&s\n  pool: { name: p }\n  quotas: [ { name: A, min: { gpu: 1 } } ]\n  extra: *s');
    expect(refused(spec)).toEqual([{ code: 'policy/recursive-alias', line: 7, column: 10, path: 'spec.extra', hint: HINT }]);
  });

  it('finds a cycle through a nested anchor, and reports each alias of it', () => {
    const text = 'a: &a\n  b: &b\n    c: [ *a, *b ]\n';
    const { docs, findings } = parseFiles([{ path: 'x.yaml', text }]);
    expect(docs).toEqual([]);
    expect(findings.map((f) => [f.code, f.path, f.line, f.column])).toEqual([
      ['policy/recursive-alias', 'a.b.c[0]', 3, 10],
      ['policy/recursive-alias', 'a.b.c[1]', 3, 14],
    ]);
  });

  it('reads aliases that only reuse a value, and an anchor name given again outside the alias', () => {
    // `*q` names the last `&q` before it: the scalar, not the mapping that holds the alias.
    const text = 'base: &p { gpu: 2 }\nuse: [ *p, *p ]\nouter: &q { inner: &q 1, again: *q }\nafter: *q\n';
    const { docs, findings } = parseFiles([{ path: 'x.yaml', text }]);
    expect(findings).toEqual([]);
    expect(docs[0]?.doc.toJS()).toEqual({ base: { gpu: 2 }, use: [{ gpu: 2 }, { gpu: 2 }], outer: { inner: 1, again: 1 }, after: 1 });
  });

  it('leaves the other documents of the file to load and be checked', () => {
    const second = '---\napiVersion: quotient.dev/v1\nkind: Workspace\nmetadata: { name: ws }\nspec: { quotas: [Nope] }\n';
    const { findings } = loadPolicy([{ path: 'p.yaml', text: OWN_CHILD + second }]);
    expect(findings.map((f) => f.code)).toEqual(['policy/recursive-alias']);
    const { docs } = parseFiles([{ path: 'p.yaml', text: OWN_CHILD + second }]);
    expect(docs.map((d) => d.index)).toEqual([1]);
  });

  it('refuses a Kubernetes object that holds itself on import, in that layer’s code', () => {
    const text = 'apiVersion: kueue.x-k8s.io/v1beta1\nkind: ClusterQueue\nmetadata: &m\n  name: cq\n  labels: { x: *m }\nspec: { cohort: c }\n';
    const { docs, findings } = readLocated({ path: 'k.yaml', text });
    expect(docs).toEqual([]);
    expect(findings.map((f) => [f.code, f.path, f.line, f.column])).toEqual([['interop/recursive-alias', 'metadata.labels.x', 5, 16]]);
  });
});
