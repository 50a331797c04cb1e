/**
 * The B7 policy (BENCHMARKS.md): a generated 1,000-quota tree (10 divisions × 10 teams ×
 * 9 projects, plus the root) with preemption clauses, 100 workspaces (one per team)
 * holding members in three roles, resource policies per role and user and per-module
 * admission settings. No cluster: B7 measures compiling a policy, not answering on it.
 * Deterministic for a given seed.
 */
import { seededRandom } from './synthetic-cluster.js';

/** What `b7Policy` generated. */
export interface B7Policy {
  files: Array<{ path: string; text: string }>;
  stats: { quotas: number; workspaces: number; members: number; resourcePolicies: number; bytes: number };
}

/** Generates the B7 policy: one QuotaTree file and one file of Workspaces. */
export function b7Policy(seed = 7): B7Policy {
  const random = seededRandom(seed);
  const chance = (p: number): boolean => random() < p;
  const q: string[] = [];
  const ws: string[] = [];
  let quotas = 1;
  let members = 0;
  let resourcePolicies = 0;
  const DIV = 10,
    TEAM = 10,
    PROJ = 9,
    PROJ_GPU = 64;
  const teamGpu = PROJ * PROJ_GPU;
  const divGpu = TEAM * teamGpu;
  q.push('apiVersion: quotient.dev/v1', 'kind: QuotaTree', 'metadata: { name: b7 }', 'spec:', '  pool: { name: gpu-pool }', '  quotas:');
  q.push('    - name: root', `      min: { gpu: ${DIV * divGpu} }`, '      children:');
  for (let d = 0; d < DIV; d++) {
    const div = `div${d}`;
    quotas++;
    q.push(`        - name: ${div}`, `          min: { gpu: ${divGpu} }`);
    if (chance(0.5)) q.push('          childPreemption: { preemptiblePriority: 1-3, modules: [DLC, DSW] }');
    q.push('          children:');
    for (let t = 0; t < TEAM; t++) {
      const team = `${div}-team${t}`;
      quotas++;
      q.push(`            - name: ${team}`, `              min: { gpu: ${teamGpu} }`);
      if (chance(0.4)) q.push('              selfPreemption: { highPriority: 7-9, lowPriority: 1-4, modules: [DLC, DSW] }');
      if (chance(0.3)) q.push('              childPreemption: { preemptiblePriority: 1-2, modules: [DLC] }');
      q.push('              children:');
      const projects: string[] = [];
      for (let p = 0; p < PROJ; p++) {
        const proj = `${team}-proj${p}`;
        projects.push(proj);
        quotas++;
        q.push(`                - name: ${proj}`, `                  min: { gpu: ${PROJ_GPU} }`);
        if (chance(0.4)) q.push('                  selfPreemption: { highPriority: 6-9, lowPriority: 1-3, modules: [DLC, DSW, EAS] }');
        if (chance(0.3)) q.push(`                  reclaim: ${chance(0.5) ? 'lower-priority' : 'never'}`);
      }
      // One workspace per team: its quota and its projects.
      ws.push('---', 'apiVersion: quotient.dev/v1', 'kind: Workspace', `metadata: { name: ws-${team} }`, 'spec:');
      ws.push(`  quotas: [${[team, ...projects].join(', ')}]`, '  modules: [DLC, DSW, EAS]', '  members:');
      const users = Array.from({ length: 6 }, (_, i) => `u${d}-${t}-${i}`);
      users.forEach((u, i) => ws.push(`    - { user: ${u}, role: ${i === 0 ? 'admin' : i < 3 ? 'operator' : 'developer'} }`));
      members += users.length;
      ws.push('  resourcePolicies:');
      ws.push(`    - { role: admin, priority: 1-7, max: { gpu: ${teamGpu} } }`);
      ws.push(`    - { role: developer, max: { gpu: ${PROJ_GPU * 2} } }`);
      ws.push(`    - { user: ${users[1]}, priority: 7-9, max: { gpu: ${PROJ_GPU} } }`);
      resourcePolicies += 3;
      ws.push('  admission:', '    - module: DLC', '      maxRuntime: 72h', '      priorities:', '        - { role: developer, priority: 1-6 }');
    }
  }
  const files = [
    { path: 'b7/quotas.yaml', text: q.join('\n') + '\n' },
    { path: 'b7/workspaces.yaml', text: ws.slice(1).join('\n') + '\n' },
  ];
  return { files, stats: { quotas, workspaces: DIV * TEAM, members, resourcePolicies, bytes: files.reduce((s, f) => s + f.text.length, 0) } };
}
