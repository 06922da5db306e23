import { Injectable } from '@nestjs/common';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

const GROUP_COMMIT_EVENT_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1000, 2000];
const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  readonly httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  });
  readonly httpLatency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });
  readonly usageEvents = new Counter({
    name: 'usage_events_total',
    help: 'Usage events by outcome',
    labelNames: ['status'] as const,
    registers: [this.registry],
  });

  readonly sharedLimitsFallbacks = new Counter({
    name: 'shared_limits_fallbacks_total',
    help: 'Rate-limit checks done by the process alone because Redis could not answer',
    registers: [this.registry],
  });

  /** Group commits of the usage writer: events per transaction and its duration. */
  readonly groupCommitEvents = new Histogram({
    name: 'usage_group_commit_events',
    help: 'Usage events written per group-commit transaction',
    buckets: GROUP_COMMIT_EVENT_BUCKETS,
    registers: [this.registry],
  });
  readonly groupCommitDuration = new Histogram({
    name: 'usage_group_commit_duration_seconds',
    help: 'Duration of a group-commit transaction (pricing, write, read-back)',
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }
}
