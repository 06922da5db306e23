import { Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { DomainError, notFound } from '../../common/errors/index.js';
import { userAccount } from '../ledger/account-codes.js';
import { LedgerService } from '../ledger/ledger.service.js';
import { formatAttoAsUsd } from '../../common/money/index.js';
import { WebhookOutbox, type WebhookEventInput } from '../webhooks/webhook-outbox.service.js';
import { BudgetsService } from '../spend/budgets.service.js';
import { GrantsService } from '../spend/grants.service.js';
import { HoldsRepository, type HoldRecord } from './holds.repository.js';

const EXPIRE_BATCH_MAX = 1000;

/** hold.expired for each hold that just expired (announced in the expiring transaction). */
function expiredEvents(holds: readonly HoldRecord[], at: Date): WebhookEventInput[] {
  return holds.map((hold) => ({
    type: 'hold.expired',
    data: { hold_id: hold.holdId, user_id: hold.userId, amount_usd: formatAttoAsUsd(hold.amountAtto), expires_at: hold.expiresAt.toISOString() },
    occurredAt: at,
    dedupeKey: `hold.expired:${hold.holdId}`,
  }));
}

export interface HoldResult {
  hold: HoldRecord;
  replayed: boolean;
}

/**
 * Two-phase reservations on a user's prepaid credit (like TigerBeetle pending transfers): a hold
 * raises the account's held amount, never its balance; capture and release lower it again.
 */
@Injectable()
export class HoldsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: DatabaseService,
    private readonly holds: HoldsRepository,
    private readonly ledger: LedgerService,
    private readonly webhooks: WebhookOutbox,
    private readonly budgets: BudgetsService,
    private readonly grants: GrantsService,
  ) {}

  async create(input: { holdId: string; userId: string; amountAtto: bigint; expiresInSeconds?: number; keyId?: string | null; model?: string | null }): Promise<HoldResult> {
    const keyId = input.keyId ?? null;
    const model = input.model ?? null;
    const ttlSeconds = input.expiresInSeconds ?? this.config.HOLD_DEFAULT_TTL_SECONDS;
    if (ttlSeconds > this.config.HOLD_MAX_TTL_SECONDS) {
      throw new DomainError('validation_failed', 'hold lifetime too long', [
        { field: 'expires_in_seconds', message: `must be at most ${this.config.HOLD_MAX_TTL_SECONDS}` },
      ]);
    }
    return this.db.transaction(async (client) => {
      const existing = await this.holds.find(input.holdId, client);
      if (existing) return { hold: this.assertSameHold(existing, input), replayed: true };
      const budgets = await this.budgets.budgetsOf(client, input.userId);
      // Lock order everywhere: hold rows, then account rows (as the usage writer does).
      const expired = await this.holds.expireDue(client, new Date(), EXPIRE_BATCH_MAX, input.userId);
      if (expired.length > 0) await this.webhooks.emit(client, expiredEvents(expired, new Date()));
      // Row lock on the user's account serializes concurrent holds: never over-reserve.
      const account = await this.ledger.lockAccount(client, userAccount(input.userId));
      const expiredAtto = expired.reduce((sum, h) => sum + h.amountAtto, 0n);
      // Unexpired grants are spendable (a user without one costs no query: grants_until is on the locked row).
      const grantedAtto = await this.grants.usableUnderLock(client, input.userId, account.grantsUntil);
      const availableAtto = account.balanceAtto + grantedAtto - (account.heldAtto - expiredAtto);
      if (availableAtto < input.amountAtto) {
        throw new DomainError('insufficient_funds', 'available balance is lower than the hold amount');
      }
      // Budgets are read after the account lock (and the user's due holds expired): the lock
      // serializes the user's holds, so racing ones never pass a limit together.
      await this.budgets.checkHold(client, budgets, { userId: input.userId, keyId, model, amountAtto: input.amountAtto });
      const expiresAt = new Date(Date.now() + ttlSeconds * 1000);
      const inserted = await this.holds.insertIfNew(client, { holdId: input.holdId, userId: input.userId, amountAtto: input.amountAtto, expiresAt, keyId, model });
      if (!inserted) throw new DomainError('conflict', 'hold was created concurrently; retry');
      await this.ledger.applyHeldDeltas(client, new Map([[userAccount(input.userId), input.amountAtto - expiredAtto]]));
      return { hold: (await this.holds.find(input.holdId, client))!, replayed: false };
    });
  }

  async release(holdId: string): Promise<HoldRecord> {
    return this.db.transaction(async (client) => {
      const hold = await this.holds.find(holdId, client);
      if (!hold) throw notFound('hold');
      const released = await this.holds.finish(client, holdId, 'released');
      if (released) {
        await this.ledger.applyHeldDeltas(client, new Map([[userAccount(hold.userId), -released.amountAtto]]));
        return released;
      }
      const current = (await this.holds.find(holdId, client))!;
      if (current.status === 'captured') throw new DomainError('conflict', 'hold was already captured by a usage event');
      return current; // released or expired already: releasing again changes nothing
    });
  }

  async get(holdId: string): Promise<HoldRecord> {
    const hold = await this.holds.find(holdId);
    if (!hold) throw notFound('hold');
    return hold;
  }

  /**
   * Inside the usage writer's transaction: captures the holds named by newly billed events and
   * returns the held-amount deltas to apply with the ledger postings.
   */
  async captureInTransaction(client: SqlClient, captures: Array<{ holdId: string; userId: string; eventId: string; chargeAtto: bigint }>): Promise<Map<string, bigint>> {
    const captured = await this.holds.capture(client, captures);
    const deltas = new Map<string, bigint>();
    for (const hold of captured) {
      const code = userAccount(hold.userId);
      deltas.set(code, (deltas.get(code) ?? 0n) - hold.amountAtto);
    }
    return deltas;
  }

  /** Worker job: expire due holds and give their amounts back to available. */
  async expireDue(now = new Date()): Promise<number> {
    let total = 0;
    for (;;) {
      const expired = await this.db.transaction(async (client) => {
        const rows = await this.holds.expireDue(client, now, EXPIRE_BATCH_MAX);
        const deltas = new Map<string, bigint>();
        for (const hold of rows) deltas.set(userAccount(hold.userId), (deltas.get(userAccount(hold.userId)) ?? 0n) - hold.amountAtto);
        await this.ledger.applyHeldDeltas(client, deltas);
        if (rows.length > 0) await this.webhooks.emit(client, expiredEvents(rows, now));
        return rows.length;
      });
      total += expired;
      if (expired < EXPIRE_BATCH_MAX) return total;
    }
  }

  private assertSameHold(existing: HoldRecord, input: { userId: string; amountAtto: bigint; keyId?: string | null; model?: string | null }): HoldRecord {
    if (existing.userId !== input.userId || existing.amountAtto !== input.amountAtto || existing.keyId !== (input.keyId ?? null) || existing.model !== (input.model ?? null)) {
      throw new DomainError('idempotency_conflict', 'hold_id was already used with a different user or amount');
    }
    return existing;
  }
}
