/** `quotient risk` end to end (docs/risk.md): the built CLI on the seeds' policy, its report, its exit codes and errors by code. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readReport } from '../helpers/report.js';
import { quotient } from '../helpers/run-cli.js';

const SEEDS = 'policies/inference-preempts-training';

describe('quotient risk', () => {
  it("ranks team B's and C's running jobs, each exposed one with the rule that exposes it and its policy line", () => {
    const r = quotient(['risk', SEEDS, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = readReport(r.stdout, 'RiskReport');
    const names = doc.jobs.map((j: { job: string }) => j.job);
    expect(new Set(names)).toEqual(new Set(['train-b-llm', 'train-b-eval', 'dsw-c-notebooks', 'dsw-c-finetune', 'dsw-c-research']));
    const exposed = doc.jobs.filter((j: { exposure: number }) => j.exposure > 0);
    expect(new Set(exposed.map((j: { workspace: string }) => j.workspace))).toEqual(new Set(['workspace-b', 'workspace-c']));
    for (const j of exposed) {
      expect(j.rule.rule).toBe('Quota1/childPreemption');
      expect(j.rule.source).toBe('policies/inference-preempts-training/quotas.yaml:14:9');
      expect(j.protection.priority).toBeGreaterThan(j.priority);
    }
    expect(doc.jobs.map((j: { rank: number }) => j.rank)).toEqual(names.map((_: string, i: number) => i + 1));
    expect(doc.arrivals).toMatchObject({ source: 'policy', trace: null, samples: 200, seed: 1, asked: 200 });
  });

  it('prints the same report for the same seed, and the table names the rule', () => {
    const a = quotient(['risk', SEEDS, '--seed', '9', '--samples', '80', '--json']);
    const b = quotient(['risk', SEEDS, '--seed', '9', '--samples', '80', '--json']);
    expect(a.status).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    const t = quotient(['risk', SEEDS, '--samples', '80'], undefined, { COLUMNS: '200' });
    expect(t.status).toBe(0);
    expect(t.stdout).toContain('Quota1/childPreemption');
  });

  it('ranks only what --as may see, and adds the horizon with --horizon', () => {
    const r = quotient(['risk', SEEDS, '--as', 'bob', '--horizon', '12h', '--runs', '3', '--samples', '50', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const doc = readReport(r.stdout, 'RiskReport');
    expect(doc.as).toBe('bob');
    expect(new Set(doc.jobs.map((j: { workspace: string }) => j.workspace))).toEqual(new Set(['workspace-b']));
    expect(doc.hiddenJobs).toBe(3);
    expect(doc.horizon).toMatchObject({ hours: 12, runs: 3, ratePerHour: 2 });
    for (const j of doc.jobs) expect(j.horizon.share).toBeCloseTo(j.horizon.runs / 3, 4);
  });

  it('draws from a trace, and exits 1 when rows of it were left out (each told on stderr), as simulate does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'quotient-risk-'));
    try {
      const good = readFileSync('policies/inference-preempts-training/jobs.csv', 'utf8');
      writeFileSync(join(dir, 'jobs.csv'), `${good}bad-row,1h,2h,Quota1,EAS,9,1,48\n`);
      const r = quotient(['risk', SEEDS, '--trace', join(dir, 'jobs.csv'), '--samples', '40', '--json']);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toContain('trace/');
      const doc = readReport(r.stdout, 'RiskReport');
      expect(doc.arrivals).toMatchObject({ source: 'trace', trace: join(dir, 'jobs.csv'), asked: 40 });
      expect(quotient(['risk', SEEDS, '--trace', 'policies/inference-preempts-training/jobs.csv', '--samples', '40', '--json']).status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // The codes of these refusals are pinned in test/unit/cli/risk-flags.test.ts (the CLI prints the message and the hint).
  it('refuses what it cannot run with exit 2, nothing on stdout and no stack trace: bad flags, an unknown user, a policy without a Cluster', () => {
    const cases: string[][] = [[SEEDS, '--samples', '0'], [SEEDS, '--horizon', 'soon'], [SEEDS, '--as', 'bobb'], ['policies/quota-scaling/quotas.yaml']];
    for (const args of cases) {
      const r = quotient(['risk', ...args, '--json']);
      expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(/^quotient: .*\n {2}hint: /);
      expect(r.stderr).not.toMatch(/\n\s+at /);
    }
  });

  // Issue 27 item 4: this aborted Node (exit 133, 1.9 GB) drawing 87.6 billion arrival times.
  it('refuses a horizon too long for one report at once, with exit 2 and its code, before any run', () => {
    const started = Date.now();
    const r = quotient(['risk', SEEDS, '--horizon', '3650d', '--runs', '1', '--rate', '1000000', '--json']);
    expect(r.status, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    // The code (risk/too-much-work) is pinned in test/unit/cli/risk-flags.test.ts; the words name the limit.
    expect(r.stderr).toMatch(/^quotient: .*more than the 50,000 one risk report simulates\n {2}hint: /);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(Date.now() - started).toBeLessThan(20_000);
  });
});
