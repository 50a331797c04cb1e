/**
 * A PAI DLC CreateJob request body as a Quotient submission. Field names are the JSON
 * names of the SDK's models (aliyun/alibabacloud-typescript-sdk pai-dlc-20201203:
 * CreateJobRequest.ts, JobSpec.ts, ResourceConfig.ts, SpotSpec.ts, JobSettings.ts).
 * Every problem names the JSON field and its line:col; a field the SDK does not declare
 * is a warning (a typo must not pass unnoticed); fields that do not bear on admission
 * (image, command, data sources…) are read and left alone.
 */
import type { IdleMode } from '../model/policy.js';
import { parseCpu, parseMemory } from '../model/quantity.js';
import type { InputFile, PathSeg, SourceDoc } from '../policy/parse/source-doc.js';
import { formatPath } from '../policy/parse/source-doc.js';
import { nearest } from '../policy/validate/suggest.js';
import { parseCount } from './kube-quantity.js';
import { asObject, readLocated, Report } from './located-json.js';

/** CreateJobRequest.names() of the SDK. */
const REQUEST_FIELDS = [
  'Accessibility',
  'CodeSource',
  'CredentialConfig',
  'CustomEnvs',
  'DataSources',
  'DebuggerConfigContent',
  'Description',
  'DisplayName',
  'ElasticSpec',
  'Envs',
  'JobMaxRunningTimeMinutes',
  'JobSpecs',
  'JobType',
  'Options',
  'Priority',
  'ResourceId',
  'SchedulingStrategy',
  'Settings',
  'SuccessPolicy',
  'TemplateId',
  'TemplateVersion',
  'ThirdpartyLibDir',
  'ThirdpartyLibs',
  'UserCommand',
  'UserVpc',
  'WorkspaceId',
];
/** JobSpec.names(). */
const JOBSPEC_FIELDS = [
  'AssignNodeSpec',
  'AutoScalingSpec',
  'ConsiderInSuccessPolicy',
  'Driver',
  'EcsSpec',
  'ElasticSpotSpecs',
  'ExtraPodSpec',
  'HyperNodeSchedulingConfig',
  'Image',
  'ImageConfig',
  'IsCheif',
  'IsChief',
  'LocalMountSpecs',
  'OversoldType',
  'PodCount',
  'QuotaId',
  'ResourceConfig',
  'RestartPolicy',
  'ServiceSpec',
  'SpotSpec',
  'StartupDependencies',
  'SystemDisk',
  'Type',
  'UseSpotInstance',
];
/** ResourceConfig.names(). */
const RESOURCE_FIELDS = ['CPU', 'GPU', 'GPUType', 'Memory', 'SharedMemory'];
/** SpotSpec.names(). */
const SPOT_FIELDS = ['SpotDiscountLimit', 'SpotPriceLimit', 'SpotStrategy'];
/** JobSettings.names(). */
const SETTINGS_FIELDS = [
  'AdvancedSettings',
  'AllocateAllRDMADevices',
  'AllowUnschedulableNodes',
  'BusinessUserId',
  'Caller',
  'DataJuicerConfig',
  'DisableEcsStockCheck',
  'Driver',
  'ElasticSpotJobMaxRestartTimes',
  'EnableCPUAffinity',
  'EnableDSWDev',
  'EnableErrorMonitoringInAIMaster',
  'EnableOssAppend',
  'EnableRDMA',
  'EnableSanityCheck',
  'EnableTideResource',
  'ErrorMonitoringArgs',
  'JobReservedMinutes',
  'JobReservedPolicy',
  'ModelConfig',
  'OversoldType',
  'PipelineId',
  'SanityCheckArgs',
  'Shell',
  'Tags',
  'TerminationGracePeriodSeconds',
];

/**
 * The idle-resource setting: `Settings.OversoldType` (values as the SDK's ListJobsRequest
 * documents them) → Quotient's idleResources.
 */
export const OVERSOLD_TYPES: Record<string, IdleMode> = { ForbiddenQuotaOverSold: 'none', AcceptQuotaOverSold: 'acceptable', ForceQuotaOverSold: 'only' };

/** The submission a request asks, with where each field came from (for findings about it). */
export interface PaiSubmission {
  job: {
    name: string;
    workspace: string;
    quota: string;
    module: 'DLC';
    priority: number;
    pods: number;
    resources: { gpu: number; cpu?: string; memory?: string };
    idleResources: IdleMode;
    maxRuntime?: string;
    gpuModels?: string[];
  };
  /** Quotient field path (`quota`, `resources.gpu`) → the JSON field it came from, `file:line:col`-located. */
  origins: Map<string, { path: string; line: number; column: number }>;
  /** What was approximated, for the answer's reader. */
  notes: string[];
}

/** Reads one CreateJob request body; errors leave `submission` undefined. */
export function readPaiJob(file: InputFile): { submission?: PaiSubmission; report: Report } {
  const { docs, findings } = readLocated(file);
  const report = new Report();
  report.findings.push(...findings);
  if (report.failed) return { report };
  const first = docs[0];
  if (!first) {
    report.findings.push({
      file: file.path,
      line: 1,
      column: 1,
      code: 'interop/pai-empty',
      severity: 'error',
      path: '',
      message: 'the request is empty',
      hint: 'give a CreateJob request body: { "DisplayName": ..., "JobType": ..., "JobSpecs": [ ... ], "ResourceId": ..., "WorkspaceId": ... }',
    });
    return { report };
  }
  const { sd, value } = first;
  const req = asObject(value);
  if (!req) {
    report.error(sd, [], 'interop/pai-not-an-object', 'a CreateJob request body is a JSON object', 'give { "JobSpecs": [ ... ], ... }');
    return { report };
  }
  const origins = new Map<string, { path: string; line: number; column: number }>();
  const note = (quotient: string, path: PathSeg[]): void => {
    const node = sd.doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
    const pos = sd.lines.linePos(node?.range?.[0] ?? 0);
    origins.set(quotient, { path: formatPath(path), line: pos.line, column: pos.col });
  };
  unknownFields(sd, [], req, REQUEST_FIELDS, report);
  const str = (path: PathSeg[], v: unknown, required: boolean, hint: string): string | undefined => {
    if (v === undefined) {
      if (required) report.error(sd, path.slice(0, -1), 'interop/pai-missing-field', `${formatPath(path)} is required`, hint);
      return undefined;
    }
    if (typeof v !== 'string' || v === '') {
      report.error(sd, path, 'interop/pai-invalid-field', `${formatPath(path)} must be a non-empty string, got ${JSON.stringify(v)}`, hint);
      return undefined;
    }
    return v;
  };
  const name = str(['DisplayName'], req.DisplayName, true, 'give the job a DisplayName');
  str(['JobType'], req.JobType, true, 'give a JobType such as PyTorchJob or TFJob');
  const quota = str(['ResourceId'], req.ResourceId, true, 'ResourceId names the quota the job runs on (a Quotient quota name)');
  const workspace = str(['WorkspaceId'], req.WorkspaceId, true, 'WorkspaceId names the workspace (a Quotient Workspace name)');
  note('name', ['DisplayName']);
  note('quota', ['ResourceId']);
  note('workspace', ['WorkspaceId']);

  let priority = 1;
  if (req.Priority !== undefined) {
    if (typeof req.Priority !== 'number' || !Number.isInteger(req.Priority) || req.Priority < 1 || req.Priority > 9)
      report.error(sd, ['Priority'], 'interop/pai-invalid-field', `Priority must be a whole number 1..9, got ${JSON.stringify(req.Priority)}`, 'PAI priorities run 1 (lowest) to 9; the default is 1');
    else priority = req.Priority;
  }
  note('priority', req.Priority === undefined ? [] : ['Priority']);
  let maxRuntime: string | undefined;
  if (req.JobMaxRunningTimeMinutes !== undefined) {
    const m = req.JobMaxRunningTimeMinutes;
    if (typeof m !== 'number' || !Number.isInteger(m) || m <= 0)
      report.error(
        sd,
        ['JobMaxRunningTimeMinutes'],
        'interop/pai-invalid-field',
        `JobMaxRunningTimeMinutes must be a positive whole number of minutes, got ${JSON.stringify(m)}`,
        'e.g. 1440 for a day',
      );
    else maxRuntime = `${m}m`;
    note('maxRuntime', ['JobMaxRunningTimeMinutes']);
  }

  // The idle-resource setting.
  let idle: IdleMode = 'none';
  const settings = req.Settings === undefined ? undefined : asObject(req.Settings);
  if (req.Settings !== undefined && !settings) report.error(sd, ['Settings'], 'interop/pai-invalid-field', 'Settings must be an object', 'e.g. { "OversoldType": "AcceptQuotaOverSold" }');
  if (settings) {
    unknownFields(sd, ['Settings'], settings, SETTINGS_FIELDS, report);
    if (settings.OversoldType !== undefined) {
      const mode = typeof settings.OversoldType === 'string' ? OVERSOLD_TYPES[settings.OversoldType] : undefined;
      if (!mode)
        report.error(
          sd,
          ['Settings', 'OversoldType'],
          'interop/pai-invalid-field',
          `Settings.OversoldType ${JSON.stringify(settings.OversoldType)} is not one of ${Object.keys(OVERSOLD_TYPES).join(', ')}`,
          'ForbiddenQuotaOverSold: quota only; AcceptQuotaOverSold: idle resources when the quota is full; ForceQuotaOverSold: idle resources only',
        );
      else idle = mode;
      note('idleResources', ['Settings', 'OversoldType']);
    }
  }

  // JobSpecs: one gang of every role's pods.
  const specs = Array.isArray(req.JobSpecs) ? req.JobSpecs : undefined;
  if (req.JobSpecs === undefined)
    report.error(sd, [], 'interop/pai-missing-field', 'JobSpecs is required', 'give at least one JobSpec: { "Type": "Worker", "PodCount": 2, "ResourceConfig": { "GPU": "8" } }');
  else if (!specs || specs.length === 0) report.error(sd, ['JobSpecs'], 'interop/pai-invalid-field', 'JobSpecs must be a non-empty list', 'give at least one JobSpec');
  const shapes: Array<{ pods: number; gpu: number; cpu?: number; memory?: number; cpuText?: string; memText?: string; models?: string[]; at: PathSeg[] }> = [];
  const notes: string[] = [];
  (specs ?? []).forEach((raw, i) => {
    const at: PathSeg[] = ['JobSpecs', i];
    const spec = asObject(raw);
    if (!spec) {
      report.error(sd, at, 'interop/pai-invalid-field', `JobSpecs[${i}] must be an object`, 'a JobSpec is { "Type": ..., "PodCount": ..., "ResourceConfig": { ... } }');
      return;
    }
    unknownFields(sd, at, spec, JOBSPEC_FIELDS, report);
    let pods = 1;
    if (spec.PodCount !== undefined) {
      if (typeof spec.PodCount !== 'number' || !Number.isInteger(spec.PodCount) || spec.PodCount < 0)
        report.error(
          sd,
          [...at, 'PodCount'],
          'interop/pai-invalid-field',
          `JobSpecs[${i}].PodCount must be a whole number, got ${JSON.stringify(spec.PodCount)}`,
          'the number of replicas of this role',
        );
      else pods = spec.PodCount;
    }
    const rc = asObject(spec.ResourceConfig);
    if (!rc) {
      if (spec.EcsSpec !== undefined)
        report.error(
          sd,
          [...at, 'EcsSpec'],
          'interop/pai-ecs-spec',
          `JobSpecs[${i}] gives an EcsSpec (an instance type), whose GPU count Quotient cannot know`,
          'give ResourceConfig { "GPU": "8", "CPU": "64", "Memory": "512Gi" } for jobs on a quota',
        );
      else report.error(sd, at, 'interop/pai-missing-field', `JobSpecs[${i}].ResourceConfig is required`, 'give ResourceConfig { "GPU": "8" }: jobs on a quota declare their resources');
      return;
    }
    unknownFields(sd, [...at, 'ResourceConfig'], rc, RESOURCE_FIELDS, report);
    const gpu = rc.GPU === undefined ? 0 : parseCount(rc.GPU);
    if (gpu === undefined) {
      report.error(
        sd,
        [...at, 'ResourceConfig', 'GPU'],
        'interop/pai-invalid-field',
        `JobSpecs[${i}].ResourceConfig.GPU ${JSON.stringify(rc.GPU)} is not a whole number of GPUs`,
        'the SDK types GPU as a string: "8"',
      );
      return;
    }
    const shape: (typeof shapes)[number] = { pods, gpu, at };
    for (const [field, parse, key] of [
      ['CPU', parseCpu, 'cpu'],
      ['Memory', parseMemory, 'memory'],
    ] as const) {
      if (rc[field] === undefined) continue;
      const v = parse(rc[field]);
      if (v === undefined)
        report.error(
          sd,
          [...at, 'ResourceConfig', field],
          'interop/pai-invalid-field',
          `JobSpecs[${i}].ResourceConfig.${field} ${JSON.stringify(rc[field])} is not a quantity`,
          field === 'CPU' ? 'e.g. "16" or "500m"' : 'e.g. "128Gi"',
        );
      else {
        shape[key] = v;
        // parse accepted it, so it is a string or a number (which JSON prints as String would).
        const given = rc[field];
        const text = typeof given === 'string' ? given : JSON.stringify(given);
        if (key === 'cpu') shape.cpuText = text;
        else shape.memText = text;
      }
    }
    if (rc.GPUType !== undefined) {
      if (typeof rc.GPUType !== 'string' || rc.GPUType === '')
        report.error(sd, [...at, 'ResourceConfig', 'GPUType'], 'interop/pai-invalid-field', `JobSpecs[${i}].ResourceConfig.GPUType must be a non-empty string`, 'e.g. "NVIDIA-A100-SXM4-80GB"');
      else shape.models = [rc.GPUType];
    }
    if (spec.SpotSpec !== undefined) readSpot(sd, [...at, 'SpotSpec'], spec.SpotSpec, report, notes);
    if (spec.OversoldType !== undefined) {
      const mode = typeof spec.OversoldType === 'string' ? OVERSOLD_TYPES[spec.OversoldType] : undefined;
      if (!mode)
        report.error(
          sd,
          [...at, 'OversoldType'],
          'interop/pai-invalid-field',
          `JobSpecs[${i}].OversoldType ${JSON.stringify(spec.OversoldType)} is not one of ${Object.keys(OVERSOLD_TYPES).join(', ')}`,
          'or set Settings.OversoldType for the whole job',
        );
      else if (settings?.OversoldType !== undefined && mode !== idle)
        report.error(sd, [...at, 'OversoldType'], 'interop/pai-conflict', `JobSpecs[${i}].OversoldType contradicts Settings.OversoldType`, 'give the idle-resource setting once');
      else {
        idle = mode;
        note('idleResources', [...at, 'OversoldType']);
      }
    }
    if (gpu > 0 && pods > 0) shapes.push(shape);
    else notes.push(`JobSpecs[${i}] (${typeof spec.Type === 'string' ? spec.Type : 'a role'}) asks no GPUs: it is not part of the GPU gang`);
  });
  if (report.failed || !name || !quota || !workspace) return { report };
  if (shapes.length === 0) {
    report.error(sd, ['JobSpecs'], 'interop/pai-no-gpus', 'no JobSpec asks for GPUs', 'Quotient answers for GPU jobs: give ResourceConfig.GPU on at least one JobSpec');
    return { report };
  }
  // A Quotient job is one gang of pods of one shape: roles of different shapes are asked
  // as the largest shape (never smaller than any role, so "admit" is never too hopeful).
  const big = shapes.reduce((a, b) => (b.gpu > a.gpu || (b.gpu === a.gpu && (b.cpu ?? 0) > (a.cpu ?? 0)) ? b : a));
  const pods = shapes.reduce((s, x) => s + x.pods, 0);
  if (shapes.some((s) => s.gpu !== big.gpu || s.cpu !== big.cpu || s.memory !== big.memory)) {
    notes.push(`the roles ask different resources; all ${pods} pods are asked with the largest role's (${formatPath(big.at)}): ${big.gpu} GPU per pod`);
    report.warn(
      sd,
      big.at,
      'interop/pai-mixed-shapes',
      `JobSpecs ask different resources per pod; Quotient asks all ${pods} pods with the largest (${big.gpu} GPU)`,
      'a Quotient job is one gang of equal pods; the answer is never more hopeful than the real job',
    );
  }
  note('pods', shapes.length === 1 ? [...big.at, 'PodCount'] : ['JobSpecs']);
  note('resources.gpu', [...big.at, 'ResourceConfig', 'GPU']);
  const models = [...new Set(shapes.flatMap((s) => s.models ?? []))];
  if (models.length) note('gpuModels', [...(shapes.find((s) => s.models)?.at ?? big.at), 'ResourceConfig', 'GPUType']);
  return {
    submission: {
      job: {
        name,
        workspace,
        quota,
        module: 'DLC',
        priority,
        pods,
        resources: { gpu: big.gpu, ...(big.cpuText ? { cpu: big.cpuText } : {}), ...(big.memText ? { memory: big.memText } : {}) },
        idleResources: idle,
        ...(maxRuntime ? { maxRuntime } : {}),
        ...(models.length ? { gpuModels: models } : {}),
      },
      origins,
      notes,
    },
    report,
  };
}

/** SpotSpec: SpotStrategy SpotWithPriceLimit with exactly one of the two limits (SpotSpec.ts). */
function readSpot(sd: SourceDoc, at: PathSeg[], raw: unknown, report: Report, notes: string[]): void {
  const spot = asObject(raw);
  if (!spot) {
    report.error(sd, at, 'interop/pai-invalid-field', `${formatPath(at)} must be an object`, '{ "SpotStrategy": "SpotWithPriceLimit", "SpotDiscountLimit": 0.8 }');
    return;
  }
  unknownFields(sd, at, spot, SPOT_FIELDS, report);
  if (spot.SpotStrategy !== 'SpotWithPriceLimit')
    report.error(
      sd,
      spot.SpotStrategy === undefined ? at : [...at, 'SpotStrategy'],
      'interop/pai-invalid-field',
      `${formatPath([...at, 'SpotStrategy'])} must be "SpotWithPriceLimit" (the one value the SDK documents), got ${JSON.stringify(spot.SpotStrategy)}`,
      'set "SpotStrategy": "SpotWithPriceLimit"',
    );
  const limits = (['SpotDiscountLimit', 'SpotPriceLimit'] as const).filter((k) => spot[k] !== undefined);
  if (limits.length !== 1)
    report.error(
      sd,
      limits.length ? [...at, limits[1]!] : at,
      'interop/pai-invalid-field',
      `${formatPath(at)} must give exactly one of SpotDiscountLimit and SpotPriceLimit (it gives ${limits.length})`,
      'the SDK: "Specify only one of SpotDiscountLimit and SpotPriceLimit"',
    );
  for (const k of limits)
    if (typeof spot[k] !== 'number' || !(spot[k] > 0))
      report.error(
        sd,
        [...at, k],
        'interop/pai-invalid-field',
        `${formatPath([...at, k])} must be a positive number, got ${JSON.stringify(spot[k])}`,
        k === 'SpotDiscountLimit' ? 'a discount such as 0.8' : 'a price in CNY/minute such as 0.4744',
      );
  report.warn(
    sd,
    at,
    'interop/pai-spot-not-modelled',
    'spot instances are pay-as-you-go capacity outside quotas, which Quotient does not model; the job is answered as a job on its quota',
    'drop SpotSpec to ask about the quota job only',
  );
  notes.push('SpotSpec is not modelled: answered as a job on its quota');
}

/** A warning for each key the SDK model does not declare, with the nearest declared name. */
function unknownFields(sd: SourceDoc, at: PathSeg[], obj: Record<string, unknown>, known: string[], report: Report): void {
  for (const key of Object.keys(obj)) {
    if (known.includes(key)) continue;
    const near = nearest(key, known);
    report.warn(
      sd,
      [...at, key],
      'interop/pai-unknown-field',
      `${formatPath([...at, key])} is not a field of the PAI SDK's model; it is ignored`,
      near ? `did you mean "${near}"?` : `known fields: ${known.join(', ')}`,
    );
  }
}
