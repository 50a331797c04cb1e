/**
 * PAI DLC CreateJob request bodies as submissions: the SDK's field names, defaults
 * (Priority 1), the idle-resource setting, spot specs, roles of different shapes, and
 * every bad request located at the JSON field it is about.
 */
import { describe, expect, it } from 'vitest';
import { readPaiJob } from '../../../src/interop/pai-job.js';
import { paiRequest } from '../../../src/interop/pai-whatif.js';
import { Session } from '../../../src/engine/session.js';
import { readFileSync } from 'node:fs';

const read = (obj: unknown, path = 'req.json') => readPaiJob({ path, text: JSON.stringify(obj, null, 2) });
const BASE = {
  DisplayName: 'ft',
  JobType: 'PyTorchJob',
  WorkspaceId: 'team-a',
  ResourceId: 'team-a',
  JobSpecs: [{ Type: 'Worker', PodCount: 2, ResourceConfig: { GPU: '8', CPU: '64', Memory: '512Gi' } }],
};

/** line:col of the `"key"` occurrence in the pretty-printed JSON (after `after` when given). */
function at(obj: unknown, key: string, nth = 0): { line: number; column: number } {
  const text = JSON.stringify(obj, null, 2);
  let i = -1;
  for (let k = 0; k <= nth; k++) i = text.indexOf(`"${key}": `, i + 1);
  const valueAt = i + key.length + 4;
  const before = text.slice(0, valueAt).split('\n');
  return { line: before.length, column: before[before.length - 1]!.length + 1 };
}

describe('PAI CreateJob requests', () => {
  it('maps the SDK fields onto a submission (Priority defaults to 1, ResourceId is the quota)', () => {
    const { submission, report } = read(BASE);
    expect(report.findings).toEqual([]);
    expect(submission!.job).toEqual({
      name: 'ft',
      workspace: 'team-a',
      quota: 'team-a',
      module: 'DLC',
      priority: 1,
      pods: 2,
      resources: { gpu: 8, cpu: '64', memory: '512Gi' },
      idleResources: 'none',
    });
  });

  it('reads the idle-resource setting from Settings.OversoldType', () => {
    expect(read({ ...BASE, Settings: { OversoldType: 'AcceptQuotaOverSold' } }).submission!.job.idleResources).toBe('acceptable');
    expect(read({ ...BASE, Settings: { OversoldType: 'ForceQuotaOverSold' } }).submission!.job.idleResources).toBe('only');
    expect(read({ ...BASE, Settings: { OversoldType: 'ForbiddenQuotaOverSold' } }).submission!.job.idleResources).toBe('none');
    const bad = { ...BASE, Settings: { OversoldType: 'Sometimes' } };
    expect(read(bad).report.findings).toMatchObject([{ code: 'interop/pai-invalid-field', path: 'Settings.OversoldType', ...at(bad, 'OversoldType') }]);
  });

  it('sums the roles into one gang, asking every pod at the largest role (a warning says so)', () => {
    const req = {
      ...BASE,
      JobSpecs: [
        { Type: 'Master', PodCount: 1, ResourceConfig: { GPU: '4' } },
        { Type: 'Worker', PodCount: 3, ResourceConfig: { GPU: '8' } },
        { Type: 'PS', PodCount: 2, ResourceConfig: { CPU: '8' } },
      ],
    };
    const { submission, report } = read(req);
    expect(submission!.job).toMatchObject({ pods: 4, resources: { gpu: 8 } });
    expect(report.findings.map((f) => f.code)).toEqual(['interop/pai-mixed-shapes']);
    expect(submission!.notes.join(' ')).toMatch(/asks no GPUs/);
  });

  it('validates SpotSpec: SpotWithPriceLimit and exactly one limit; spot itself is reported as not modelled', () => {
    const ok = { ...BASE, JobSpecs: [{ ...BASE.JobSpecs[0], SpotSpec: { SpotStrategy: 'SpotWithPriceLimit', SpotDiscountLimit: 0.8 } }] };
    expect(read(ok).report.findings.map((f) => f.code)).toEqual(['interop/pai-spot-not-modelled']);
    const both = { ...BASE, JobSpecs: [{ ...BASE.JobSpecs[0], SpotSpec: { SpotStrategy: 'SpotWithPriceLimit', SpotDiscountLimit: 0.8, SpotPriceLimit: 0.4 } }] };
    expect(read(both).report.findings.find((f) => f.severity === 'error')).toMatchObject({ path: 'JobSpecs[0].SpotSpec.SpotPriceLimit', ...at(both, 'SpotPriceLimit') });
    const strategy = { ...BASE, JobSpecs: [{ ...BASE.JobSpecs[0], SpotSpec: { SpotStrategy: 'Cheap', SpotPriceLimit: 0.4 } }] };
    expect(read(strategy).report.findings.find((f) => f.severity === 'error')).toMatchObject({ path: 'JobSpecs[0].SpotSpec.SpotStrategy', ...at(strategy, 'SpotStrategy') });
  });

  it('names the JSON field and its line:col for every bad value', () => {
    const cases: Array<[unknown, string, string]> = [
      [{ ...BASE, Priority: 10 }, 'Priority', 'Priority'],
      [{ ...BASE, Priority: '7' }, 'Priority', 'Priority'],
      [{ ...BASE, JobSpecs: [{ PodCount: 2, ResourceConfig: { GPU: 'eight' } }] }, 'GPU', 'JobSpecs[0].ResourceConfig.GPU'],
      [{ ...BASE, JobSpecs: [{ PodCount: 1.5, ResourceConfig: { GPU: '8' } }] }, 'PodCount', 'JobSpecs[0].PodCount'],
      [{ ...BASE, JobSpecs: [{ PodCount: 1, ResourceConfig: { GPU: '8', Memory: 'lots' } }] }, 'Memory', 'JobSpecs[0].ResourceConfig.Memory'],
      [{ ...BASE, ResourceId: 42 }, 'ResourceId', 'ResourceId'],
      [{ ...BASE, JobMaxRunningTimeMinutes: -1 }, 'JobMaxRunningTimeMinutes', 'JobMaxRunningTimeMinutes'],
    ];
    for (const [req, key, path] of cases) {
      const errors = read(req).report.findings.filter((f) => f.severity === 'error');
      expect(errors, path).toMatchObject([{ code: 'interop/pai-invalid-field', path, ...at(req, key) }]);
    }
    const { DisplayName: _d, ...noName } = BASE;
    expect(read(noName).report.findings).toMatchObject([{ code: 'interop/pai-missing-field' }]);
    expect(read({ ...BASE, JobSpecs: [{ PodCount: 2, ResourceConfig: { CPU: '8' } }] }).report.findings).toMatchObject([{ code: 'interop/pai-no-gpus' }]);
    expect(readPaiJob({ path: 'r.json', text: '[1, 2]' }).report.findings).toMatchObject([{ code: 'interop/pai-not-an-object' }]);
    expect(readPaiJob({ path: 'r.json', text: '{ "DisplayName": ' }).report.findings[0]!.code).toBe('interop/yaml-syntax');
  });

  it('warns on a field the SDK does not declare, with the nearest one', () => {
    const req = { ...BASE, Priorty: 5 };
    expect(read(req).report.findings).toMatchObject([{ code: 'interop/pai-unknown-field', severity: 'warning', path: 'Priorty', hint: 'did you mean "Priority"?' }]);
  });

  it('places policy findings about the submission on the request field', async () => {
    const req = { ...BASE, ResourceId: 'no-such-quota' };
    const { submission } = read(req);
    const text = (f: string) => readFileSync(`test/fixtures/interop/policy/${f}`, 'utf8');
    const { session } = Session.open(['quotas.yaml', 'cluster.yaml'].map((f) => ({ path: f, text: text(f) })));
    const { request, origin } = paiRequest(submission!, 'req.json');
    const asked = await session!.ask(request, origin);
    expect(asked.answer).toBeUndefined();
    expect(asked.findings.filter((f) => f.severity === 'error')).toMatchObject([{ file: 'req.json', code: 'policy/unknown-quota', path: 'ResourceId', ...at(req, 'ResourceId') }]);
  });
});
