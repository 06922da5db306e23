import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DatabaseService, type SqlClient, type SqlRunner } from '../../database/database.service.js';
import { DomainError, notFound } from '../../common/errors/index.js';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { userAccount } from '../ledger/account-codes.js';
import { LedgerService } from '../ledger/ledger.service.js';
import { WebhookOutbox, type WebhookEventInput } from '../webhooks/webhook-outbox.service.js';
import { BalanceWatchRepository, type AutoTopup } from './balance-watch.repository.js';
import { SpendClock } from './spend-clock.js';
import { GrantsService } from './grants.service.js';

/** Failed charges in a row after which auto top-up switches itself off. */
export const TOPUP_FAILURES_MAX = 3;
const SWEEP_PAGE_USERS = 200;

export interface AutoTopupState extends AutoTopup {
  requestedThisMonthAtto: bigint;
}

/** The UTC calendar month of an instant as its first day (YYYY-MM-01). */
export function monthOf(at: Date): string {
  return `${at.toISOString().slice(0, 7)}-01`;
}

/**
 * The user's available balance (balance - held) against the user's balance thresholds and auto
 * top-up. Each threshold is armed while the balance is at or above it and fires once when it
 * falls below (disarmed in the same statement), so a crossing is announced once however often it
 * is looked at. Looked at by the worker's spend sweep and after every credit, each time under the
 * user's account row lock (the lock every balance change takes), so what is compared is current.
 */
@Injectable()
export class BalanceWatchService {
  constructor(
    private readonly db: DatabaseService,
    private readonly repository: BalanceWatchRepository,
    private readonly ledger: LedgerService,
    private readonly clock: SpendClock,
    private readonly webhooks: WebhookOutbox,
    private readonly grants: GrantsService,
  ) {}

  async putAlerts(userId: string, thresholdsAtto: readonly bigint[]): Promise<Array<{ thresholdAtto: bigint; armed: boolean }>> {
    return this.db.transaction(async (client) => {
      await this.repository.replaceAlerts(client, userId, thresholdsAtto);
      return this.repository.alerts(client, userId);
    });
  }

  alerts(userId: string): Promise<Array<{ thresholdAtto: bigint; armed: boolean }>> {
    return this.repository.alerts(this.db.pool, userId);
  }

  async putAutoTopup(input: { userId: string; belowAtto: bigint; amountAtto: bigint; maxPerMonthAtto: bigint; enabled: boolean }): Promise<{ state: AutoTopupState; created: boolean }> {
    return this.db.transaction(async (client) => {
      const created = await this.repository.putAutoTopup(client, input);
      return { state: (await this.stateIn(client, input.userId))!, created };
    });
  }

  async autoTopup(userId: string): Promise<AutoTopupState> {
    const state = await this.stateIn(this.db.pool, userId);
    if (!state) throw notFound('auto top-up');
    return state;
  }

  /** The operator's payment system could not charge: recorded; the third in a row switches auto top-up off. */
  async failRequest(input: { userId: string; requestId: string; reason: string }): Promise<AutoTopupState> {
    return this.db.transaction(async (client) => {
      const topup = await this.repository.lockAutoTopup(client, input.userId);
      const request = await this.repository.lockRequest(client, input.requestId);
      if (!topup || !request || request.userId !== input.userId) throw notFound('top-up request');
      if (request.status === 'failed') {
        if (request.failureReason !== input.reason) throw new DomainError('idempotency_conflict', 'the request already failed with another reason');
        return (await this.stateIn(client, input.userId))!;
      }
      await this.repository.markFailed(client, input.requestId, input.reason);
      const failures = topup.failuresInRow + 1;
      const disable = topup.enabled && failures >= TOPUP_FAILURES_MAX;
      await this.repository.updateAutoTopup(client, input.userId, { failuresInRow: failures, ...(disable ? { enabled: false, disabledReason: input.reason } : {}) });
      if (disable) {
        await this.webhooks.emit(client, [
          { type: 'user.topup_disabled', data: { user_id: input.userId, failures, reason: input.reason }, occurredAt: this.clock.now(), dedupeKey: `user.topup_disabled:${input.requestId}` },
        ]);
      }
      return (await this.stateIn(client, input.userId))!;
    });
  }

  /** In a credit's transaction (the account row already locked by its posting). */
  async afterCredit(client: SqlClient, userId: string, reference: string): Promise<void> {
    await this.repository.resetFailuresFor(client, userId, reference);
    await this.evaluate(client, userId);
  }

  /** Worker: every watched user's balance looked at once. Returns the webhooks it emitted. */
  async sweep(): Promise<number> {
    let emitted = 0;
    let after = '';
    for (;;) {
      const users = await this.repository.watchedUsers(this.db.pool, after, SWEEP_PAGE_USERS);
      for (const userId of users) emitted += await this.db.transaction((client) => this.evaluate(client, userId));
      if (users.length < SWEEP_PAGE_USERS) return emitted;
      after = users[users.length - 1]!;
    }
  }

  private async evaluate(client: SqlClient, userId: string): Promise<number> {
    const account = await this.ledger.lockAccount(client, userAccount(userId));
    // Unexpired grants count as balance (as GET /v1/users/:id/balance shows it).
    const availableAtto = account.balanceAtto + (await this.grants.usableUnderLock(client, userId, account.grantsUntil)) - account.heldAtto;
    const now = this.clock.now();
    const events: WebhookEventInput[] = [];
    for (const thresholdAtto of await this.repository.crossAlerts(client, userId, availableAtto)) {
      events.push({ type: 'user.balance_threshold_crossed', data: { user_id: userId, threshold_usd: formatAttoAsUsd(thresholdAtto), available_usd: formatAttoAsUsd(availableAtto) }, occurredAt: now });
    }
    await this.repository.rearmAlerts(client, userId, availableAtto);
    const request = await this.autoTopupRequest(client, userId, availableAtto, now);
    if (request) events.push(request);
    if (events.length > 0) await this.webhooks.emit(client, events);
    return events.length;
  }

  /** Once per crossing below below_usd, and only while the month's requests stay within the max. */
  private async autoTopupRequest(client: SqlClient, userId: string, availableAtto: bigint, now: Date): Promise<WebhookEventInput | null> {
    const topup = await this.repository.lockAutoTopup(client, userId);
    if (!topup || !topup.enabled) return null;
    if (availableAtto >= topup.belowAtto) {
      if (!topup.armed) await this.repository.updateAutoTopup(client, userId, { armed: true });
      return null;
    }
    if (!topup.armed) return null;
    const month = monthOf(now);
    // Over the month's max: stays armed, so the first crossing look of next month asks.
    if ((await this.repository.requestedInMonth(client, userId, month)) + topup.amountAtto > topup.maxPerMonthAtto) return null;
    const requestId = `topup_${randomUUID().replaceAll('-', '')}`;
    await this.repository.insertRequest(client, { requestId, userId, amountAtto: topup.amountAtto, month });
    await this.repository.updateAutoTopup(client, userId, { armed: false });
    return { type: 'user.topup_requested', data: { user_id: userId, request_id: requestId, amount_usd: formatAttoAsUsd(topup.amountAtto) }, occurredAt: now, dedupeKey: `user.topup_requested:${requestId}` };
  }

  private async stateIn(runner: SqlRunner, userId: string): Promise<AutoTopupState | null> {
    const topup = await this.repository.findAutoTopup(runner, userId);
    if (!topup) return null;
    return { ...topup, requestedThisMonthAtto: await this.repository.requestedInMonth(runner, userId, monthOf(this.clock.now())) };
  }
}
