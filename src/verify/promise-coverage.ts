/**
 * What a promise check explored, as `opa test --coverage` reports what a test run
 * touched: how many states were answered and how many of them were distinct, the
 * decisions they got, and, for every rule of the policy (each preemption clause, the
 * built-in reclaims, each admission setting), how many answers it decided. A rule that
 * never fired is a part of the policy the promise was never tested against.
 */
import { createHash } from 'node:crypto';
import type { Answer } from '../engine/answer.js';
import type { Session } from '../engine/session.js';
import type { PromiseState } from './promise-states.js';

/** Coverage of one promise check (the `coverage` field of `quotient test --json`). */
export interface PromiseCoverage {
  /** States generated and answered before any shrinking. */
  states: number;
  /** How many of them differ (running jobs, their placement and standing, and the submission). */
  distinctStates: number;
  /** Answers per decision. */
  decisions: Record<string, number>;
  /**
   * Every rule of the policy, in explain's order, with the number of answers it decided:
   * a preemption or reclaim rule when a victim was chosen under it, an admission rule
   * when a reason cites it.
   */
  rules: Array<{ rule: string; source: string; fired: number }>;
}

/** Collects coverage while states are answered. */
export class CoverageRecorder {
  private readonly seen = new Set<string>();
  private states = 0;
  private readonly decisions: Record<string, number> = {};
  private readonly fired = new Map<string, number>();
  private readonly rules: Array<{ rule: string; source: string }>;

  constructor(session: Session) {
    this.rules = [...session.rules.map((r) => ({ rule: r.name, source: r.source })), ...session.admissionRules.map((r) => ({ rule: r.name, source: r.source }))];
  }

  /** Records one answered state. */
  record(state: PromiseState, answer: Answer): void {
    this.states++;
    const key = JSON.stringify([state.cluster.jobs.map((j) => [j.name, j.quota, j.priority, j.module, j.pods, j.resources.gpu, j.standing, j.idleResources, j.startedAt, j.placement]), state.submit]);
    this.seen.add(createHash('sha1').update(key).digest('base64'));
    this.decisions[answer.decision] = (this.decisions[answer.decision] ?? 0) + 1;
    const hit = new Set(answer.victims.map((v) => v.rule));
    for (const r of this.rules) if (!hit.has(r.rule) && answer.reasons.some((x) => x.message.includes(r.rule))) hit.add(r.rule);
    for (const name of hit) this.fired.set(name, (this.fired.get(name) ?? 0) + 1);
  }

  /** The coverage so far. */
  result(): PromiseCoverage {
    return { states: this.states, distinctStates: this.seen.size, decisions: { ...this.decisions }, rules: this.rules.map((r) => ({ ...r, fired: this.fired.get(r.rule) ?? 0 })) };
  }
}
