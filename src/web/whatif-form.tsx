/**
 * The what-if form: the fields of a WhatIf `submit` (docs/policy-format.md section 5) a
 * team member sets before submitting — workspace, quota, module, priority, pods × GPUs,
 * idle mode. Every field has a visible label tied to it; the order of the fields is the
 * tab order; Enter in any field asks. A field the server finds wrong is marked invalid
 * with the finding's message tied to it (aria-describedby). (The API takes no spot bid:
 * spot jobs are asked about with `quotient whatif --market`.)
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { Finding, JobSubmit, QuotaView, ServeStatus } from './api-types.js';

const MODULES = ['DLC', 'DSW', 'EAS'] as const;
const IDLE_MODES: ReadonlyArray<[JobSubmit['idleResources'], string]> = [
  ['none', 'none (quota only)'],
  ['acceptable', 'acceptable (may use idle GPUs)'],
  ['only', 'only (idle GPUs only)'],
];

/** The form's fields as typed (numbers as text until asked). */
interface Fields {
  workspace: string;
  quota: string;
  module: string;
  priority: string;
  pods: string;
  gpu: string;
  idleResources: JobSubmit['idleResources'];
}

/** The field a finding's path (`submit.priority`, `submit.resources.gpu`) is about. */
function fieldOf(path: string | undefined): keyof Fields | undefined {
  const p = (path ?? '').replace(/^submits?(\[\d+\])?\.?/, '');
  if (p.startsWith('resources')) return 'gpu';
  const head = p.split('.')[0] as keyof Fields;
  return ['workspace', 'quota', 'module', 'priority', 'pods', 'idleResources'].includes(head) ? head : undefined;
}

/** The what-if form. `onAsk` sends the job; `findings` are those of the last answer (a 400). */
export function WhatIfForm({
  status,
  quotas,
  busy,
  findings,
  onAsk,
}: {
  status: ServeStatus;
  quotas: QuotaView | undefined;
  busy: boolean;
  findings: readonly Finding[];
  onAsk: (job: JobSubmit) => void;
}) {
  const all = quotas?.quotas ?? [];
  const workspaces = useMemo(() => {
    const own = status.viewer.workspaces;
    const rest = [...new Set(all.flatMap((q) => q.workspaces))].filter((w) => !own.includes(w)).sort();
    return status.viewer.admin || own.length === 0 ? [...own, ...rest] : own;
  }, [all, status.viewer]);
  const [f, setF] = useState<Fields>({ workspace: '', quota: '', module: 'DLC', priority: '5', pods: '1', gpu: '8', idleResources: 'none' });
  const quotaChoices = useMemo(() => {
    const mine = all.filter((q) => q.workspaces.includes(f.workspace)).map((q) => q.name);
    return mine.length > 0 ? mine : all.map((q) => q.name);
  }, [all, f.workspace]);

  // Fill the first workspace and a quota of it once they are known, and keep the quota one of the workspace's.
  useEffect(() => {
    setF((old) => {
      const workspace = workspaces.includes(old.workspace) ? old.workspace : (workspaces[0] ?? '');
      const mine = all.filter((q) => q.workspaces.includes(workspace)).map((q) => q.name);
      const choices = mine.length > 0 ? mine : all.map((q) => q.name);
      const quota = choices.includes(old.quota) ? old.quota : (choices[0] ?? '');
      return workspace === old.workspace && quota === old.quota ? old : { ...old, workspace, quota };
    });
  }, [workspaces, all]);

  const set =
    (key: keyof Fields) =>
    (e: Event): void => {
      const value = (e.currentTarget as HTMLInputElement | HTMLSelectElement).value;
      setF((old) => ({ ...old, [key]: value }));
    };
  const problems = new Map<keyof Fields, string>();
  for (const x of findings) {
    const k = fieldOf(x.path);
    if (k && !problems.has(k)) problems.set(k, x.message);
  }
  /** What marks field `key` (whose element is `whatif-ID`) invalid, tying the server's message to it. */
  const invalid = (key: keyof Fields, id: string) => (problems.has(key) ? { 'aria-invalid': true as const, 'aria-describedby': `whatif-${id}-error` } : {});
  const problem = (key: keyof Fields, id: string) =>
    problems.has(key) ? (
      <span id={`whatif-${id}-error`} class="field-error">
        {problems.get(key)}
      </span>
    ) : null;
  /** A labelled choice among `options` ([value, text]). */
  const select = (key: keyof Fields, id: string, label: string, options: ReadonlyArray<readonly [string, string]>) => (
    <div class="field">
      <label for={`whatif-${id}`}>{label}</label>
      <select id={`whatif-${id}`} value={f[key]} onChange={set(key)} {...invalid(key, id)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
      {problem(key, id)}
    </div>
  );
  /** A labelled whole number from `min` (to `max`). */
  const number = (key: keyof Fields, id: string, label: string, min: number, max?: number) => (
    <div class="field">
      <label for={`whatif-${id}`}>{label}</label>
      <input id={`whatif-${id}`} type="number" inputMode="numeric" min={min} max={max} step={1} value={f[key]} onInput={set(key)} {...invalid(key, id)} />
      {problem(key, id)}
    </div>
  );
  const same = (xs: readonly string[]) => xs.map((x) => [x, x] as const);

  const submit = (e: Event): void => {
    e.preventDefault();
    // aria-disabled, not disabled: a disabled button would drop the keyboard's focus while the answer comes.
    if (busy || !status.version) return;
    onAsk({
      workspace: f.workspace,
      quota: f.quota,
      module: f.module,
      priority: Number(f.priority),
      pods: Number(f.pods),
      resources: { gpu: Number(f.gpu) },
      idleResources: f.idleResources,
    });
  };

  return (
    <form class="whatif-form" onSubmit={submit} aria-labelledby="whatif-title" noValidate>
      {select('workspace', 'workspace', 'Workspace', same(workspaces))}
      {select('quota', 'quota', 'Quota', same(quotaChoices))}
      {select('module', 'module', 'Module', same(MODULES))}
      {number('priority', 'priority', 'Priority (1-9)', 1, 9)}
      <div class="field-row">
        {number('pods', 'pods', 'Pods', 1)}
        <span class="times" aria-hidden="true">
          ×
        </span>
        {number('gpu', 'gpu', 'GPUs per pod', 0)}
      </div>
      {select('idleResources', 'idle', 'Idle resources', IDLE_MODES)}
      <button type="submit" class="primary" aria-disabled={busy || !status.version}>
        {busy ? 'Asking…' : 'Ask what if'}
      </button>
    </form>
  );
}
