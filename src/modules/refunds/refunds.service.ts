import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { contributorPending } from '../ledger/account-codes.js';
import { isMaturing } from '../ledger/maturity-window.js';
import type { SqlClient } from '../../database/database.service.js';
import { DatabaseService } from '../../database/database.service.js';
import { assert, DomainError } from '../../common/errors/index.js';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { decodeCursor, encodeCursor } from '../../common/http/pagination.js';
import { z } from 'zod';
import { AuditService } from '../audit/audit.service.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { LedgerService } from '../ledger/ledger.service.js';
import { refundJournalDraft } from '../ledger/refund-journal.js';
import { UsageService } from '../usage/usage.service.js';
import { WebhookOutbox } from '../webhooks/webhook-outbox.service.js';
import { planRefund } from './refund-math.js';
import { GrantsService } from '../spend/grants.service.js';
import { SpendRollupRepository } from '../spend/spend-rollup.repository.js';
import { RefundsRepository, type RefundFilter, type RefundRecord } from './refunds.repository.js';

export interface RefundCommand {
  eventId: string;
  refundId: string;
  /** null: everything not refunded yet. */
  amountAtto: bigint | null;
  reason: string;
}

const cursorSchema = z.object({ id: z.string().regex(/^\d{1,19}$/) }).strict();

/**
 * Refunds of priced usage events (api.md "Refunds and clawbacks"): one journal transaction per
 * part through the ledger, the refund row, its day's rollup, the audit entry and the
 * refund.created webhook, all in one database transaction.
 */
@Injectable()
export class RefundsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: DatabaseService,
    private readonly repository: RefundsRepository,
    private readonly usage: UsageService,
    private readonly ledger: LedgerService,
    private readonly audit: AuditService,
    private readonly webhooks: WebhookOutbox,
    private readonly grants: GrantsService,
    private readonly spendRollup: SpendRollupRepository,
  ) {}

  async refund(actor: Principal, command: RefundCommand): Promise<{ refund: RefundRecord; replayed: boolean }> {
    return this.db.transaction(async (client) => {
      await this.repository.lockRefundId(client, command.refundId);
      const existing = await this.repository.find(client, command.refundId);
      if (existing) {
        if (existing.eventId !== command.eventId || existing.requestedAmountAtto !== command.amountAtto || existing.reason !== command.reason) {
          throw new DomainError('idempotency_conflict', 'refund_id was already used with a different payload', [
            { field: 'refund_id', message: 'already used with a different event, amount or reason' },
          ]);
        }
        return { refund: existing, replayed: true };
      }
      // Stored or archived alike (never a 410): 404 not_found only for an id never ingested.
      const event = await this.usage.getRefundable(command.eventId);
      if (event.status !== 'priced' || event.chargeAtto === null || event.payoutAtto === null) {
        throw new DomainError('not_priced', 'the usage event is not priced: nothing was charged, nothing can be refunded');
      }
      await this.repository.lockEvent(client, command.eventId);
      const before = await this.repository.totalsForEvent(client, command.eventId);
      const decision =
        event.chargeAtto > 0n
          ? planRefund({ chargeAtto: event.chargeAtto, payoutAtto: event.payoutAtto }, before.refundedAtto, command.amountAtto)
          : ({ ok: false, code: 'refund_exceeds_charge', refundableAtto: 0n } as const);
      if (!decision.ok) {
        throw new DomainError('refund_exceeds_charge', 'the refund would take the refunded total past the charge', {
          charge_usd: formatAttoAsUsd(event.chargeAtto),
          refunded_usd: formatAttoAsUsd(before.refundedAtto),
          refundable_usd: formatAttoAsUsd(decision.refundableAtto),
        });
      }
      const split = decision.split;
      assert(before.clawedBackAtto + split.clawbackAtto === split.clawbackTotalAtto, 'clawback parts add up to the cumulative floor');
      const clawbackPendingAtto = await this.fromPending(client, event.contributorId, event.occurredAt, split.clawbackAtto);
      const journalEntryId = await this.ledger.postOne(
        client,
        refundJournalDraft({
          refundId: command.refundId,
          eventId: event.eventId,
          userId: event.userId,
          contributorId: event.contributorId,
          amountAtto: split.amountAtto,
          clawbackAtto: split.clawbackAtto,
          clawbackPendingAtto,
          reason: command.reason,
        }),
      );
      // What grants had paid of the event goes back to them, never to purchased credit.
      await this.grants.afterRefund(client, { refundId: command.refundId, eventId: event.eventId, userId: event.userId, refundedBeforeAtto: before.refundedAtto, amountAtto: split.amountAtto });
      // Nets against the budgets of a user with budgets (the entry above locked the user's account row).
      await this.spendRollup.addRefund(client, event.eventId, split.amountAtto);
      const refund = await this.repository.insert(client, {
        refundId: command.refundId,
        eventId: event.eventId,
        userId: event.userId,
        contributorId: event.contributorId,
        model: event.model,
        requestedAmountAtto: command.amountAtto,
        amountAtto: split.amountAtto,
        clawbackAtto: split.clawbackAtto,
        clawbackPendingAtto,
        marginReversedAtto: split.marginReversedAtto,
        refundedTotalAtto: split.refundedTotalAtto,
        clawbackTotalAtto: split.clawbackTotalAtto,
        reason: command.reason,
        journalEntryId,
        actorId: actor.keyId,
        eventOccurredAt: event.occurredAt,
      });
      await this.audit.recordWithSql(client, actor, {
        action: 'usage_event.refund',
        target: `usage_event:${event.eventId}`,
        before: { refunded_usd: formatAttoAsUsd(before.refundedAtto), clawed_back_usd: formatAttoAsUsd(before.clawedBackAtto) },
        after: {
          refund_id: refund.refundId,
          amount_usd: formatAttoAsUsd(refund.amountAtto),
          contributor_clawback_usd: formatAttoAsUsd(refund.clawbackAtto),
          margin_reversed_usd: formatAttoAsUsd(refund.marginReversedAtto),
          refunded_usd: formatAttoAsUsd(refund.refundedTotalAtto),
          clawed_back_usd: formatAttoAsUsd(refund.clawbackTotalAtto),
          reason: refund.reason,
        },
      });
      await this.webhooks.emitRefundCreated(client, {
        refund_id: refund.refundId,
        event_id: refund.eventId,
        user_id: refund.userId,
        contributor_id: refund.contributorId,
        amount_usd: formatAttoAsUsd(refund.amountAtto),
        contributor_clawback_usd: formatAttoAsUsd(refund.clawbackAtto),
        margin_reversed_usd: formatAttoAsUsd(refund.marginReversedAtto),
        refunded_total_usd: formatAttoAsUsd(refund.refundedTotalAtto),
        reason: refund.reason,
        createdAt: refund.createdAt,
      });
      return { refund, replayed: false };
    });
  }

  /**
   * Refunds during maturity come out of pending first: an event whose day has not matured yet
   * gives back from the pending account as far as it holds (locked, so the maturity job and
   * other refunds see the same balance), the rest from payable.
   */
  private async fromPending(client: SqlClient, contributorId: string, occurredAt: Date, clawbackAtto: bigint): Promise<bigint> {
    if (clawbackAtto === 0n || !isMaturing(occurredAt, new Date(), this.config.PAYOUT_MATURITY_DAYS)) return 0n;
    const pending = await this.ledger.lockAccount(client, contributorPending(contributorId));
    return pending.balanceAtto <= 0n ? 0n : pending.balanceAtto < clawbackAtto ? pending.balanceAtto : clawbackAtto;
  }

  /** For the maturity job: clawbacks taken from pending for events that occurred after afterDay. */
  pendingClawbacksAfter(client: SqlClient, contributorId: string, afterDay: string): Promise<bigint> {
    return this.repository.pendingClawbacksAfter(client, contributorId, afterDay);
  }

  async list(filter: RefundFilter, limit: number, cursor: string | undefined): Promise<{ refunds: RefundRecord[]; nextCursor: string | null }> {
    const after = decodeCursor(cursor, cursorSchema);
    const rows = await this.repository.list(filter, limit, after ? BigInt(after.id) : null);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return { refunds: page, nextCursor: rows.length > limit && last ? encodeCursor({ id: last.id.toString() }) : null };
  }
}
