import { Inject, Injectable } from '@nestjs/common';
import type { ZodError } from 'zod';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DatabaseService } from '../../database/database.service.js';
import { DomainError, notFound, zodIssuesToFields, type FieldIssue } from '../../common/errors/index.js';
import { ContributorsService } from '../contributors/contributors.service.js';
import { LedgerService, type LowBalanceChange } from '../ledger/ledger.service.js';
import type { JournalDraft } from '../ledger/journal-draft.js';
import { PricingService } from '../pricing/pricing.service.js';
import { MetricsService } from '../health/metrics.service.js';
import { UsageRepository, type UnpricedModelRow } from './usage.repository.js';
import { normalizeEvent, type NormalizedEvent, type StreamDetails } from './usage-event.js';
import { multipliersOf, planEvent, rollupDeltas, usageJournalDraft, type Multipliers } from './usage-planner.js';
import type { UsageEventInput } from './usage.schemas.js';
import { parseUsageEvent, ProvenUsageEvent } from './usage-event-parse.js';
import { ARCHIVED_MODEL_UNKNOWN, type ArchivedEvent, type PlannedEvent, type RefundableEvent, type StoredEvent, type WriteOutcome } from './usage.types.js';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { chargesOf, spendDeltasOf, UsageWriter } from './usage-writer.js';
import { SpendRollupRepository } from '../spend/spend-rollup.repository.js';
import { GrantsService } from '../spend/grants.service.js';

const REPRICE_CHUNK_EVENTS = 500;

export type BatchItemResult =
  | { event_id: string | null; status: 'priced' | 'unpriced' | 'duplicate' }
  | { event_id: string | null; status: 'rejected'; error: { code: string; message: string; details?: FieldIssue[] } };

@Injectable()
export class UsageService {
  private readonly multipliers: Multipliers;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: DatabaseService,
    private readonly writer: UsageWriter,
    private readonly repository: UsageRepository,
    private readonly ledger: LedgerService,
    private readonly pricing: PricingService,
    private readonly contributors: ContributorsService,
    private readonly metrics: MetricsService,
    private readonly grants: GrantsService,
    private readonly spendRollup: SpendRollupRepository,
  ) {
    this.multipliers = multipliersOf(config);
  }

  /** Validates a raw payload (REST body or queue job) into a normalized event, or field issues. */
  parse(raw: unknown, source: NormalizedEvent['source'], stream: StreamDetails | null = null): { event: NormalizedEvent } | { issues: FieldIssue[] } {
    const parsed = parseUsageEvent(raw);
    if (!parsed.success) return { issues: zodIssuesToFields(parsed.error as ZodError) };
    return this.fromInput(parsed.data, source, stream);
  }

  /** An event that passed usageEventSchema (a queue job's payload): the checks that need a clock, then normalized. */
  fromInput(input: UsageEventInput, source: NormalizedEvent['source'], stream: StreamDetails | null = null): { event: NormalizedEvent } | { issues: FieldIssue[] } {
    return this.checkedAgainstClock(input, source, stream);
  }

  /** fromInput; `occurredAt` is input.occurred_at already read (a ProvenUsageEvent's), not parsed again. */
  private checkedAgainstClock(input: UsageEventInput, source: NormalizedEvent['source'], stream: StreamDetails | null, occurredAt?: Date): { event: NormalizedEvent } | { issues: FieldIssue[] } {
    const now = new Date();
    if (input.occurred_at !== undefined) {
      const skewMs = (occurredAt ?? new Date(input.occurred_at)).getTime() - now.getTime();
      if (skewMs > this.config.EVENT_OCCURRED_AT_FUTURE_SKEW_MS) {
        return { issues: [{ field: 'occurred_at', message: 'must not be in the future' }] };
      }
    }
    return { event: normalizeEvent(input, { now, source, stream, occurredAt }) };
  }

  /** One event; throws coded errors for conflict / unknown contributor. */
  async ingestOne(event: NormalizedEvent): Promise<{ event: StoredEvent; replayed: boolean }> {
    const [outcome] = await this.writer.submit([event]);
    this.count([outcome!]);
    return this.unwrap(outcome!);
  }

  /**
   * Another module's calls that are not usage events yet but are answered by
   * GET /v1/usage-events/:event_id (LiteLLM's unattributed calls): each lookup returns the body to
   * show, or null. Registered by that module, so this one does not depend on it.
   */
  private readonly pendingLookups: Array<(eventId: string) => Promise<Record<string, unknown> | null>> = [];

  addPendingLookup(lookup: (eventId: string) => Promise<Record<string, unknown> | null>): void {
    this.pendingLookups.push(lookup);
  }

  async findPending(eventId: string): Promise<Record<string, unknown> | null> {
    for (const lookup of this.pendingLookups) {
      const found = await lookup(eventId);
      if (found) return found;
    }
    return null;
  }

  /** Raw bodies, validated here, or ProvenUsageEvents; one result per event, in order. */
  async ingestBatch(rawEvents: unknown[], source: NormalizedEvent['source'] = 'batch'): Promise<BatchItemResult[]> {
    const results: BatchItemResult[] = new Array(rawEvents.length);
    const valid: Array<{ index: number; event: NormalizedEvent }> = [];
    rawEvents.forEach((raw, index) => {
      // A ProvenUsageEvent (the LiteLLM push) is already what the parse would output: only the clock is checked.
      const proven = raw instanceof ProvenUsageEvent ? raw : null;
      const parsed = proven === null ? this.parse(raw, source) : this.checkedAgainstClock(proven.input, source, null, proven.occurredAt);
      if ('issues' in parsed) {
        const body = proven === null ? raw : proven.input;
        const eventId = typeof (body as { event_id?: unknown })?.event_id === 'string' ? (body as { event_id: string }).event_id : null;
        results[index] = { event_id: eventId, status: 'rejected', error: { code: 'validation_failed', message: 'event validation failed', details: parsed.issues } };
      } else {
        valid.push({ index, event: parsed.event });
      }
    });
    const outcomes = await this.writer.submit(valid.map((v) => v.event));
    this.count(outcomes);
    outcomes.forEach((outcome, i) => {
      results[valid[i]!.index] = toBatchResult(outcome);
    });
    return results;
  }

  async get(eventId: string): Promise<StoredEvent> {
    const found = (await this.repository.findByEventIds([eventId])).get(eventId);
    if (found) return found;
    const archived = (await this.repository.findArchived([eventId])).get(eventId);
    if (archived) throw eventArchived(archived);
    throw notFound('usage event');
  }

  /**
   * An event as a refund needs it (api.md "Refunds": an archived event is refunded like any
   * other): the stored row, else what its journal entry, key and the archive kept of it.
   */
  async getRefundable(eventId: string): Promise<RefundableEvent> {
    const found = (await this.repository.findByEventIds([eventId])).get(eventId);
    if (found) return { ...found, archivedMonth: null };
    const archived = (await this.repository.findArchived([eventId])).get(eventId);
    if (!archived) throw notFound('usage event');
    // Archived months hold only priced events (the archive refuses unpriced ones); without a
    // usage journal entry nothing was charged.
    const charged = archived.userId !== null && archived.contributorId !== null;
    return {
      eventId: archived.eventId,
      status: charged ? 'priced' : 'unpriced',
      userId: archived.userId ?? '',
      contributorId: archived.contributorId ?? '',
      model: archived.model ?? ARCHIVED_MODEL_UNKNOWN,
      occurredAt: archived.occurredAt,
      chargeAtto: charged ? archived.chargeAtto : null,
      payoutAtto: charged ? archived.payoutAtto : null,
      archivedMonth: archived.archivedMonth,
    };
  }

  /** What waits for a price, per model (the console's unpriced screen). */
  unpricedByModel(): Promise<UnpricedModelRow[]> {
    return this.repository.unpricedByModel();
  }

  /** For the admin overview and the reprice answer. */
  countUnpriced(): Promise<bigint> {
    return this.repository.countUnpriced();
  }

  /**
   * Prices stored unpriced events whose model now has a price in force at their occurred_at. One run
   * at a time: a call while another runs answers at once with inProgress (it prices nothing; the
   * running one is pricing those rows, and still_unpriced is the count at that moment).
   */
  async reprice(): Promise<{ priced: number; stillUnpriced: number; inProgress: boolean }> {
    const lock = await this.repository.tryRepriceLock();
    if (!lock) return { priced: 0, stillUnpriced: Number(await this.repository.countUnpriced()), inProgress: true };
    try {
      return { ...(await this.repriceLocked()), inProgress: false };
    } finally {
      await lock.release();
    }
  }

  private async repriceLocked(): Promise<{ priced: number; stillUnpriced: number }> {
    const [prices, tiers] = await Promise.all([this.pricing.getPriceBookFresh(), this.contributors.getTierBookFresh()]);
    let afterId = 0n;
    let priced = 0;
    for (;;) {
      const chunk = await this.db.transaction(async (client) => {
        const rows = await this.repository.lockUnpriced(client, afterId, REPRICE_CHUNK_EVENTS);
        const plans = rows
          .map((row) => planEvent(storedToNormalized(row), { prices, tiers }, this.multipliers))
          .filter((p): p is PlannedEvent => p !== null && p.amounts !== null);
        await this.repository.markPriced(client, plans);
        const grantsUntil = new Map<string, Date>();
        const spendRollup = new Set<string>();
        const [grantsAt, deferred] = [this.grants.now(), [] as LowBalanceChange[]];
        await this.ledger.post(client, plans.map(usageJournalDraft).filter((d): d is JournalDraft => d !== null), { grantsUntil, spendRollup, lowBalance: { grantsAt, deferred } });
        // Charged now: grants usable now pay first, as on the write path (balance_low counts them).
        if (grantsUntil.size > 0) await this.grants.drawForCharges(client, chargesOf(plans), grantsUntil, grantsAt, deferred);
        await this.repository.upsertRollups(client, rollupDeltas(plans));
        // Priced now: the charge counts in the budgets of users with budgets (rollup by occurred_at day).
        if (spendRollup.size > 0) await this.spendRollup.addCharges(client, spendDeltasOf(plans, spendRollup));
        return { seen: rows.length, lastId: rows.at(-1)?.id ?? afterId, priced: plans.length };
      });
      priced += chunk.priced;
      afterId = chunk.lastId;
      if (chunk.seen < REPRICE_CHUNK_EVENTS) break;
    }
    return { priced, stillUnpriced: Number(await this.repository.countUnpriced()) };
  }

  private unwrap(outcome: WriteOutcome): { event: StoredEvent; replayed: boolean } {
    switch (outcome.kind) {
      case 'created':
        return { event: outcome.event, replayed: false };
      case 'replayed':
        return { event: outcome.event, replayed: true };
      case 'conflict':
        throw new DomainError('idempotency_conflict', `event_id ${outcome.eventId} was already used with a different payload`);
      case 'archived':
        throw eventArchived(outcome.event);
      case 'unknown_contributor':
        throw new DomainError('unknown_contributor', `contributor ${outcome.contributorId} is not registered`);
    }
  }

  private count(outcomes: WriteOutcome[]): void {
    for (const o of outcomes) {
      this.metrics.usageEvents.inc({ status: o.kind === 'created' ? o.event.status : o.kind === 'archived' ? 'replayed' : o.kind });
    }
  }
}

/** A replay (or read) of an event whose month was archived: 410 with what it posted (docs/history.md). */
function eventArchived(event: ArchivedEvent): DomainError {
  return new DomainError('event_archived', `usage event ${event.eventId} was archived with its month ${event.archivedMonth}; its original amounts are in details`, {
    event_id: event.eventId,
    status: 'priced',
    occurred_at: event.occurredAt.toISOString(),
    archived_month: event.archivedMonth,
    user_id: event.userId,
    contributor_id: event.contributorId,
    charge_usd: formatAttoAsUsd(event.chargeAtto),
    payout_usd: formatAttoAsUsd(event.payoutAtto),
    margin_usd: formatAttoAsUsd(event.marginAtto),
  });
}

function toBatchResult(outcome: WriteOutcome): BatchItemResult {
  switch (outcome.kind) {
    case 'created':
      return { event_id: outcome.event.eventId, status: outcome.event.status };
    case 'replayed':
    case 'archived':
      return { event_id: outcome.event.eventId, status: 'duplicate' };
    case 'conflict':
      return { event_id: outcome.eventId, status: 'rejected', error: { code: 'idempotency_conflict', message: 'event_id was already used with a different payload' } };
    case 'unknown_contributor':
      return { event_id: outcome.eventId, status: 'rejected', error: { code: 'unknown_contributor', message: `contributor ${outcome.contributorId} is not registered` } };
  }
}

function storedToNormalized(row: StoredEvent): NormalizedEvent {
  return {
    eventId: row.eventId,
    userId: row.userId,
    contributorId: row.contributorId,
    model: row.model,
    priceVariant: row.priceVariant,
    occurredAt: row.occurredAt,
    usage: {
      promptTokens: row.promptTokens,
      completionTokens: row.completionTokens,
      cachedTokens: row.cachedTokens,
      reasoningTokens: row.reasoningTokens,
      cacheWrite5mTokens: row.cacheWrite5mTokens,
      cacheWrite1hTokens: row.cacheWrite1hTokens,
      promptAudioTokens: row.promptAudioTokens,
      cachedAudioTokens: row.cachedAudioTokens,
      promptImageTokens: row.promptImageTokens,
      completionAudioTokens: row.completionAudioTokens,
      completionImageTokens: row.completionImageTokens,
      webSearchCalls: row.webSearchCalls,
    },
    holdId: row.holdId,
    keyId: row.keyId,
    metadata: row.metadata,
    source: row.source as NormalizedEvent['source'],
    stream: row.stream,
    requestHash: row.requestHash,
  };
}
