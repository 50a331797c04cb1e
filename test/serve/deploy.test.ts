/**
 * deploy/ and the Dockerfile, checked without a cluster: every manifest against the
 * Kubernetes API schemas (kubernetes-models' validation: types, required fields, enums),
 * then what the schemas cannot say — the server's arguments are flags `quotient serve`
 * takes, its probes are its own routes, it runs as non-root on a read-only root file
 * system, the RBAC is read-only on nodes and pods, the sweep is an Indexed Job whose
 * shards `report merge` joins, and the ConfigMap's policy is a valid one. (The schemas do
 * not refuse unknown fields, so the fields that matter are also read back here.)
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1/Ingress';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { listenFlag } from '../../src/cli/serve.js';
import { parseAuth } from '../../src/serve/auth.js';
import { quotient, ROOT } from '../helpers/run-cli.js';

const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- manifests are read as any YAML
type Obj = any;

function manifests(): Array<{ file: string; obj: Obj }> {
  const dir = join(ROOT, 'deploy');
  const files = [...readdirSync(dir).map((f) => join(dir, f)), ...readdirSync(join(dir, 'optional')).map((f) => join(dir, 'optional', f))].filter(
    (f) => f.endsWith('.yaml') && !f.endsWith('kustomization.yaml'),
  );
  return files.flatMap((file) =>
    parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
      expect(d.errors, file).toEqual([]);
      return { file: file.slice(ROOT.length + 1), obj: d.toJS() };
    }),
  );
}

const all = manifests();
const of = (kind: string): Obj[] => all.filter((m) => m.obj.kind === kind).map((m) => m.obj);
const containers = (o: Obj): Obj[] => o.spec.template.spec.containers;

describe('deploy/', () => {
  it.each(all.map((m) => [`${m.file} ${m.obj.kind} ${m.obj.metadata?.name}`, m.obj]))('%s fits the Kubernetes schema', (_name, obj: Obj) => {
    const key = `${obj.apiVersion}/${obj.kind}`;
    const Model = MODELS[key];
    expect(Model, key).toBeDefined();
    expect(() => new Model!(obj as never).validate()).not.toThrow();
  });

  it('lists every base manifest in the kustomization', () => {
    const k = parseAllDocuments(readFileSync(join(ROOT, 'deploy/kustomization.yaml'), 'utf8'))[0]!.toJS() as { resources: string[] };
    const base = readdirSync(join(ROOT, 'deploy')).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
    expect([...k.resources].sort()).toEqual(base.sort());
  });

  it('runs the server with flags it takes, probes on its own routes, as non-root on a read-only root file system', () => {
    const help = quotient(['serve', '--help']).stdout;
    for (const d of of('Deployment')) {
      const c = containers(d).find((x: Obj) => x.name === 'quotient');
      const args: string[] = c.args;
      expect(args[0]).toBe('serve');
      for (const flag of args.filter((a) => a.startsWith('--'))) expect(help, flag).toContain(flag);
      expect(() => parseAuth(args[args.indexOf('--auth') + 1]!)).not.toThrow();
      expect(listenFlag(args[args.indexOf('--listen') + 1]!).port).toBe(c.ports[0].containerPort);
      expect(args[args.indexOf('--snapshot-command') + 1]).toBe('kubectl get nodes,pods -A -o json');
      expect([c.livenessProbe.httpGet.path, c.readinessProbe.httpGet.path, c.startupProbe.httpGet.path]).toEqual(['/livez', '/readyz', '/livez']);
      expect(c.resources.requests.memory).toBeDefined();
      expect(c.resources.limits.memory).toBeDefined();
      for (const x of containers(d)) {
        expect(x.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
      }
      expect(d.spec.template.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
      expect(d.spec.template.spec.serviceAccountName).toBe('quotient');
    }
  });

  it('grants the service account read-only access to nodes and pods, nothing else', () => {
    const [role] = of('ClusterRole');
    expect(role.rules).toEqual([{ apiGroups: [''], resources: ['nodes', 'pods'], verbs: ['get', 'list', 'watch'] }]);
    const [binding] = of('ClusterRoleBinding');
    expect(binding.subjects).toEqual([{ kind: 'ServiceAccount', name: 'quotient', namespace: 'quotient' }]);
    expect(binding.roleRef.name).toBe(role.metadata.name);
  });

  it('lets only the ingress controller and Prometheus reach the server (its user header is trusted)', () => {
    const [np] = of('NetworkPolicy');
    expect(np.spec.policyTypes).toEqual(['Ingress']);
    const [ingress] = of('Ingress');
    expect(ingress.metadata.annotations['nginx.ingress.kubernetes.io/auth-response-headers']).toBe('X-Auth-Request-User');
    const [d] = of('Deployment');
    expect(containers(d)[0].args).toContain('header:X-Auth-Request-User');
  });

  it('runs a sweep as an Indexed Job, one shard per JOB_COMPLETION_INDEX, that `report merge` joins (run here with two shards)', () => {
    const sweep = of('Job').find((j) => j.metadata.name === 'quotient-sweep');
    expect(sweep.spec).toMatchObject({ completionMode: 'Indexed', completions: 8, parallelism: 8 });
    const script: string = containers(sweep)[0].args[0];
    expect(script).toContain('--shard "$JOB_COMPLETION_INDEX/8"');
    const merge = of('Job').find((j) => j.metadata.name === 'quotient-sweep-merge');
    expect(containers(merge)[0].args[0]).toContain('quotient report merge /results/shard-*.json');
    // The same command line, smaller (2 shards, 200 jobs), as the pods would run it.
    const small = script
      .replaceAll('/app/policies', 'policies')
      .replace('--jobs 20000', '--jobs 200')
      .replace('--seeds 1-16', '--seeds 1-2')
      .replace('/8"', '/2"')
      .replace(/\s*>\s*"\/results\/shard-\$JOB_COMPLETION_INDEX\.json"/, '')
      .replace(/^quotient /, '');
    const argv = (i: number): string[] => small.replace('"$JOB_COMPLETION_INDEX/2"', `${i}/2`).split(/\s+/);
    const shards = [0, 1].map((i) => quotient(argv(i)));
    for (const s of shards) expect(s.status).toBe(0);
    const whole = quotient(argv(0).filter((a, k, xs) => a !== '--shard' && xs[k - 1] !== '--shard'));
    const dir = mkdtempSync(join(tmpdir(), 'quotient-sweep-'));
    const files = shards.map((s, i) => {
      const f = join(dir, `shard-${i}.json`);
      writeFileSync(f, s.stdout);
      return f;
    });
    const merged = quotient(['report', 'merge', ...files, '--json']);
    expect(merged.status).toBe(0);
    expect(merged.stdout).toBe(whole.stdout);
  });

  it('holds a valid policy in the ConfigMap (the snapshot comes from the cluster)', () => {
    const [cm] = of('ConfigMap');
    const dir = mkdtempSync(join(tmpdir(), 'quotient-cm-'));
    for (const [k, v] of Object.entries(cm.data as Record<string, string>)) writeFileSync(join(dir, k), v);
    const r = quotient(['check', dir]);
    expect(r.status, r.stderr).toBe(0);
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const last = text.slice(text.lastIndexOf('\nFROM '));

  it('runs on Node 20 as a non-root user, with the CLI as its entry point', () => {
    for (const from of text.matchAll(/^FROM (\S+)/gm)) expect(from[1]).toMatch(/^(node:20\.|debian:)/);
    expect(last).toMatch(/^USER 1000:1000$/m);
    expect(last).not.toMatch(/^USER (root|0)\b/m);
    expect(last).toMatch(/^ENTRYPOINT \["quotient"\]$/m);
    expect(last).toMatch(/^CMD \["serve", "\/policy"/m);
  });

  it('checks the kubectl it downloads against its published SHA-256', () => {
    expect(text).toMatch(/kubectl\.sha256/);
    expect(text).toMatch(/sha256sum -c -/);
  });
});
