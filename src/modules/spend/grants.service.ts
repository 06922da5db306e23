import { Injectable, Logger } from '@nestjs/common';
import { DatabaseService, type SqlClient, type SqlRunner } from '../../database/database.service.js';
import { DomainError } from '../../common/errors/index.js';
import { grantAccount, userAccount } from '../ledger/account-codes.js';
import { grantBreakageDraft, grantDraft, grantRefundDraft, grantUseDraft } from '../ledger/journal-kinds.js';
import type { JournalDraft } from '../ledger/journal-draft.js';
import { LedgerService, type LowBalanceChange } from '../ledger/ledger.service.js';
import { drawCharges, grantUsableAt, refundToGrants, usableGrantsAtto } from './grant-allocation.js';
import { GrantsRepository, type GrantRecord } from './grants.repository.js';
import { SpendClock } from './spend-clock.js';

/** A grant may last at most this long from its creation (promotions and trials, not deposits). */
export const GRANT_HORIZON_MAX_DAYS = 730;
const DAY_MS = 86_400_000;
const BREAKAGE_BATCH = 200;

export interface GrantInput {
  expiresAt: Date;
  name: string | null;
}

/** Users' balance changes with what their grants usable at `at` hold added to the balance after. */
function withGranted(changes: readonly LowBalanceChange[], grants: readonly GrantRecord[], at: Date): LowBalanceChange[] {
  return changes.map((c) => ({ ...c, balanceAtto: c.balanceAtto + usableGrantsAtto(grants.filter((g) => g.userId === c.userId), at) }));
}

/** A grant as the balance shows it: an expired one (or one at or past expires_at) has nothing left to spend. */
export interface GrantView extends GrantRecord {
  usableAtto: bigint;
}

/**
 * Credit grants that expire (issue 37; docs/spend-controls.md "Credit grants"). Every grant write
 * takes the owning user's account row lock first, then the grant's rows: the order the usage
 * writer (which locks user accounts in its balance upsert) also follows, so none deadlock.
 */
@Injectable()
export class GrantsService {
  private readonly logger = new Logger('Grants');

  constructor(
    private readonly db: DatabaseService,
    private readonly repository: GrantsRepository,
    private readonly ledger: LedgerService,
    private readonly clock: SpendClock,
  ) {}

  /** 400 unless the grant is well formed for a credit of amountAtto at the clock's now. */
  validate(amountAtto: bigint, grant: GrantInput): void {
    if (amountAtto <= 0n) throw new DomainError('validation_failed', 'a grant is a positive amount', [{ field: 'amount_usd', message: 'must be positive with a grant' }]);
    const now = this.clock.now().getTime();
    if (grant.expiresAt.getTime() <= now) throw new DomainError('validation_failed', 'a grant must expire in the future', [{ field: 'grant.expires_at', message: 'must be in the future' }]);
    if (grant.expiresAt.getTime() > now + GRANT_HORIZON_MAX_DAYS * DAY_MS) {
      throw new DomainError('validation_failed', 'a grant expires too far ahead', [{ field: 'grant.expires_at', message: `must be within ${GRANT_HORIZON_MAX_DAYS} days` }]);
    }
  }

  /** Inside the credit's transaction (reference locked, not used before): the grant's account is funded by the platform. */
  async create(client: SqlClient, input: { reference: string; userId: string; amountAtto: bigint; grant: GrantInput; memo?: string }): Promise<bigint> {
    const user = userAccount(input.userId);
    await this.ledger.lockAccount(client, user);
    const grantId = input.reference;
    const journalEntryId = await this.ledger.postOne(
      client,
      grantDraft({ reference: input.reference, grantId, amountAtto: input.amountAtto, ...(input.memo === undefined ? {} : { memo: input.memo }) }),
    );
    await this.repository.insert(client, { grantId, userId: input.userId, name: input.grant.name, amountAtto: input.amountAtto, expiresAt: input.grant.expiresAt, journalEntryId });
    await this.ledger.extendGrantsUntil(client, user, input.grant.expiresAt);
    return journalEntryId;
  }

  find(runner: SqlRunner, grantId: string): Promise<GrantRecord | null> {
    return this.repository.find(runner, grantId);
  }

  /** A user's grants with what each can still pay at the clock's now, and their sum. */
  async ofUser(userId: string, runner: SqlRunner = this.db.pool): Promise<{ grants: GrantView[]; grantedAtto: bigint }> {
    const at = this.clock.now();
    const grants = (await this.repository.ofUser(runner, userId)).map((g) => ({ ...g, usableAtto: g.expiredAt === null && grantUsableAt(g, at) ? g.remainingAtto : 0n }));
    return { grants, grantedAtto: usableGrantsAtto(grants.filter((g) => g.expiredAt === null), at) };
  }

  /** What all users' grants can pay at the clock's now (their part of the users' balance). */
  usableTotalAtto(runner: SqlRunner = this.db.pool): Promise<bigint> {
    return this.repository.usableTotal(runner, this.clock.now());
  }

  /** What expired grants have moved to platform revenue so far (breakage, exact). */
  breakageTotalAtto(runner: SqlRunner = this.db.pool): Promise<bigint> {
    return this.repository.breakageTotal(runner);
  }

  /** For a hold, under the user's account lock: what the user's grants can pay now (0 without grants: no query). */
  async usableUnderLock(client: SqlClient, userId: string, grantsUntil: Date | null | undefined): Promise<bigint> {
    const at = this.clock.now();
    if (!grantsUntil || grantsUntil.getTime() <= at.getTime()) return 0n;
    return usableGrantsAtto(await this.repository.usableOfUsers(client, [userId], at), at);
  }

  /** The instant grants are judged at (the usage writer's routing and draws). */
  now(): Date {
    return this.clock.now();
  }

  /**
   * In a usage transaction, after the charges were posted (the users' account rows locked by that
   * upsert, which returned grants_until): each charge of a user whose grants_until is after now
   * takes from the user's usable grants, the one expiring first first, in the given order; a
   * grant_use entry per event moves the draws back to the user's account. `deferred`: the post's
   * user.balance_low changes of grant holders (PostOptions.lowBalance), judged here on purchased +
   * the grants read for the draw, before it (the draw moves money within the balance).
   */
  async drawForCharges(
    client: SqlClient,
    charges: ReadonlyArray<{ eventId: string; userId: string; chargeAtto: bigint }>,
    grantsUntil: ReadonlyMap<string, Date>,
    at: Date,
    deferred: readonly LowBalanceChange[] = [],
  ): Promise<number> {
    const withGrants = charges.filter((c) => c.chargeAtto > 0n && (grantsUntil.get(userAccount(c.userId))?.getTime() ?? 0) > at.getTime());
    if (withGrants.length === 0 && deferred.length === 0) return 0;
    const users = [...new Set([...withGrants.map((c) => c.userId), ...deferred.map((c) => c.userId)])];
    const grants = await this.repository.usableOfUsers(client, users, at);
    await this.ledger.announceLowBalances(client, withGranted(deferred, grants, at));
    const drafts: JournalDraft[] = [];
    for (const userId of users) {
      const own = grants.filter((g) => g.userId === userId);
      if (own.length === 0) continue;
      const { draws } = drawCharges(own, withGrants.filter((c) => c.userId === userId).map((c) => ({ ref: c.eventId, amountAtto: c.chargeAtto })), at);
      for (const d of draws) drafts.push(grantUseDraft({ eventId: d.ref, userId, draws: d.draws }));
    }
    // Moves within the users' balances: no crossing.
    if (drafts.length > 0) await this.ledger.post(client, drafts, { lowBalance: 'none' });
    return drafts.length;
  }

  /** user.balance_low of the grant holders a post deferred (their rows locked by it): on purchased + usable grants. */
  async announceLowBalances(client: SqlClient, deferred: readonly LowBalanceChange[], at: Date): Promise<void> {
    if (deferred.length === 0) return;
    const grants = await this.repository.usableOfUsers(client, [...new Set(deferred.map((c) => c.userId))], at);
    await this.ledger.announceLowBalances(client, withGranted(deferred, grants, at));
  }

  /**
   * In a refund's transaction, after its entry credited the whole refund to the user's account
   * (so the user's row is locked): the part grants had paid goes back to them (docs: "Refunds").
   */
  async afterRefund(client: SqlClient, input: { refundId: string; eventId: string; userId: string; refundedBeforeAtto: bigint; amountAtto: bigint }): Promise<void> {
    const drawn = await this.repository.drawnByEvent(client, input.eventId);
    if (drawn.length === 0) return;
    const parts = refundToGrants({ drawn, refundedBeforeAtto: input.refundedBeforeAtto, refundAtto: input.amountAtto });
    if (parts.length === 0) return;
    // Locked: a breakage running now either finished (expired_at set: the part is revenue) or waits.
    const grants = new Map((await this.repository.lockMany(client, parts.map((p) => p.grantId))).map((g) => [g.grantId, g]));
    // Part of a refund, which as a whole never lowers the user's balance: no balance_low.
    await this.ledger.postOne(
      client,
      grantRefundDraft({ refundId: input.refundId, userId: input.userId, parts: parts.map((p) => ({ ...p, broken: grants.get(p.grantId)?.expiredAt != null })) }),
      { lowBalance: 'none' },
    );
  }

  /**
   * Worker: breakage of every grant past its expiry, each in its own transaction (user's account
   * row, then the grant row, locked; a grant already broken is skipped), so a crash or a second
   * run at the same time moves each remainder exactly once. Returns how many grants it broke.
   */
  async breakDue(at: Date = this.clock.now(), afterEach?: (grantId: string) => void): Promise<number> {
    let broken = 0;
    for (;;) {
      const due = await this.repository.due(at, BREAKAGE_BATCH);
      for (const grant of due) {
        if (await this.breakOne(grant.grantId, grant.userId, at)) broken += 1;
        afterEach?.(grant.grantId);
      }
      if (due.length < BREAKAGE_BATCH) break;
    }
    if (broken > 0) this.logger.log(`broke ${broken} expired grants`);
    return broken;
  }

  /**
   * user.balance_low of a grant's expiry, in its breakage transaction (the user's row and the
   * grant's locked, the grant not broken yet: once per grant, crash-safe). At expires_at the
   * balance dropped from purchased + the grants expiring after it + this one's remainder to the
   * same without it. Grants that expire after this one but are due too are still counted (their
   * own breakage, next in the same order, judges their own drop), so grants expiring together
   * cross at most once. Read at breakage time: exact when the user's balance did not change
   * between expires_at and the sweep; a charge or credit in that window is judged on the balance
   * as it is now (docs/spend-controls.md "Limits").
   */
  private async announceExpiryCrossing(client: SqlClient, grant: GrantRecord, purchasedAtto: bigint, remainderAtto: bigint): Promise<void> {
    const laterAtto = await this.repository.laterUnbrokenOfUser(client, grant.userId, grant);
    await this.ledger.announceLowBalances(client, [{ userId: grant.userId, deltaAtto: -remainderAtto, balanceAtto: purchasedAtto + laterAtto }]);
  }

  private breakOne(grantId: string, userId: string, at: Date): Promise<boolean> {
    return this.db.transaction(async (client) => {
      const purchased = await this.ledger.lockAccount(client, userAccount(userId));
      const [grant] = await this.repository.lockMany(client, [grantId]);
      if (!grant || grant.expiredAt !== null || grant.expiresAt.getTime() > at.getTime()) return false;
      const remainder = (await this.ledger.balances([grantAccount(grantId)], client)).get(grantAccount(grantId))?.balanceAtto ?? 0n;
      if (remainder > 0n) {
        // Moves money out of nothing the balance still counts (the grant is 0 from expires_at on):
        // no crossing now. The crossing was at expires_at, and this, done once per grant, is
        // where it is announced (docs/spend-controls.md "Breakage").
        await this.ledger.postOne(client, grantBreakageDraft({ grantId, amountAtto: remainder }), { lowBalance: 'none' });
        await this.announceExpiryCrossing(client, grant, purchased.balanceAtto, remainder);
      }
      await this.repository.markBroken(client, grantId, at, remainder > 0n ? remainder : 0n);
      return true;
    });
  }
}
