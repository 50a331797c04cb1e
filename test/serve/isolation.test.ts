/**
 * Isolation (SEMANTICS 10, docs/serve.md "Isolation"): no response to user U contains the
 * name of a job U may not see. A property over generated policies (src/testing) split
 * among workspaces with members, admins, a guest and a stranger: every listing, the
 * status, what-if answers and explanations are asked as each user through the engine
 * threads' own handler (engine-handler.ts, in this process), and the hidden names are
 * worked out here from the rule itself, not from the engine's Viewer. Then the same over
 * HTTP for the shipped team-isolation policy.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { scenarioArbitrary, scenarioYaml, type Doc, type Scenario } from '../../src/testing/index.js';
import { handleRequest, openVersion } from '../../src/serve/engine-handler.js';
import type { Finding } from '../../src/errors.js';
import type { Caller, EngineRequest } from '../../src/serve/engine-messages.js';
import { namedJobs } from '../../src/serve/named-jobs.js';
import { failedLoadFindings, snapshotFailureFindings } from '../../src/serve/status-view.js';
import { serve, type TestServer } from './serve-helpers.js';

const RUNS = Number(process.env.QUOTIENT_PROPERTY_RUNS ?? 60);

/** What else a generated policy holds: queued jobs, standings the snapshot leaves to be derived. */
interface Extras {
  /** How many of the running jobs wait in their quotas' queues instead (0-3). */
  queued: number;
  /** The snapshot states no standing (`standings: derive`): each running job's is derived, with a finding. */
  derive: boolean;
}

interface Split {
  yaml: string;
  /** Job name → workspace and quota, and where its entry is (`spec.jobs[3]`, `spec.queue[0]`). */
  jobs: Array<{ name: string; workspace: string; quota: string; at: string }>;
  /** Quota → parent. */
  parent: Map<string, string | null>;
  /** User → member of / admin of. */
  users: Map<string, { member: string[]; admin: string[] }>;
  /** Workspace → quotas. */
  quotas: Map<string, string[]>;
  names: string[];
}

/** The scenario with its quotas split among `w` workspaces, members and admins in each, and jobs renamed `zqNq` (no name inside another); `extras` queues some jobs and leaves standings to be derived. */
function split(s: Scenario, w: number, extras: Extras = { queued: 0, derive: false }): Split {
  const docs = structuredClone<Doc[]>(s.docs);
  const tree = docs.find((d) => d.kind === 'QuotaTree')!;
  const parent = new Map<string, string | null>();
  const walk = (q: Doc, p: string | null): void => {
    parent.set(q.name as string, p);
    for (const c of (q.children as Doc[] | undefined) ?? []) walk(c, q.name as string);
  };
  for (const q of (tree.spec as { quotas: Doc[] }).quotas) walk(q, null);
  const quotaNames = [...parent.keys()];
  const n = Math.min(w, quotaNames.length);
  const wsOf = new Map(quotaNames.map((q, i) => [q, `ws-${i % n}`]));
  const quotas = new Map<string, string[]>();
  for (const [q, ws] of wsOf) quotas.set(ws, [...(quotas.get(ws) ?? []), q]);
  const users = new Map<string, { member: string[]; admin: string[] }>();
  const workspaces: Doc[] = [...quotas.entries()].map(([ws, qs], k) => {
    users.set(`u-${k}`, { member: [ws], admin: [] });
    users.set(`a-${k}`, { member: [ws], admin: [ws] });
    if (k === 0) users.set('g-0', { member: [ws], admin: [] });
    return {
      apiVersion: 'quotient.dev/v1',
      kind: 'Workspace',
      metadata: { name: ws },
      spec: {
        quotas: qs,
        members: [
          { user: `u-${k}`, role: 'developer' },
          { user: `a-${k}`, role: 'admin' },
        ],
        ...(k === 0 ? { guests: [{ user: 'g-0', role: 'developer' }] } : {}),
      },
    };
  });
  users.set('stranger', { member: [], admin: [] });
  const cluster = docs.find((d) => d.kind === 'Cluster')!;
  const spec = cluster.spec as { jobs?: Doc[]; queue?: Doc[]; standings?: string; at?: string };
  const all = spec.jobs ?? [];
  // The last `queued` jobs wait instead of running: a queued job has no placement, standing or start.
  const queued = all.splice(Math.max(0, all.length - extras.queued)).map((j, k): Doc => {
    const { placement: _p, standing: _s, startedAt: _t, expectedEnd: _e, checkpoint: _c, ...rest } = j;
    return { ...rest, submittedAt: new Date(Date.parse(spec.at!) - (30 - k) * 60_000).toISOString() };
  });
  if (queued.length) spec.queue = queued;
  if (extras.derive) {
    spec.standings = 'derive';
    for (const j of all) delete j.standing;
    // Halved guarantees leave some jobs over them: their derived standing is a finding, located in the job's entry.
    for (const q of parent.keys()) {
      const doc = findQuota(tree, q);
      const min = doc?.min as { gpu?: number } | undefined;
      if (min?.gpu !== undefined) min.gpu = Math.floor(min.gpu / 2);
    }
  }
  const jobs = [...all.map((j, i) => ({ j, at: `spec.jobs[${i}]` })), ...queued.map((j, i) => ({ j, at: `spec.queue[${i}]` }))].map(({ j, at }, i) => {
    const named = { name: `zq${i}q`, workspace: wsOf.get(j.quota as string)!, quota: j.quota as string, at };
    j.name = named.name;
    j.workspace = named.workspace;
    return named;
  });
  const whatIf = docs.find((d) => d.kind === 'WhatIf')!;
  const submit = (whatIf.spec as { submit: Doc }).submit;
  submit.workspace = wsOf.get(submit.quota as string)!;
  const out = [...docs.filter((d) => d.kind !== 'Workspace'), ...workspaces];
  return { yaml: scenarioYaml({ docs: out, query: s.query }), jobs, parent, users, quotas, names: jobs.map((j) => j.name) };
}

/** The quota document named `name` in a QuotaTree document. */
function findQuota(tree: Doc, name: string): Doc | undefined {
  const walk = (qs: Doc[] | undefined): Doc | undefined => {
    for (const q of qs ?? []) {
      if (q.name === name) return q;
      const found = walk(q.children as Doc[] | undefined);
      if (found) return found;
    }
    return undefined;
  };
  return walk((tree.spec as { quotas: Doc[] }).quotas);
}

/** True for a running job (a queued one has no explanation). */
function running(j: { at: string }): boolean {
  return j.at.startsWith('spec.jobs[');
}

/** A PAI CreateJob body for the WhatIf's job, asking for the GPU type `gpuType`. */
function paiBody(submit: Doc, gpuType: string): string {
  const res = submit.resources as { gpu?: number } | undefined;
  return JSON.stringify({
    DisplayName: 'pai-job',
    JobType: 'PyTorchJob',
    WorkspaceId: submit.workspace,
    ResourceId: submit.quota,
    Priority: submit.priority,
    JobSpecs: [{ Type: 'Worker', PodCount: submit.pods ?? 1, ResourceConfig: { GPU: String(res?.gpu ?? 1), GPUType: gpuType } }],
  });
}

/** SEMANTICS 10, written out: a member or guest sees their workspaces' jobs; an admin also every job on their workspaces' quotas and below. */
function sees(sp: Split, user: string, job: { workspace: string; quota: string }): boolean {
  const u = sp.users.get(user)!;
  if (u.member.includes(job.workspace)) return true;
  const roots = new Set(u.admin.flatMap((ws) => sp.quotas.get(ws) ?? []));
  for (let q: string | null | undefined = job.quota; q; q = sp.parent.get(q)) if (roots.has(q)) return true;
  return false;
}

describe('isolation', () => {
  it('never names to a user a job that user may not see, in any response (generated policies)', async () => {
    let checked = 0;
    let hiddenExplained = 0;
    let visibleExplained = 0;
    let answered = 0;
    let queuedCases = 0;
    let derivedCases = 0;
    let guessed = 0;
    await fc.assert(
      fc.asyncProperty(
        scenarioArbitrary({ maxQuotas: 6, maxJobs: 14 }),
        fc.integer({ min: 2, max: 3 }),
        fc.record({ queued: fc.integer({ min: 0, max: 3 }), derive: fc.boolean() }),
        async (scenario, w, extras) => {
          const sp = split(scenario, w, extras);
          const { loaded, message } = openVersion({ files: [{ path: 'case.yaml', text: sp.yaml }], label: 'case', version: 'v', backend: 'reference', now: Date.parse('2026-11-20T12:00:00Z') });
          expect(message.ok, JSON.stringify(message)).toBe(true);
          if (extras.queued > 0) queuedCases++;
          if (loaded!.info.findings.some((f) => f.code === 'policy/derived-standing')) derivedCases++;
          let id = 0;
          const brokenJobs = namedJobs([{ path: 'case.yaml', text: sp.yaml }]);
          expect(brokenJobs.map((j) => j.name).sort()).toEqual(sp.names.slice().sort());
          const brokenFindings: Finding[] = brokenJobs.map((j) => ({
            file: 'case.yaml',
            line: 1,
            column: 1,
            code: 'policy/invalid-value',
            severity: 'error',
            path: `${j.at!.path}.priority`,
            message: `job "${j.name}" has priority 12, over 9`,
            hint: 'priorities are 1-9',
          }));
          const snapshotFailure: Finding = {
            file: '--snapshot-command',
            line: 0,
            column: 0,
            code: 'serve/snapshot-command-failed',
            severity: 'error',
            path: '',
            message: `the snapshot command failed: exit 3: token s3cr3t denied for ${sp.names.join(', ')}`,
            hint: 'run the command by hand',
          };
          const submit = (JSON.parse(JSON.stringify(scenario.docs.find((d) => d.kind === 'WhatIf')!.spec)) as { submit: Doc }).submit;
          submit.workspace = sp.jobs.find((j) => j.quota === submit.quota)?.workspace ?? submit.workspace;
          for (const user of sp.users.keys()) {
            const caller: Caller = { view: user, user, admin: false };
            const hidden = sp.jobs.filter((j) => !sees(sp, user, j));
            const visible = sp.jobs.filter((j) => sees(sp, user, j));
            const asks: Array<EngineRequest> = [
              { id: ++id, caller, op: 'quotas' },
              { id: ++id, caller, op: 'nodes' },
              { id: ++id, caller, op: 'jobs', mine: false },
              { id: ++id, caller, op: 'jobs', mine: true },
              // A broken edit of the same files, its findings about each job located in the job's entry.
              { id: ++id, caller, op: 'status', lastLoad: { findings: brokenFindings, jobs: brokenJobs } },
              { id: ++id, caller, op: 'whatif', body: { query: 'q' } },
              { id: ++id, caller, op: 'whatif', body: { submit } },
              // Explanations are of running jobs.
              ...[...hidden.filter(running).slice(0, 3), ...visible.filter(running).slice(0, 3)].map((j): EngineRequest => ({ id: ++id, caller, op: 'explain', job: j.name })),
            ];
            let text = '';
            for (const req of asks) {
              const reply = await handleRequest(loaded!, req);
              expect('error' in reply ? reply.error : '').toBe('');
              if ('error' in reply) continue;
              text += reply.text;
              if (req.op === 'explain') {
                const isHidden = hidden.some((j) => j.name === req.job);
                expect(reply.status).toBe(isHidden ? 404 : 200);
                if (isHidden) hiddenExplained++;
                else visibleExplained++;
              }
              if (req.op === 'whatif' && reply.status === 200) answered++;
              // A finding located in a job's entry (a derived standing) is about that job: never one the user may not see.
              for (const f of (JSON.parse(reply.text) as { findings?: Array<{ file: string; path: string }> }).findings ?? []) {
                const about = sp.jobs.find((j) => f.file === 'case.yaml' && (f.path === j.at || f.path.startsWith(`${j.at}.`)));
                if (about) expect(sees(sp, user, about), `${user} read a finding about ${about.name}: ${JSON.stringify(f)}`).toBe(true);
              }
            }
            // What /v1/status adds when no version serves (a failed load) and when the snapshot command failed (its stderr quotes every job and a token).
            text += JSON.stringify(failedLoadFindings(caller, brokenFindings, brokenJobs));
            text += JSON.stringify(snapshotFailureFindings(caller, [snapshotFailure]));
            expect(text, `${user} read the snapshot command's words`).not.toContain('s3cr3t');
            for (const j of hidden) expect(text.includes(j.name), `${user} read ${j.name}\n${sp.yaml}`).toBe(false);
            // A hidden job is named by its workspace and priority band only: never with its exact priority.
            expect(text, `${user} read a hidden job's priority`).not.toMatch(/(\(hidden: [^)]*\)|a job of \S+) on \S+ \(priority \d/);
            // Positive control: the listing names every job the user may see.
            for (const j of visible) expect(text.includes(j.name)).toBe(true);
            if (hidden.length > 0) checked++;
            // Text the caller supplies is theirs: a guess of a hidden job's name reads exactly as a name no job has.
            const guess = hidden[0];
            if (guess) {
              const none = guess.name.replace('zq', 'zx');
              const asked = async (name: string): Promise<string> => {
                let out = '';
                for (const body of [{ submit: { ...submit, name, gpuModels: [name] } }, { submit: { ...submit, submittedBy: name } }]) {
                  const reply = await handleRequest(loaded!, { id: ++id, caller, op: 'whatif', body: body });
                  out += 'error' in reply ? reply.error : reply.text;
                }
                const pai = await handleRequest(loaded!, { id: ++id, caller, op: 'pai', body: paiBody(submit, name), estimate: false });
                return (out + ('error' in pai ? pai.error : pai.text)).split(name).join('NAME');
              };
              expect(await asked(guess.name), `${user} guessed ${guess.name}`).toBe(await asked(none));
              guessed++;
            }
          }
        },
      ),
      { numRuns: RUNS, seed: Number(process.env.QUOTIENT_SEED ?? 20) },
    );
    // The check must have had hidden jobs to hide, explanations of both kinds and answers to read.
    expect(checked).toBeGreaterThan(RUNS);
    expect(hiddenExplained).toBeGreaterThan(RUNS / 2);
    expect(visibleExplained).toBeGreaterThan(RUNS / 2);
    expect(answered).toBeGreaterThan(RUNS);
    // Queued jobs, derived standings (with their findings) and guesses were all generated.
    expect(queuedCases).toBeGreaterThan(RUNS / 2);
    expect(derivedCases).toBeGreaterThan(RUNS / 10);
    expect(guessed).toBeGreaterThan(RUNS);
  });
});

describe('isolation over HTTP (policies/team-isolation)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await serve(['policies/team-isolation']);
  });

  it("never names team B's jobs to carol (team C), anywhere", async () => {
    const jobs = (await (await s.get('/v1/jobs', 'alice')).json()) as { running: Array<{ job: string; workspace: string }> };
    const teamB = jobs.running.filter((j) => j.workspace === 'workspace-b').map((j) => j.job);
    expect(teamB.length).toBeGreaterThan(0);
    let text = '';
    for (const path of ['/v1/quotas', '/v1/nodes', '/v1/jobs', '/v1/jobs?mine=true', '/v1/status', ...teamB.map((n) => `/v1/jobs/${n}/explain`)]) text += await (await s.get(path, 'carol')).text();
    for (const q of ['team-a-service', 'bob-in-workspace-c', 'operator-on-quota1-1']) text += await (await s.post('/v1/whatif', { query: q }, 'carol')).text();
    for (const name of teamB) expect(text).not.toContain(name);
    expect(text).toContain('(hidden: workspace-b)');
  });
});
