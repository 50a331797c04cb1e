/**
 * A small policy (a root quota, two children, one pool, running jobs) written in every
 * YAML style a person might use: block or flow per mapping, keys in any order, quoted
 * or plain names, a standing given or left out, comments after lines and between
 * items (some with `standing:` or `#` inside), 2 or 4 spaces, LF or CRLF, a BOM, and
 * Latin-1 bytes in comments. For test/property/apply-styles.test.ts.
 */
import fc from 'fast-check';

/** The meaning of a generated policy. */
export interface StylePolicy {
  nodes: number;
  a: number;
  jobs: Array<{ name: string; quota: 'A' | 'B'; gpus: number; standing?: 'in-quota' }>;
}

/** How it is written. */
export interface Style {
  indent: number;
  crlf: boolean;
  bom: boolean;
  oneFile: boolean;
  /** One choice per element, consumed in order (block or flow, comments, quoting, ...). */
  choices: number[];
  /** Latin-1 bytes (0x80..0xFF) put into comments. */
  latin1: number[];
}

export const stylePolicyArb: fc.Arbitrary<StylePolicy> = fc.integer({ min: 2, max: 4 }).chain((nodes) =>
  fc
    .record({
      nodes: fc.constant(nodes),
      a: fc.integer({ min: 8, max: nodes * 8 - 8 }),
      jobs: fc.uniqueArray(
        fc.record({
          name: fc.stringMatching(/^[a-z][a-z0-9-]{0,6}$/),
          quota: fc.constantFrom('A' as const, 'B' as const),
          gpus: fc.integer({ min: 1, max: 8 }),
          standing: fc.option(fc.constant('in-quota' as const), { nil: undefined }),
        }),
        { selector: (j) => j.name, minLength: 1, maxLength: 6 },
      ),
    })
    .map((p) => {
      // Keep each child's jobs within its min (a valid snapshot): drop the ones that overflow.
      const used = { A: 0, B: 0 };
      const room = { A: p.a, B: p.nodes * 8 - p.a };
      return { ...p, jobs: p.jobs.filter((j) => (used[j.quota] + j.gpus <= room[j.quota] ? ((used[j.quota] += j.gpus), true) : false)) };
    }),
);

export const styleArb: fc.Arbitrary<Style> = fc.record({
  indent: fc.constantFrom(2, 4),
  crlf: fc.boolean(),
  bom: fc.boolean(),
  oneFile: fc.boolean(),
  choices: fc.array(fc.nat({ max: 99 }), { minLength: 64, maxLength: 64 }),
  latin1: fc.array(fc.integer({ min: 0x80, max: 0xff }), { minLength: 1, maxLength: 3 }),
});

const COMMENTS = ['# note', '#standing: borrowing', '# min: { gpu: 1 } # x', '#', '# - name: fake'];

/** Writes the policy in the style: file name → bytes. */
export function render(p: StylePolicy, s: Style): Map<string, Buffer> {
  let k = 0;
  const pick = (n: number) => (s.choices[k++ % s.choices.length] ?? 0) % n;
  const sp = ' '.repeat(s.indent);
  const LAT = '\u0000LATIN1\u0000';
  const comment = () => {
    const c = COMMENTS[pick(COMMENTS.length)] ?? '#';
    return pick(3) === 0 ? `${c} ${LAT}` : c;
  };
  const eolc = () => (pick(3) === 0 ? `  ${comment()}` : '');
  const between = (ind: string) => (pick(4) === 0 ? [`${ind}${comment()}`] : []);
  const name = (n: string) => [n, `"${n}"`, `'${n}'`][pick(3)] ?? n;
  const minText = (v: number, ind: string): string[] => (pick(2) ? [`min: { gpu: ${v} }${eolc()}`] : [`min:${eolc()}`, `${ind}${sp}gpu: ${v}${eolc()}`]);

  const quotaLines = (): string[] => {
    const i2 = sp;
    const i3 = sp + sp;
    const kids = [
      { n: 'A', v: p.a },
      { n: 'B', v: p.nodes * 8 - p.a },
    ];
    const out = ['apiVersion: quotient.dev/v1', 'kind: QuotaTree', `metadata: { name: t }${eolc()}`, 'spec:', `${i2}pool: { name: pool, type: general }`, `${i2}quotas:${eolc()}`, ...between(i3)];
    out.push(`${i3}- name: ${name('R')}${eolc()}`);
    const body = `${i3}  `;
    out.push(...minText(p.nodes * 8, body).map((l, j) => (j === 0 ? `${body}${l}` : l)));
    if (pick(2)) {
      out.push(`${body}children: [ ${kids.map((c) => `{ name: ${name(c.n)}, min: { gpu: ${c.v} } }`).join(', ')} ]${eolc()}`);
    } else {
      out.push(`${body}children:${eolc()}`);
      for (const c of kids) {
        out.push(...between(`${body}${sp}`));
        if (pick(2)) out.push(`${body}${sp}- { name: ${name(c.n)}, min: { gpu: ${c.v} } }${eolc()}`);
        else {
          const ci = `${body}${sp}  `;
          out.push(`${body}${sp}- name: ${name(c.n)}${eolc()}`, ...minText(c.v, ci).map((l, j) => (j === 0 ? `${ci}${l}` : l)));
        }
      }
    }
    return out;
  };

  const clusterLines = (): string[] => {
    const i2 = sp;
    const i3 = sp + sp;
    const out = [
      'apiVersion: quotient.dev/v1',
      'kind: Cluster',
      'metadata: { name: c }',
      'spec:',
      `${i2}at: 2026-11-20T12:00:00Z`,
      `${i2}nodeGroups:`,
      `${i3}- { prefix: n-, count: ${p.nodes}, gpus: 8, pool: pool }`,
      `${i2}jobs:${eolc()}`,
    ];
    p.jobs.forEach((j, idx) => {
      const pairs = [`name: ${name(j.name)}`, 'workspace: w', `quota: ${j.quota}`, 'module: DLC', 'priority: 3', 'pods: 1', `resources: { gpu: ${j.gpus} }`, `startedAt: 2026-11-20T0${idx}:00:00Z`];
      if (j.standing) pairs.push(`standing: ${j.standing}`);
      // Keys in another order sometimes (the name not first).
      if (pick(3) === 0) pairs.push(pairs.shift() ?? '');
      out.push(...between(i3));
      if (pick(2)) {
        if (pick(3) === 0) out.push(`${i3}- { ${pairs.slice(0, 3).join(', ')},${eolc()}`, `${i3}    ${pairs.slice(3).join(', ')} }${eolc()}`);
        else out.push(`${i3}- { ${pairs.join(', ')} }${eolc()}`);
      } else {
        pairs.forEach((pr, n) => {
          out.push(`${i3}${n === 0 ? '- ' : '  '}${pr}${eolc()}`);
          if (n === 0) out.push(...between(`${i3}  `));
        });
      }
    });
    return out;
  };

  const workspace = ['apiVersion: quotient.dev/v1', 'kind: Workspace', 'metadata: { name: w }', 'spec:', `${sp}quotas: [A, B]`];
  const docs = [quotaLines(), workspace, clusterLines()];
  const eol = s.crlf ? '\r\n' : '\n';
  const toBytes = (lines: string[], first: boolean): Buffer => {
    const text = (first && s.bom ? '\uFEFF' : '') + lines.join(eol) + (pick(5) === 0 ? '' : eol);
    const parts = text.split(LAT);
    return Buffer.concat(parts.flatMap((t, i) => (i === 0 ? [Buffer.from(t, 'utf8')] : [Buffer.from(s.latin1), Buffer.from(t, 'utf8')])));
  };
  if (s.oneFile) return new Map([['policy.yaml', toBytes([...(docs[0] ?? []), '---', ...(docs[1] ?? []), '---', ...(docs[2] ?? [])], true)]]);
  return new Map([
    ['quotas.yaml', toBytes([...(docs[0] ?? []), '---', ...(docs[1] ?? [])], true)],
    ['cluster.yaml', toBytes(docs[2] ?? [], false)],
  ]);
}
