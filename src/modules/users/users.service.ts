import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { DomainError, notFound } from '../../common/errors/index.js';
import { userAccount } from '../ledger/account-codes.js';
import { userCreditDraft } from '../ledger/journal-kinds.js';
import { LedgerService } from '../ledger/ledger.service.js';
import { AuditService } from '../audit/audit.service.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { BalanceWatchService } from '../spend/balance-watch.service.js';
import { UsersRepository, type ListedUser } from './users.repository.js';

export interface UserBalance {
  userId: string;
  balanceAtto: bigint;
  heldAtto: bigint;
  availableAtto: bigint;
}

@Injectable()
export class UsersService {
  constructor(
    private readonly db: DatabaseService,
    private readonly users: UsersRepository,
    private readonly ledger: LedgerService,
    private readonly audit: AuditService,
    private readonly balanceWatch: BalanceWatchService,
  ) {}

  /**
   * Prepaid top-up (positive, from external funding) or adjustment (negative, needs a reason),
   * idempotent by reference: a replay returns the current balance, a different payload is a 409.
   */
  async credit(actor: Principal, input: { userId: string; amountAtto: bigint; reference: string; reason: string | null }) {
    if (input.amountAtto === 0n) throw new DomainError('validation_failed', 'amount must not be zero', [{ field: 'amount_usd', message: 'must not be zero' }]);
    if (input.amountAtto < 0n && !input.reason) {
      throw new DomainError('validation_failed', 'a negative amount is an adjustment and needs a reason', [{ field: 'reason', message: 'required for negative amounts' }]);
    }
    return this.db.transaction(async (client) => {
      await this.users.lockReference(client, input.reference);
      const existing = await this.users.findCredit(client, input.reference);
      if (existing) {
        if (existing.userId !== input.userId || existing.amountAtto !== input.amountAtto || (existing.reason ?? null) !== (input.reason ?? null)) {
          throw new DomainError('idempotency_conflict', 'reference was already used with a different payload');
        }
        return { balance: await this.balanceIn(client, input.userId), replayed: true };
      }
      const draft = userCreditDraft({ reference: input.reference, userId: input.userId, amountAtto: input.amountAtto, ...(input.reason ? { memo: input.reason } : {}) });
      const kind = draft.kind;
      const journalEntryId = await this.ledger.postOne(client, draft);
      await this.users.insertCreditIfNew(client, { ...input, journalEntryId });
      // Balance thresholds and auto top-up see the new balance (re-armed by a top-up, crossed by an adjustment).
      await this.balanceWatch.afterCredit(client, input.userId, input.reference);
      const balance = await this.balanceIn(client, input.userId);
      await this.audit.recordWithSql(client, actor, {
        action: kind === 'topup' ? 'user.credit' : 'user.adjustment',
        target: `user:${input.userId}`,
        before: { balance_atto: balance.balanceAtto - input.amountAtto },
        after: { balance_atto: balance.balanceAtto, amount_atto: input.amountAtto, reference: input.reference, reason: input.reason },
      });
      return { balance, replayed: false };
    });
  }

  list(input: { q?: string; limit: number; afterId: string | null }): Promise<ListedUser[]> {
    return this.users.list(input);
  }

  async balance(userId: string): Promise<UserBalance> {
    const balances = await this.ledger.balances([userAccount(userId)]);
    const account = balances.get(userAccount(userId));
    if (!account) throw notFound('user');
    return { userId, balanceAtto: account.balanceAtto, heldAtto: account.heldAtto, availableAtto: account.balanceAtto - account.heldAtto };
  }

  private async balanceIn(client: Parameters<LedgerService['balances']>[1], userId: string): Promise<UserBalance> {
    const account = (await this.ledger.balances([userAccount(userId)], client)).get(userAccount(userId))!;
    return { userId, balanceAtto: account.balanceAtto, heldAtto: account.heldAtto, availableAtto: account.balanceAtto - account.heldAtto };
  }
}
