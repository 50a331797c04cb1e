/**
 * `import kubectl` on input a real cluster does not print but a file can hold: the same
 * Node or Pod twice, a priority that is not one, a start that is not a time, a number
 * past a double's range, an input past the limits, and the JSON path's positions against
 * the YAML path's. Each is a located finding, and says what it read.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { importKubectl, type KubectlOptions } from '../../../src/interop/import-kubectl.js';
import { KUBECTL_DEFAULTS } from '../../helpers/kubectl-options.js';
import { importQuotas } from '../../../src/interop/import-quotas.js';
import { readLocated, Report } from '../../../src/interop/located-json.js';

const OPTS: KubectlOptions = KUBECTL_DEFAULTS;

const node = (name: string, gpus: unknown = '8') => ({ apiVersion: 'v1', kind: 'Node', metadata: { name }, status: { allocatable: { 'nvidia.com/gpu': gpus } } });
const pod = (name: string, extra: { spec?: Record<string, unknown>; status?: Record<string, unknown>; gpu?: unknown } = {}) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'team-a' },
  spec: { nodeName: 'n1', containers: [{ resources: { limits: { 'nvidia.com/gpu': extra.gpu ?? '1' } } }], ...extra.spec },
  status: { phase: 'Running', startTime: '2026-11-23T01:00:00Z', ...extra.status },
});
/** A List as kubectl prints it (4 spaces); `raw` replaces values JSON cannot write (1e999). */
const list = (items: unknown[], raw: Record<string, string> = {}) => {
  let text = `${JSON.stringify({ apiVersion: 'v1', kind: 'List', items }, null, 4)}\n`;
  for (const [from, to] of Object.entries(raw)) text = text.replace(from, to);
  return { path: 'state.json', text };
};
/** Line and column (1-based) of the `nth` occurrence of `needle`. */
const at = (text: string, needle: string, nth = 1) => {
  let i = -1;
  for (let k = 0; k < nth; k++) i = text.indexOf(needle, i + 1);
  const before = text.slice(0, i).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
};

describe('import kubectl, inconsistent input', () => {
  it('refuses two Nodes of one name, at the second, naming where the first is', () => {
    const input = list([node('n1'), node('n2'), node('n1', '4'), pod('p')]);
    const r = importKubectl(input, OPTS);
    expect(r.report.failed).toBe(true);
    const f = r.report.findings.find((x) => x.code === 'interop/duplicate-node')!;
    expect(f).toMatchObject({ severity: 'error', path: 'items[2].metadata.name', ...at(input.text, '"n1"', 2) });
    expect(f.message).toContain(`state.json:${at(input.text, '{', 2).line}:`);
  });

  it('refuses one Pod twice: its GPUs would count twice', () => {
    const input = list([node('n1'), pod('p'), pod('p')]);
    const r = importKubectl(input, OPTS);
    expect(r.report.findings.map((f) => [f.code, f.path])).toEqual([['interop/duplicate-pod', 'items[2].metadata.name']]);
  });

  it('skips a pod whose spec.priority is not a whole number, at the value, and says what it read', () => {
    const input = list([node('n1'), pod('high', { spec: { priority: 'high' } }), pod('half', { spec: { priority: 2.5 } }), pod('huge', { spec: { priority: 1 } })], {
      '"priority": 1\n': '"priority": 1e999\n',
    });
    const r = importKubectl(input, OPTS);
    const bad = r.report.findings.filter((f) => f.code === 'interop/bad-priority');
    expect(bad.map((f) => [f.severity, f.path, f.line, f.column])).toEqual([
      ['warning', 'items[1].spec.priority', ...Object.values(at(input.text, '"high"', 2))],
      ['warning', 'items[2].spec.priority', ...Object.values(at(input.text, '2.5'))],
      ['warning', 'items[3].spec.priority', ...Object.values(at(input.text, '1e999'))],
    ]);
    expect(bad[2]!.message).toContain('1e999');
    expect(r.jobs).toHaveLength(0);
    expect(r.skipped.map((s) => s.name)).toEqual(['team-a/high', 'team-a/half', 'team-a/huge']);
  });

  it('says a pod without spec.priority has none (it counts as 0), and one with it where it came from', () => {
    const r = importKubectl(list([node('n1'), pod('none'), pod('some', { spec: { priority: 1000 } })]), OPTS);
    expect(r.jobs.find((j) => j.name === 'team-a/none')!.notes.join(' ')).toContain('priority 1: no spec.priority (counted as 0)');
    expect(r.jobs.find((j) => j.name === 'team-a/some')!.notes.join(' ')).toContain('priority 3 from spec.priority 1000');
  });

  it('warns at a startTime that is not a time, and leaves it out of the job', () => {
    const input = list([node('n1'), pod('p', { status: { startTime: 'not-a-date' } })]);
    const r = importKubectl(input, OPTS);
    expect(r.report.findings.map((f) => [f.code, f.severity, f.path, f.line, f.column])).toEqual([
      ['interop/bad-time', 'warning', 'items[1].status.startTime', ...Object.values(at(input.text, '"not-a-date"'))],
    ]);
    expect(r.jobs[0]!.startedAt).toBeUndefined();
  });

  it('says what was read for a count past the range of a double (1e999), not "null"', () => {
    const input = list([node('n1'), node('n2', 'INF'), pod('p', { gpu: 'BIG' })], { '"INF"': '1e999', '"BIG"': '1e999' });
    const r = importKubectl(input, OPTS);
    const bad = r.report.findings.filter((f) => f.code === 'interop/bad-quantity');
    expect(bad).toHaveLength(2);
    for (const f of bad) expect(f.message).toMatch(/1e999 \(read as Infinity\) is not a whole number/);
  });
});

describe('import kubectl, limits', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  const text = readFileSync('test/fixtures/interop/kubectl-state.json', 'utf8');

  it('names a JSON input over the import limit as what it is, with the variable that raises it', () => {
    process.env.QUOTIENT_MAX_IMPORT_BYTES = '1000';
    const f = importKubectl({ path: 'big.json', text }, OPTS).report.findings;
    expect(f.map((x) => x.code)).toEqual(['interop/too-large']);
    expect(f[0]!.message).toMatch(/^the kubectl List big\.json is .* larger than the limit of 1000 bytes for a JSON input/);
    expect(f[0]!.message).not.toContain('policy');
    expect(f[0]!.hint).toContain('QUOTIENT_MAX_IMPORT_BYTES=2000');
  });

  it('counts values before building them, and refuses too many', () => {
    process.env.QUOTIENT_MAX_IMPORT_VALUES = '500';
    const f = importKubectl({ path: 'big.json', text }, OPTS).report.findings;
    expect(f.map((x) => [x.code, x.line > 1])).toEqual([['interop/too-large', true]]);
    expect(f[0]!.hint).toContain('QUOTIENT_MAX_IMPORT_VALUES');
  });

  it('reads JSON far larger than a policy may be, and YAML only up to the policy limit, saying which', () => {
    process.env.QUOTIENT_MAX_POLICY_BYTES = '10000';
    expect(importKubectl({ path: 'state.json', text }, OPTS).report.failed).toBe(false);
    const yaml = importKubectl({ path: 'state.yaml', text: `# kubectl -o yaml\n${text}` }, OPTS).report.findings;
    expect(yaml.map((x) => x.code)).toEqual(['interop/too-large']);
    expect(yaml[0]!.message).toContain('for YAML input');
    expect(yaml[0]!.hint).toMatch(/-o json.*QUOTIENT_MAX_POLICY_BYTES=20000/);
    // JSON that does not parse, too large for the YAML path to say where: where JSON.parse stopped.
    const broken = importKubectl({ path: 'state.json', text: text.replace('"kind": "List"', '"kind": "List",,') }, OPTS).report.findings;
    expect(broken.map((x) => [x.code, x.line])).toEqual([['interop/json-syntax', at(text, '"kind": "List"').line]]);
  });

  it('refuses nesting past the depth limit and a key given twice, located', () => {
    process.env.QUOTIENT_MAX_DEPTH = '4';
    const deep = importKubectl({ path: 'd.json', text: '{"kind": "List", "items": [{"a": {"b": {"c": 1}}}]}' }, OPTS).report.findings;
    expect(deep.map((x) => [x.code, x.column])).toEqual([['interop/too-deep', 40]]);
    delete process.env.QUOTIENT_MAX_DEPTH;
    const dup = importKubectl({ path: 'd.json', text: '{"kind": "List",\n "items": [{"kind": "Node", "kind": "Pod"}]}' }, OPTS).report.findings;
    expect(dup.map((x) => [x.code, x.line, x.column, x.path])).toEqual([['interop/duplicate-key', 2, 29, 'items[0].kind']]);
  });
});

describe('the JSON path', () => {
  it('locates every finding and origin as the YAML path does', () => {
    const file = { path: 'state.json', text: readFileSync('test/fixtures/interop/kubectl-state.json', 'utf8') };
    const json = readLocated(file, { json: true }).docs[0]!;
    const yaml = readLocated(file).docs[0]!;
    expect(json.value).toEqual(yaml.value);
    const paths = [[], ['items'], ['items', 0], ['items', 3, 'status', 'allocatable', 'nvidia.com/gpu'], ['items', 40, 'metadata', 'labels'], ['items', 40, 'nope'], ['items', 9999], ['kind']];
    for (const path of paths) {
      for (const key of [false, true]) {
        const a = new Report();
        const b = new Report();
        a.warn(json.sd, path, 'x/y', 'm', 'h', key);
        b.warn(yaml.sd, path, 'x/y', 'm', 'h', key);
        expect(a.findings, JSON.stringify(path)).toEqual(b.findings);
      }
    }
  });
});

describe('import volcano', () => {
  it('says what was read for a guarantee past the range of a double, at the value', () => {
    const text = '{"kind": "List", "items": [{"apiVersion": "scheduling.volcano.sh/v1beta1", "kind": "Queue", "metadata": {"name": "q"}, "spec": {"deserved": {"nvidia.com/gpu": 1e999}}}]}';
    const { report } = importQuotas('volcano', [{ path: 'q.json', text }], { gpu: 'nvidia.com/gpu' });
    expect(report.findings.map((f) => [f.code, f.column])).toEqual([['interop/bad-quantity', text.indexOf('1e999') + 1]]);
    expect(report.findings[0]!.message).toContain('1e999 (read as Infinity) is not a whole number');
  });
});
