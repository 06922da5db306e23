import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DatabaseService } from '../../database/database.service.js';
import { isDatabaseUnavailable } from '../../common/errors/database-errors.js';
import { ContributorsService } from '../contributors/contributors.service.js';
import { HoldsService } from '../holds/holds.service.js';
import { LedgerService, type LowBalanceChange } from '../ledger/ledger.service.js';
import { batchedPostingParams } from '../ledger/batched-posting.js';
import type { JournalDraft } from '../ledger/journal-draft.js';
import { PricingService } from '../pricing/pricing.service.js';
import { GRANTS_TAKE_TRANSACTION_PATH, UsageRepository, type InsertedEvents } from './usage.repository.js';
import { GrantsService } from '../spend/grants.service.js';
import { SpendRollupRepository } from '../spend/spend-rollup.repository.js';
import { spendDeltas } from '../spend/spend-deltas.js';
import { userAccount } from '../ledger/account-codes.js';
import { GrantHolders } from './grant-holders.js';
import type { NormalizedEvent } from './usage-event.js';
import { multipliersOf, planEvent, rollupDeltas, USAGE_JOURNAL_KIND, usageJournalDraft, type Multipliers } from './usage-planner.js';
import type { ArchivedEvent, PlannedEvent, StoredEvent, WriteOutcome } from './usage.types.js';
import { WebhookOutbox } from '../webhooks/webhook-outbox.service.js';
import { MetricsService } from '../health/metrics.service.js';
import { UnpricedAnnouncements, unpricedEvents } from './unpriced-announcements.js';
import { activeSpanContext, tracingEnabled, withSpan, type SpanContext } from '../../common/tracing/tracing.js';

/** A row this writer just inserted, as the repository would read it back (no round trip). */
function eventAsWritten(p: PlannedEvent, id: bigint, receivedAt: Date): StoredEvent {
  const e = p.event;
  return {
    id,
    eventId: e.eventId,
    requestHash: e.requestHash,
    userId: e.userId,
    contributorId: e.contributorId,
    model: e.model,
    occurredAt: e.occurredAt,
    receivedAt,
    ...e.usage,
    priceVariant: e.priceVariant,
    holdId: e.holdId,
    keyId: e.keyId,
    metadata: e.metadata,
    source: e.source,
    status: p.amounts ? 'priced' : 'unpriced',
    priceId: p.priceId,
    contributorTier: p.amounts ? p.tier : null,
    userMarkup: p.userMarkupText,
    payoutMultiplier: p.payoutMultiplierText,
    officialAtto: p.amounts?.officialAtto ?? null,
    chargeAtto: p.amounts?.chargeAtto ?? null,
    payoutAtto: p.amounts?.payoutAtto ?? null,
    marginAtto: p.amounts?.marginAtto ?? null,
    pricedAt: p.amounts ? receivedAt : null,
    stream: e.stream,
  };
}

/*
 * Largest group written as one statement: USAGE_ONE_STATEMENT_EVENTS_MAX (64). Small groups
 * (single-event load) are bound by round trips, which one statement removes; in large groups
 * (batches) round trips are amortised and the statement-by-statement path, which sums balances
 * and rollups in Node, costs Postgres less per event (measured at batch 1000: ~32 vs ~46 us).
 * Both paths write the same rows: test/usage/write-paths-differential.int-spec.ts.
 */

/** The ledger side of a one-statement group commit: the usage entries and the accounts they touch. */
const usagePosting = (plans: readonly PlannedEvent[]) =>
  batchedPostingParams({ kind: USAGE_JOURNAL_KIND, items: plans, draftOf: usageJournalDraft, userOf: eventUserId });
const eventUserId = (p: PlannedEvent) => p.event.userId;

/** A hold capture locks and updates the hold: groups with one take the statement-by-statement path. */
function writesInOneStatement(plans: readonly PlannedEvent[], eventsMax: number): boolean {
  return plans.length <= eventsMax && plans.every((p) => p.event.holdId === null);
}

/** The charges of priced events, in order (what grants may pay). */
export const chargesOf = (plans: readonly PlannedEvent[]) =>
  plans.flatMap((p) => (p.amounts && p.amounts.chargeAtto > 0n ? [{ eventId: p.event.eventId, userId: p.event.userId, chargeAtto: p.amounts.chargeAtto }] : []));

/** What the priced events of the users whose account codes are given add to their budgets' spend rollup. */
export const spendDeltasOf = (plans: readonly PlannedEvent[], accountCodes: ReadonlySet<string>) =>
  spendDeltas(
    plans.flatMap((p) =>
      p.amounts && accountCodes.has(userAccount(p.event.userId))
        ? [{ userId: p.event.userId, occurredAt: p.event.occurredAt, keyId: p.event.keyId, model: p.event.model, chargeAtto: p.amounts.chargeAtto }]
        : [],
    ),
  );

/** Events per database transaction: one group commit. */
export const EVENTS_PER_TX_MAX = 2000;

interface Submission {
  events: NormalizedEvent[];
  resolve: (outcomes: WriteOutcome[]) => void;
  reject: (error: unknown) => void;
  /** The caller's span (tracing on): the group commit's span links to it. */
  span: SpanContext | undefined;
}

/**
 * Group commit for usage events: concurrent requests share one transaction (multi-row inserts,
 * one ordered balance upsert), so throughput is not bound by one commit per event. A caller's
 * promise resolves only after its events are committed.
 */
@Injectable()
export class UsageWriter {
  private readonly queue: Submission[] = [];
  private inFlight = 0;
  private readonly multipliers: Multipliers;
  /** usage.unpriced: the models this process has announced this hour. */
  private readonly unpriced = new UnpricedAnnouncements();
  /** Users this process saw with unexpired grants: their groups go straight to the transaction path. */
  private readonly grantHolders = new GrantHolders();
  private readonly txConcurrency: number;
  private readonly oneStatementEventsMax: number;
  private readonly logger = new Logger('UsageWriter');

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    private readonly db: DatabaseService,
    private readonly repository: UsageRepository,
    private readonly ledger: LedgerService,
    private readonly holds: HoldsService,
    private readonly pricing: PricingService,
    private readonly contributors: ContributorsService,
    private readonly webhooks: WebhookOutbox,
    private readonly metrics: MetricsService,
    private readonly grants: GrantsService,
    private readonly spendRollup: SpendRollupRepository,
  ) {
    this.txConcurrency = config.USAGE_WRITER_TX_CONCURRENCY;
    this.oneStatementEventsMax = config.USAGE_ONE_STATEMENT_EVENTS_MAX;
    this.multipliers = multipliersOf(config);
  }

  /** Writes the events (in one or more shared transactions); outcomes in input order. */
  submit(events: NormalizedEvent[]): Promise<WriteOutcome[]> {
    if (events.length === 0) return Promise.resolve([]);
    return new Promise((resolve, reject) => {
      this.queue.push({ events, resolve, reject, span: activeSpanContext() });
      this.drain();
    });
  }

  private drain(): void {
    // Transactions in flight per process; while they run, new events queue up for the next one.
    while (this.inFlight < this.txConcurrency && this.queue.length > 0) {
      const group = this.takeGroup();
      this.inFlight += 1;
      void this.runGroup(group).finally(() => {
        this.inFlight -= 1;
        this.drain();
      });
    }
  }

  private takeGroup(): Submission[] {
    const group: Submission[] = [this.queue.shift()!];
    let size = group[0]!.events.length;
    while (this.queue.length > 0 && size + this.queue[0]!.events.length <= EVENTS_PER_TX_MAX) {
      const next = this.queue.shift()!;
      size += next.events.length;
      group.push(next);
    }
    return group;
  }

  private runGroup(group: Submission[]): Promise<void> {
    if (!tracingEnabled()) return this.commitGroup(group);
    return this.commitGroupTraced(group);
  }

  private commitGroupTraced(group: Submission[]): Promise<void> {
    // One transaction serves many requests: its span continues the first traced caller's trace
    // and links to every caller's span (docs/observability.md).
    const callers = group.flatMap((s) => (s.span ? [s.span] : []));
    const events = group.reduce((sum, s) => sum + s.events.length, 0);
    const attributes = { 'usage.group_commit.events': events, 'usage.group_commit.submissions': group.length };
    return withSpan('usage.group_commit', { parent: callers[0], links: callers.map((context) => ({ context })), attributes }, () => this.commitGroup(group));
  }

  private async commitGroup(group: Submission[]): Promise<void> {
    const startedMs = performance.now();
    try {
      const events = group.flatMap((s) => s.events);
      const outcomes = await this.write(events);
      this.metrics.groupCommitEvents.observe(events.length);
      this.metrics.groupCommitDuration.observe((performance.now() - startedMs) / 1000);
      let offset = 0;
      for (const submission of group) {
        submission.resolve(outcomes.slice(offset, offset + submission.events.length));
        offset += submission.events.length;
      }
    } catch (error) {
      if (group.length > 1 && !isDatabaseUnavailable(error)) {
        // One submission must not fail the others: retry each on its own.
        this.logger.warn(`group commit failed, retrying ${group.length} submissions separately: ${(error as Error).message}`);
        await Promise.all(group.map((s) => this.write(s.events).then(s.resolve, s.reject)));
        return;
      }
      for (const submission of group) submission.reject(error);
    }
  }

  private async write(events: NormalizedEvent[]): Promise<WriteOutcome[]> {
    const [prices, tiers] = await Promise.all([this.pricing.getPriceBookFresh(), this.contributors.getTierBookFresh()]);
    const firstById = new Map<string, NormalizedEvent>();
    for (const event of events) if (!firstById.has(event.eventId)) firstById.set(event.eventId, event);
    const planned = new Map<string, PlannedEvent>();
    for (const event of firstById.values()) {
      const plan = planEvent(event, { prices, tiers }, this.multipliers);
      if (plan) planned.set(event.eventId, plan);
    }
    const plans = [...planned.values()];
    const now = new Date();
    const announce = this.unpriced.toAnnounce(plans, now);
    const webhooks = { lowBalanceAtto: this.ledger.lowBalanceThresholdAtto, unpricedModelsToAnnounce: announce };
    const grantsAt = this.grants.now();
    const { ids: inserted, receivedAt } =
      writesInOneStatement(plans, this.oneStatementEventsMax) && !this.grantHolders.anyOf(plans, grantsAt)
        ? await this.oneStatementOrTransaction(plans, announce, webhooks, grantsAt)
        : await this.db.transaction((client) => this.insert(client, plans, announce, grantsAt));
    // Committed: these models are announced for this hour (by this write or an earlier one).
    this.unpriced.markAnnounced(announce, now);
    // Rows we just wrote are known; only replays and conflicts need reading back.
    const stored = await this.repository.findByEventIds([...firstById.keys()].filter((id) => !inserted.has(id)));
    for (const [eventId, id] of inserted) stored.set(eventId, eventAsWritten(planned.get(eventId)!, id, receivedAt!));
    // Not stored: an unknown contributor, or a replay of an event whose month was archived.
    const archived = await this.repository.findArchived([...firstById.keys()].filter((id) => !stored.has(id)));
    return this.outcomes(events, firstById, planned, inserted, stored, archived);
  }

  /**
   * The one statement, unless a billed user turns out to have an unexpired grant: then it rolled
   * back whole (the grant guard, usage.repository.ts) and the group takes the transaction path.
   */
  private async oneStatementOrTransaction(
    plans: PlannedEvent[],
    announce: readonly string[],
    webhooks: { lowBalanceAtto: bigint; unpricedModelsToAnnounce: readonly string[] },
    grantsAt: Date,
  ): Promise<InsertedEvents> {
    try {
      return await this.db.statement((runner) => this.repository.insertEventsAndPost(runner, plans, usagePosting(plans), webhooks, grantsAt));
    } catch (error) {
      if ((error as { code?: string }).code !== GRANTS_TAKE_TRANSACTION_PATH) throw error;
      return this.db.transaction((client) => this.insert(client, plans, announce, grantsAt));
    }
  }

  private async insert(client: Parameters<LedgerService['post']>[0], planned: PlannedEvent[], announceUnpriced: readonly string[], grantsAt: Date): Promise<InsertedEvents> {
    const inserted = await this.repository.insertEvents(client, planned);
    const fresh: PlannedEvent[] = [];
    const drafts: JournalDraft[] = [];
    const captures: Array<{ holdId: string; userId: string; eventId: string; chargeAtto: bigint }> = [];
    const billedUsers = new Set<string>();
    for (const p of planned) {
      if (!inserted.ids.has(p.event.eventId)) continue;
      fresh.push(p);
      const draft = usageJournalDraft(p);
      if (draft) drafts.push(draft);
      if (p.event.holdId !== null) captures.push({ holdId: p.event.holdId, userId: p.event.userId, eventId: p.event.eventId, chargeAtto: p.amounts?.chargeAtto ?? 0n });
      billedUsers.add(p.event.userId);
    }
    const heldDeltas = await this.holds.captureInTransaction(client, captures);
    // Every billed user gets an account row, even when the charge is zero.
    for (const userId of billedUsers) if (!heldDeltas.has(`user:${userId}`)) heldDeltas.set(`user:${userId}`, 0n);
    const grantsUntil = new Map<string, Date>();
    const spendRollup = new Set<string>();
    const deferred: LowBalanceChange[] = [];
    await this.ledger.post(client, drafts, { heldDeltas, grantsUntil, spendRollup, lowBalance: { grantsAt, deferred } });
    // Users with unexpired grants (their account rows are locked by that post): grants pay first,
    // and their balance_low counts the grants.
    if (grantsUntil.size > 0) {
      this.grantHolders.saw(grantsUntil);
      await this.grants.drawForCharges(client, chargesOf(fresh), grantsUntil, grantsAt, deferred);
    }
    await this.repository.upsertRollups(client, rollupDeltas(fresh));
    // Users with budgets (account rows locked by that post): their spend rollup.
    if (spendRollup.size > 0) await this.spendRollup.addCharges(client, spendDeltasOf(fresh, spendRollup));
    if (announceUnpriced.length > 0) await this.webhooks.emit(client, unpricedEvents(fresh, announceUnpriced, new Date()));
    return inserted;
  }

  private outcomes(
    events: NormalizedEvent[],
    firstById: Map<string, NormalizedEvent>,
    planned: Map<string, PlannedEvent>,
    inserted: ReadonlyMap<string, bigint>,
    stored: Map<string, StoredEvent>,
    archived: ReadonlyMap<string, ArchivedEvent>,
  ): WriteOutcome[] {
    const created = new Set<string>();
    return events.map((event): WriteOutcome => {
      const row = stored.get(event.eventId);
      const gone = row ? undefined : archived.get(event.eventId);
      if (gone) return gone.requestHash === event.requestHash ? { kind: 'archived', event: gone } : { kind: 'conflict', eventId: event.eventId };
      if (!row) {
        // Not written: only an unknown contributor leaves no row (it never reaches the insert).
        return { kind: 'unknown_contributor', eventId: event.eventId, contributorId: event.contributorId };
      }
      if (row.requestHash !== event.requestHash) return { kind: 'conflict', eventId: event.eventId };
      const isFirst = firstById.get(event.eventId) === event && planned.has(event.eventId);
      if (isFirst && inserted.has(event.eventId) && !created.has(event.eventId)) {
        created.add(event.eventId);
        return { kind: 'created', event: row };
      }
      return { kind: 'replayed', event: row };
    });
  }
}
