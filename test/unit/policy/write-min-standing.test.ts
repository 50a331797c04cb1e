/**
 * `scale --apply` adds a `standing:` line to a block-style job that had none: the line
 * goes right after `name:` and ends like its neighbours (LF or CRLF). Before the fix a
 * shadowed `eol` wrote a character offset where the line break belonged.
 */
import { describe, expect, it } from 'vitest';
import { planScaleWrite } from '../../../src/policy/write/write-min.js';

const CLUSTER = ['kind: Cluster', 'spec:', '  jobs:', '    - name: j1447 # the big one', '      quota: Quota1.1', '      pods: 1', ''];

describe('standing edits of scale --apply', () => {
  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
  ])('adds standing on its own %s line under name:', (_label, eol) => {
    const planned = planScaleWrite([{ path: 'cluster.yaml', text: CLUSTER.join(eol) }], { values: new Map(), standings: new Map([['j1447', 'borrowing']]) });
    const want = [...CLUSTER.slice(0, 4), '      standing: borrowing', ...CLUSTER.slice(4)].join(eol);
    expect(planned.get('cluster.yaml')).toBe(want);
  });
});
