/** Promise results as JUnit XML and TAP, for CI systems (on stdout, so escaped as any text for people). */
import { display, escapeDisplay, escapeKeepingLines, joinDisplay, type Display } from '../model/display-text.js';
import type { PromiseResult } from '../verify/check-promise.js';

/**
 * Text for an XML attribute or element: the XML specials as entities, then every
 * character a terminal obeys escaped (XML 1.0 allows no C0 control even as a reference).
 * `lines`: text Quotient wrote over several lines (a counterexample), whose line feeds stay.
 */
function xml(s: string, lines = false): Display {
  const text = s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  return lines ? escapeKeepingLines(text) : escapeDisplay(text);
}

/** JUnit XML: one testsuite per policy, one testcase per promise. */
export function junitReport(groups: Array<{ policy: string; results: PromiseResult[] }>): Display {
  const lines = [display`<?xml version="1.0" encoding="UTF-8"?>`, display`<testsuites name="quotient test">`];
  for (const g of groups) {
    const failures = g.results.filter((r) => r.status === 'broken').length;
    lines.push(display`  <testsuite name="${xml(g.policy)}" tests="${g.results.length}" failures="${failures}">`);
    for (const r of g.results) {
      lines.push(display`    <testcase name="${xml(r.promise)}" classname="${xml(g.policy)}">`);
      if (r.status === 'broken') {
        const c = r.counterexample!;
        lines.push(display`      <failure message="${xml(c.broken.join('; '))}">${xml(`seed ${r.seed}${r.path ? `, path ${r.path}` : ''}\n${c.yaml}`, true)}</failure>`);
      }
      lines.push(display`    </testcase>`);
    }
    lines.push(display`  </testsuite>`);
  }
  lines.push(display`</testsuites>`, display``);
  return joinDisplay(lines);
}

/** TAP version 14. */
export function tapReport(groups: Array<{ policy: string; results: PromiseResult[] }>): Display {
  const all = groups.flatMap((g) => g.results.map((r) => ({ g, r })));
  const lines = [display`TAP version 14`, display`1..${all.length}`];
  all.forEach(({ g, r }, i) => {
    lines.push(display`${r.status === 'held' ? 'ok' : 'not ok'} ${i + 1} - ${g.policy}: ${r.promise}${r.status === 'held' ? ` (held over ${r.runs} runs)` : ''}`);
    if (r.status === 'broken') {
      const c = r.counterexample!;
      lines.push(
        display`  ---`,
        display`  broken: ${JSON.stringify(c.broken.join('; '))}`,
        display`  seed: ${r.seed}`,
        display`  counterexample: |`,
        ...c.yaml.split('\n').map((l) => display`    ${l}`),
        display`  ...`,
      );
    }
  });
  lines.push(display``);
  return joinDisplay(lines);
}
