import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { DomainError, notFound } from '../../common/errors/index.js';
import { userAccount } from '../ledger/account-codes.js';
import { userCreditDraft } from '../ledger/journal-kinds.js';
import { LedgerService, type AccountBalance, type LowBalanceChange } from '../ledger/ledger.service.js';
import type { JournalDraft } from '../ledger/journal-draft.js';
import { AuditService } from '../audit/audit.service.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { BalanceWatchService } from '../spend/balance-watch.service.js';
import { GrantsService, type GrantInput, type GrantView } from '../spend/grants.service.js';
import type { SqlClient, SqlRunner } from '../../database/database.service.js';
import { UsersRepository, type ListedUser } from './users.repository.js';

export interface UserBalance {
  userId: string;
  /** Purchased credit plus what unexpired grants hold. */
  balanceAtto: bigint;
  heldAtto: bigint;
  availableAtto: bigint;
  grantedAtto: bigint;
  grants: GrantView[];
}

@Injectable()
export class UsersService {
  constructor(
    private readonly db: DatabaseService,
    private readonly users: UsersRepository,
    private readonly ledger: LedgerService,
    private readonly audit: AuditService,
    private readonly balanceWatch: BalanceWatchService,
    private readonly grants: GrantsService,
  ) {}

  /**
   * Prepaid top-up (positive, from external funding) or adjustment (negative, needs a reason),
   * idempotent by reference: a replay returns the current balance, a different payload is a 409.
   */
  async credit(actor: Principal, input: { userId: string; amountAtto: bigint; reference: string; reason: string | null; grant?: GrantInput | null }) {
    const grant = input.grant ?? null;
    if (input.amountAtto === 0n) throw new DomainError('validation_failed', 'amount must not be zero', [{ field: 'amount_usd', message: 'must not be zero' }]);
    if (input.amountAtto < 0n && !input.reason) {
      throw new DomainError('validation_failed', 'a negative amount is an adjustment and needs a reason', [{ field: 'reason', message: 'required for negative amounts' }]);
    }
    return this.db.transaction(async (client) => {
      await this.users.lockReference(client, input.reference);
      const existing = await this.users.findCredit(client, input.reference);
      if (existing) {
        const existingGrant = await this.grants.find(client, input.reference);
        const sameGrant =
          existingGrant === null
            ? grant === null
            : grant !== null && existingGrant.userId === input.userId && existingGrant.expiresAt.getTime() === grant.expiresAt.getTime() && existingGrant.name === grant.name;
        if (existing.userId !== input.userId || existing.amountAtto !== input.amountAtto || (existing.reason ?? null) !== (input.reason ?? null) || !sameGrant) {
          throw new DomainError('idempotency_conflict', 'reference was already used with a different payload');
        }
        return { balance: await this.balanceIn(client, input.userId), replayed: true };
      }
      // A grant is judged at the clock's now after the replay check: a replay after expiry still answers 200.
      if (grant) this.grants.validate(input.amountAtto, grant);
      const memo = input.reason ? { memo: input.reason } : {};
      const draft = userCreditDraft({ reference: input.reference, userId: input.userId, amountAtto: input.amountAtto, ...memo });
      const kind = grant ? 'grant' : draft.kind;
      const journalEntryId = grant
        ? await this.grants.create(client, { reference: input.reference, userId: input.userId, amountAtto: input.amountAtto, grant, ...memo })
        : await this.adjust(client, draft);
      await this.users.insertCreditIfNew(client, { ...input, journalEntryId });
      // Balance thresholds and auto top-up see the new balance (re-armed by a top-up, crossed by an adjustment).
      await this.balanceWatch.afterCredit(client, input.userId, input.reference);
      const balance = await this.balanceIn(client, input.userId);
      await this.audit.recordWithSql(client, actor, {
        action: kind === 'grant' ? 'user.grant' : kind === 'topup' ? 'user.credit' : 'user.adjustment',
        target: `user:${input.userId}`,
        before: { balance_atto: balance.balanceAtto - input.amountAtto },
        after: {
          balance_atto: balance.balanceAtto,
          amount_atto: input.amountAtto,
          reference: input.reference,
          reason: input.reason,
          ...(grant ? { grant_expires_at: grant.expiresAt.toISOString(), grant_name: grant.name } : {}),
        },
      });
      return { balance, replayed: false };
    });
  }

  /** A top-up or an adjustment; a grant holder's balance_low counts the grants (read only for one). */
  private async adjust(client: SqlClient, draft: JournalDraft): Promise<bigint> {
    const [grantsAt, deferred] = [this.grants.now(), [] as LowBalanceChange[]];
    const journalEntryId = await this.ledger.postOne(client, draft, { lowBalance: { grantsAt, deferred } });
    await this.grants.announceLowBalances(client, deferred, grantsAt);
    return journalEntryId;
  }

  list(input: { q?: string; limit: number; afterId: string | null }): Promise<ListedUser[]> {
    return this.users.list({ ...input, at: this.grants.now() });
  }

  async balance(userId: string): Promise<UserBalance> {
    const balances = await this.ledger.balances([userAccount(userId)]);
    const account = balances.get(userAccount(userId));
    if (!account) throw notFound('user');
    return this.withGrants(userId, account);
  }

  private async balanceIn(client: Parameters<LedgerService['balances']>[1], userId: string): Promise<UserBalance> {
    const account = (await this.ledger.balances([userAccount(userId)], client)).get(userAccount(userId));
    // A grant to a user never billed nor credited before leaves the user's account at zero.
    return this.withGrants(userId, account ?? { code: userAccount(userId), balanceAtto: 0n, heldAtto: 0n, grantsUntil: null }, client);
  }

  /** The balance with the user's grants (read only for a user who ever had one). */
  private async withGrants(userId: string, account: AccountBalance, runner?: SqlRunner): Promise<UserBalance> {
    const { grants, grantedAtto } = account.grantsUntil ? await this.grants.ofUser(userId, runner) : { grants: [], grantedAtto: 0n };
    const balanceAtto = account.balanceAtto + grantedAtto;
    return { userId, balanceAtto, heldAtto: account.heldAtto, availableAtto: balanceAtto - account.heldAtto, grantedAtto, grants };
  }
}
