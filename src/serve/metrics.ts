/**
 * The server's Prometheus metrics (prom-client), every name `quotient_*`: requests and
 * their latency by route, answers' decisions by kind, reloads and load failures, the
 * response cache, and the process's own (CPU, memory, event loop).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The metrics of one server. */
export class ServeMetrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'quotient_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });
  readonly latency = new Histogram({
    name: 'quotient_http_request_duration_seconds',
    help: 'Time from a request received to its response sent, by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });
  readonly decisions = new Counter({
    name: 'quotient_decisions_total',
    help: 'What-if answers given, by decision (admit, preempt, wait, reject)',
    labelNames: ['decision'],
    registers: [this.registry],
  });
  readonly reloads = new Counter({ name: 'quotient_policy_reloads_total', help: 'New policy versions loaded and swapped in (the first load counts)', registers: [this.registry] });
  readonly loadFailures = new Counter({
    name: 'quotient_policy_load_failures_total',
    help: 'Loads that failed (the last good version kept serving), by stage: read, snapshot-command, open',
    labelNames: ['stage'],
    registers: [this.registry],
  });
  readonly loadSeconds = new Histogram({
    name: 'quotient_policy_load_duration_seconds',
    help: 'Time to open a policy version on its engine thread',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [this.registry],
  });
  readonly lastLoadOk = new Gauge({
    name: 'quotient_policy_last_load_ok',
    help: '1 when the latest load attempt succeeded, 0 when it failed (the last good version serves)',
    registers: [this.registry],
  });
  readonly info = new Gauge({ name: 'quotient_policy_info', help: 'The policy version being served (value 1)', labelNames: ['version'], registers: [this.registry] });
  readonly ready = new Gauge({ name: 'quotient_ready', help: '1 when a valid policy is loaded and the server is not shutting down', registers: [this.registry] });
  readonly cache = new Counter({ name: 'quotient_response_cache_total', help: 'Responses looked up in the response cache, by result (hit, miss)', labelNames: ['result'], registers: [this.registry] });
  readonly weightedShare = new Gauge({
    name: 'quotient_quota_weighted_share',
    help: "Each quota's weighted share (SEMANTICS 13; Kueue's status.fairSharing.weightedShare), for trees under Kueue's rules with fair sharing; +Inf for a borrowing quota of weight 0",
    labelNames: ['quota'],
    registers: [this.registry],
  });
  readonly inFlight = new Gauge({ name: 'quotient_engine_requests_in_flight', help: 'Requests sent to engine threads and not yet answered', registers: [this.registry] });

  constructor(options: { processMetrics?: boolean } = {}) {
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'quotient_' });
  }

  /** Sets the share gauge from a QuotaView's quotas: one series per quota that has a share, none otherwise. */
  shares(quotas: ReadonlyArray<{ name: string; fairShare?: { weightedShare: number | string; weight: number } | null }>): void {
    this.weightedShare.reset();
    for (const q of quotas) if (q.fairShare) this.weightedShare.set({ quota: q.name }, q.fairShare.weightedShare === 'infinite' ? Infinity : Number(q.fairShare.weightedShare));
  }

  /** Shows `version` as the one being served. */
  serving(version: string): void {
    this.info.reset();
    this.info.set({ version }, 1);
  }
}
