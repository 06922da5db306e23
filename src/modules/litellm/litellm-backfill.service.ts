import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { spendLogPayload } from './litellm-spend-log-payload.js';
import { LitellmSpendLogsRepository } from './litellm-spend-logs.repository.js';
import { LitellmRepository } from './litellm.repository.js';
import { LitellmService } from './litellm.service.js';

/** Spend-log rows read per page (one usage-writer submission at most). */
export const LITELLM_BACKFILL_PAGE_ROWS = 1000;
/** Pages one run reads at most; the rest waits for the next run (the checkpoint moves per page). */
export const LITELLM_BACKFILL_PAGES_MAX = 100;
/** Without LITELLM_BACKFILL_FROM the first run starts this long before the worker started. */
const FIRST_RUN_LOOKBACK_MS = 24 * 3600_000;

const INGESTED = new Set(['priced', 'unpriced', 'unattributed']);

/**
 * The pull path (api.md "Integrations"): LiteLLM's logger drops a batch whose POST failed, so
 * the worker reads "LiteLLM_SpendLogs" from a checkpoint that follows "endTime", re-reading an
 * overlap each run (LiteLLM writes spend rows late, in batches), and ingests the calls not seen
 * yet under the push path's event id: a call that arrives both ways is billed once.
 */
@Injectable()
export class LitellmBackfillService {
  private readonly logger = new Logger('LitellmBackfill');
  private readonly startedAt = new Date();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly spendLogs: LitellmSpendLogsRepository,
    private readonly repository: LitellmRepository,
    private readonly litellm: LitellmService,
  ) {}

  get enabled(): boolean {
    return this.spendLogs.enabled;
  }

  async run(): Promise<{ read: number; ingested: number; checkpoint: string | null; billed_parked: number }> {
    const state = await this.repository.syncState('pull');
    const fromMs = state?.checkpoint
      ? state.checkpoint.getTime() - this.config.LITELLM_BACKFILL_OVERLAP_SECONDS * 1000
      : this.config.LITELLM_BACKFILL_FROM
        ? Date.parse(this.config.LITELLM_BACKFILL_FROM)
        : this.startedAt.getTime() - FIRST_RUN_LOOKBACK_MS;
    let cursor = { endTime: new Date(fromMs).toISOString(), requestId: '' };
    let read = 0;
    let ingested = 0;
    for (let page = 0; page < LITELLM_BACKFILL_PAGES_MAX; page += 1) {
      const rows = await this.spendLogs.pageAfter(cursor.endTime, cursor.requestId, LITELLM_BACKFILL_PAGE_ROWS);
      if (rows.length === 0) break;
      read += rows.length;
      const payloads = rows.map(spendLogPayload);
      const known = await this.repository.knownEventIds(payloads.map((p) => `litellm:${p.id as string}`));
      const fresh = payloads.filter((p) => !known.has(`litellm:${p.id as string}`));
      const results = fresh.length === 0 ? [] : await this.litellm.ingest(fresh, 'pull');
      const pageIngested = results.filter((r) => INGESTED.has(r.status)).length;
      ingested += pageIngested;
      const last = rows.at(-1)!;
      await this.repository.recordSync('pull', pageIngested, new Date(last.end_time));
      cursor = { endTime: last.end_time, requestId: last.request_id };
      if (rows.length < LITELLM_BACKFILL_PAGE_ROWS) break;
    }
    if (read === 0) await this.repository.recordSync('pull', 0, null);
    // Safety net: calls parked for a deployment mapped since (the mapping bills them itself).
    const billedParked = await this.litellm.billMappedParked();
    if (ingested > 0 || billedParked > 0) this.logger.log(`LiteLLM spend log: ${read} rows read, ${ingested} calls ingested, ${billedParked} parked calls billed`);
    const after = await this.repository.syncState('pull');
    return { read, ingested, checkpoint: after?.checkpoint?.toISOString() ?? null, billed_parked: billedParked };
  }
}
