// /metrics for the LiteLLM integration: entries refused by path and reason, read from Postgres at
// scrape time (the push counts in the API, the pull in the worker: both write the same table).
import { Injectable, Logger } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { MetricsService } from '../health/metrics.service.js';
import { CachedReading } from '../operations/cached-reading.js';
import { LitellmRepository } from './litellm.repository.js';

/** One read of the counters serves the scrapes of this long. */
const COUNTS_CACHE_MS = 5_000;

@Injectable()
export class LitellmMetrics {
  private readonly logger = new Logger('LitellmMetrics');

  constructor(metrics: MetricsService, repository: LitellmRepository) {
    const counts = new CachedReading(COUNTS_CACHE_MS, () => repository.rejectionCounts());
    const logger = this.logger;
    new Gauge({
      name: 'litellm_rejected_total',
      help: 'LiteLLM payloads (push) and spend-log rows (pull) rejected, by reason (api.md "LiteLLM push, never losing a call")',
      labelNames: ['path', 'reason'] as const,
      registers: [metrics.registry],
      async collect() {
        const read = await counts.get().catch((error: unknown) => {
          logger.warn(`metrics: LiteLLM rejections could not be read: ${(error as Error).message}`);
          return null;
        });
        if (read === null) return;
        this.reset();
        for (const r of read) this.set({ path: r.path, reason: r.reason }, r.count);
      },
    });
  }
}
