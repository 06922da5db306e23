import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { litellmEventId } from './litellm-ids.js';
import { lateSweepFloor, lateSweepMinutes } from './litellm-late-sweep.js';
import { spendLogEntry } from './litellm-spend-log-payload.js';
import { LitellmSpendLogsRepository, type SpendLogRow } from './litellm-spend-logs.repository.js';
import { LitellmRepository } from './litellm.repository.js';
import { LitellmService } from './litellm.service.js';

/** Spend-log rows read per page (one usage-writer submission at most). */
export const LITELLM_BACKFILL_PAGE_ROWS = 1000;
/** Bytes of spend-log rows read per page at most (besides at least one row): the worker's heap is 160 MB. */
export const LITELLM_BACKFILL_PAGE_BYTES = 4 * 1024 * 1024;
/** Pages one run reads at most; the rest waits for the next run (the checkpoint moves per page). */
export const LITELLM_BACKFILL_PAGES_MAX = 100;
/** Future-dated rows one run rejects at most (the rest next run). */
const FUTURE_ROWS_MAX = 1000;
/** Without LITELLM_BACKFILL_FROM the first run starts this long before the worker started. */
const FIRST_RUN_LOOKBACK_MS = 24 * 3600_000;

const INGESTED = new Set(['priced', 'unpriced', 'unattributed']);

interface Taken {
  ingested: number;
  rejected: Map<string, number>;
}

/**
 * The pull path (api.md "Integrations"): LiteLLM's logger drops a batch whose POST failed, so
 * the worker reads "LiteLLM_SpendLogs" from a checkpoint that follows "endTime" (never past the
 * present), re-reading an overlap each run, sweeps the late window for rows written later than
 * that (litellm-late-sweep.ts), rejects rows dated past the future skew, and ingests the calls not
 * seen yet under the push path's event id: a call that arrives both ways is billed once. A row it
 * cannot take is remembered as rejected with its reason, counted once, and never stops the run.
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

  async run(now: Date = new Date()): Promise<{ read: number; ingested: number; checkpoint: string | null; billed_parked: number }> {
    const state = await this.repository.syncState('pull');
    // A checkpoint is never past the present (an older version let a future row push it there).
    const checkpointMs = state?.checkpoint ? Math.min(state.checkpoint.getTime(), now.getTime()) : null;
    const fromMs =
      checkpointMs !== null
        ? checkpointMs - this.config.LITELLM_BACKFILL_OVERLAP_SECONDS * 1000
        : this.config.LITELLM_BACKFILL_FROM
          ? Date.parse(this.config.LITELLM_BACKFILL_FROM)
          : this.startedAt.getTime() - FIRST_RUN_LOOKBACK_MS;
    let cursor = { endTime: new Date(fromMs).toISOString(), requestId: '' };
    let read = 0;
    let ingested = 0;
    for (let page = 0; page < LITELLM_BACKFILL_PAGES_MAX; page += 1) {
      const rows = await this.spendLogs.pageAfter(cursor.endTime, cursor.requestId, now.toISOString(), LITELLM_BACKFILL_PAGE_ROWS, LITELLM_BACKFILL_PAGE_BYTES);
      if (rows.length === 0) break;
      read += rows.length;
      const taken = await this.take(rows);
      ingested += taken.ingested;
      const last = rows.at(-1)!;
      await this.repository.recordSync('pull', taken.ingested, new Date(last.end_time), taken.rejected);
      cursor = { endTime: last.end_time, requestId: last.sort_id };
    }
    if (read === 0) await this.repository.recordSync('pull', 0, null);

    ingested += await this.rejectFuture(now);
    // The run's number is read before any of its reads: a row committed before it is seen by its sweep.
    ingested += await this.sweepLate(now, checkpointMs ?? now.getTime(), state?.sweepRuns ?? 0);
    // Safety net: calls parked for a deployment mapped since (the mapping bills them itself).
    const billedParked = await this.litellm.billMappedParked();
    if (ingested > 0 || billedParked > 0) this.logger.log(`LiteLLM spend log: ${read} rows read, ${ingested} calls ingested, ${billedParked} parked calls billed`);
    const after = await this.repository.syncState('pull');
    return { read, ingested, checkpoint: after?.checkpoint?.toISOString() ?? null, billed_parked: billedParked };
  }

  /** Rows dated past the future skew: each rejected once (`future`), never waited for. */
  private async rejectFuture(now: Date): Promise<number> {
    const ids = await this.spendLogs.futureRowIds(new Date(now.getTime() + this.config.EVENT_OCCURRED_AT_FUTURE_SKEW_MS).toISOString(), FUTURE_ROWS_MAX);
    return this.takeIds(ids);
  }

  /** The late sweep over this run's slice of the window (litellm-late-sweep.ts). */
  private async sweepLate(now: Date, checkpointMs: number, run: number): Promise<number> {
    const lateMs = this.config.LITELLM_BACKFILL_LATE_SECONDS * 1000;
    // Rows that started after this are still read by the checkpoint's overlap.
    const untilMs = checkpointMs - this.config.LITELLM_BACKFILL_OVERLAP_SECONDS * 1000;
    const minutes = lateSweepMinutes(now.getTime(), lateMs, untilMs, run);
    const [figures, stored] = await Promise.all([this.spendLogs.minuteFingerprints(minutes), this.repository.pullMinutes(minutes)]);
    const changed = figures.filter((f) => {
      const before = stored.get(f.minute);
      return before === undefined || before.rows !== f.rows || before.idHashSum !== f.idHashSum;
    });
    const ingested = changed.length === 0 ? 0 : await this.takeIds(await this.spendLogs.idsInMinutes(changed.map((f) => f.minute)));
    // Recorded only once their rows were taken: a run that fails reads them again.
    await this.repository.savePullMinutes(changed, lateSweepFloor(now.getTime(), lateMs));
    await this.repository.sweepRunDone(run);
    return ingested;
  }

  /** Takes the rows of these ids that are not known yet, a bounded page at a time. */
  private async takeIds(requestIds: string[]): Promise<number> {
    let ingested = 0;
    for (let from = 0; from < requestIds.length; from += LITELLM_BACKFILL_PAGE_ROWS) {
      const chunk = requestIds.slice(from, from + LITELLM_BACKFILL_PAGE_ROWS);
      const eventIds = chunk.map(litellmEventId);
      const known = await this.repository.knownEventIds(eventIds);
      let remaining = chunk.filter((_, i) => !known.has(eventIds[i]!));
      while (remaining.length > 0) {
        const rows = await this.spendLogs.rowsByIds(remaining, LITELLM_BACKFILL_PAGE_BYTES);
        if (rows.length === 0) break;
        const taken = await this.take(rows);
        ingested += taken.ingested;
        await this.repository.recordSync('pull', taken.ingested, null, taken.rejected);
        const done = new Set(rows.map((r) => r.request_id));
        remaining = remaining.filter((id) => !done.has(id));
      }
    }
    return ingested;
  }

  /**
   * Ingests the rows not known yet; a row that cannot be read, or whose payload is rejected, is
   * remembered as rejected with its reason (counted once, skipped when read again).
   */
  private async take(rows: SpendLogRow[]): Promise<Taken> {
    const entries = rows.map(spendLogEntry);
    const known = await this.repository.knownEventIds(entries.flatMap((e) => (e.eventId === null ? [] : [e.eventId])));
    const fresh = entries.filter((e) => e.eventId === null || !known.has(e.eventId));
    const rejections: Array<{ eventId: string | null; reason: string }> = [];
    const payloads: Array<{ eventId: string; payload: Record<string, unknown> }> = [];
    for (const entry of fresh) {
      if ('rejected' in entry) rejections.push({ eventId: entry.eventId, reason: entry.rejected });
      else payloads.push(entry);
    }
    const results = payloads.length === 0 ? [] : await this.litellm.ingest(payloads.map((p) => p.payload), 'pull');
    results.forEach((r, i) => {
      if (r.status === 'rejected') rejections.push({ eventId: payloads[i]!.eventId, reason: `${r.reason ?? 'event'}: ${r.error?.message ?? ''}`.slice(0, 500) });
    });
    const remembered = await this.repository.insertRejected(rejections.flatMap((r) => (r.eventId === null ? [] : [{ eventId: r.eventId, reason: r.reason }])));
    const rejected = new Map<string, number>();
    for (const r of rejections) {
      // Counted once: when first remembered (a row without a usable id cannot be remembered, and counts each time).
      if (r.eventId !== null && !remembered.has(r.eventId)) continue;
      const code = r.reason.slice(0, r.reason.indexOf(':'));
      rejected.set(code, (rejected.get(code) ?? 0) + 1);
    }
    if (rejections.length > 0) this.logger.warn(`LiteLLM spend log: ${rejections.length} rows rejected (${[...rejected.keys()].join(', ')})`);
    return { ingested: results.filter((r) => INGESTED.has(r.status)).length, rejected };
  }
}
