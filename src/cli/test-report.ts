/** Promise results as JUnit XML and TAP, for CI systems. */
import type { PromiseResult } from '../verify/check-promise.js';

function xml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** JUnit XML: one testsuite per policy, one testcase per promise. */
export function junitReport(groups: Array<{ policy: string; results: PromiseResult[] }>): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<testsuites name="quotient test">'];
  for (const g of groups) {
    const failures = g.results.filter((r) => r.status === 'broken').length;
    lines.push(`  <testsuite name="${xml(g.policy)}" tests="${g.results.length}" failures="${failures}">`);
    for (const r of g.results) {
      lines.push(`    <testcase name="${xml(r.promise)}" classname="${xml(g.policy)}">`);
      if (r.status === 'broken') {
        const c = r.counterexample!;
        lines.push(`      <failure message="${xml(c.broken.join('; '))}">${xml(`seed ${r.seed}${r.path ? `, path ${r.path}` : ''}\n${c.yaml}`)}</failure>`);
      }
      lines.push('    </testcase>');
    }
    lines.push('  </testsuite>');
  }
  lines.push('</testsuites>');
  return `${lines.join('\n')}\n`;
}

/** TAP version 14. */
export function tapReport(groups: Array<{ policy: string; results: PromiseResult[] }>): string {
  const all = groups.flatMap((g) => g.results.map((r) => ({ g, r })));
  const lines = ['TAP version 14', `1..${all.length}`];
  all.forEach(({ g, r }, i) => {
    lines.push(`${r.status === 'held' ? 'ok' : 'not ok'} ${i + 1} - ${g.policy}: ${r.promise}${r.status === 'held' ? ` (held over ${r.runs} runs)` : ''}`);
    if (r.status === 'broken') {
      const c = r.counterexample!;
      lines.push('  ---', `  broken: ${JSON.stringify(c.broken.join('; '))}`, `  seed: ${r.seed}`, '  counterexample: |', ...c.yaml.split('\n').map((l) => `    ${l}`), '  ...');
    }
  });
  return `${lines.join('\n')}\n`;
}
