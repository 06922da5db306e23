import { Inject, Injectable } from '@nestjs/common';
import { z } from 'zod';
import { validationFailed } from '../../common/errors/index.js';
import { cursorAttoSchema, cursorIdSchema, cursorRowIdSchema, decodeCursor, encodeCursor } from '../../common/http/pagination.js';
import { microUsdcToAtto } from '../../common/money/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { AuditService } from '../audit/audit.service.js';
import { DatabaseService } from '../../database/database.service.js';
import { GrantsService } from '../spend/grants.service.js';
import { formatDay, resolveEarningsRange } from '../earnings/earnings-range.js';
import { LedgerService, type ContributorCursor, type ContributorSort } from '../ledger/ledger.service.js';
import { SettlementService } from '../settlement/creation/settlement.service.js';
import { UsageService } from '../usage/usage.service.js';
import { AdminRepository } from './admin.repository.js';

const contributorCursorSchema = z.union([
  z.object({ s: z.literal('id'), id: cursorIdSchema }).strict(),
  z.object({ s: z.literal('payable_desc'), p: cursorAttoSchema, id: cursorIdSchema }).strict(),
]);
const auditCursorSchema = z.object({ id: cursorRowIdSchema }).strict();

/** Platform totals in atto-USD, with the settlement module's hot wallet and last settlement. */
export interface AdminOverview {
  chargedAtto: bigint;
  /** The margin kept: usage margin minus what refunds reversed. */
  marginAtto: bigint;
  /** What expired credit grants moved to platform revenue (breakage); not part of marginAtto. */
  breakageAtto: bigint;
  /** Credited back to users by refunds. */
  refundedAtto: bigint;
  /** Contributor earnings still maturing (PAYOUT_MATURITY_DAYS). */
  pendingAtto: bigint;
  /** Users' balances as each user's balance shows them: purchased credit + what unexpired grants hold. */
  usersBalanceAtto: bigint;
  /** The unexpired grants' part of usersBalanceAtto. */
  usersGrantedAtto: bigint;
  usersHeldAtto: bigint;
  payableAtto: bigint;
  inSettlementAtto: bigint;
  paidAtto: bigint;
  unpricedEvents: bigint;
  hotWallet: Awaited<ReturnType<SettlementService['hotWalletStatus']>>;
  lastSettlement: Awaited<ReturnType<SettlementService['lastSettlementSummary']>>;
}

/** Admin reads: overview, contributor list, audit log, as records (admin.presenter.ts shapes the api.md JSON). */
@Injectable()
export class AdminService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: AdminRepository,
    private readonly ledger: LedgerService,
    private readonly usage: UsageService,
    private readonly audit: AuditService,
    private readonly settlement: SettlementService,
    private readonly grants: GrantsService,
    private readonly db: DatabaseService,
  ) {}

  async listContributors(input: { sort: ContributorSort; limit: number; cursor?: string; search?: string }) {
    const decoded = decodeCursor(input.cursor, contributorCursorSchema);
    if (decoded && decoded.s !== input.sort) {
      throw validationFailed([{ field: 'cursor', message: `was returned for sort=${decoded.s}, not sort=${input.sort}` }]);
    }
    const after: ContributorCursor | null =
      decoded === null ? null : decoded.s === 'id' ? { sort: 'id', id: decoded.id } : { sort: 'payable_desc', payableAtto: BigInt(decoded.p), id: decoded.id };
    // The cursor is a position in the sort order, so it stays valid with or without the same search.
    const rows = await this.ledger.contributorBalancePage({ sort: input.sort, after, limit: input.limit + 1, search: input.search });
    const page = rows.slice(0, input.limit);
    const last = page.at(-1);
    const nextCursor =
      rows.length > input.limit && last
        ? encodeCursor(input.sort === 'id' ? { s: 'id', id: last.id } : { s: 'payable_desc', p: last.payableAtto.toString(), id: last.id })
        : null;
    return { rows: page, nextCursor };
  }

  /** Newest first; the cursor is the id of the last entry seen. */
  async auditLog(input: { limit: number; cursor?: string }) {
    const decoded = decodeCursor(input.cursor, auditCursorSchema);
    const records = await this.audit.list(input.limit + 1, decoded ? BigInt(decoded.id) : null);
    const page = records.slice(0, input.limit);
    const last = page.at(-1);
    return { records: page, nextCursor: records.length > input.limit && last ? encodeCursor({ id: last.id.toString() }) : null };
  }

  /** Per UTC day: charged, revenue and earnings of the usage of that day, and USDC paid that day. */
  async overviewDaily(input: { from?: string; to?: string; now?: Date }) {
    const range = resolveEarningsRange({ from: input.from, to: input.to, now: input.now ?? new Date(), rangeDaysMax: this.config.EARNINGS_RANGE_DAYS_MAX });
    const [fromDay, toDay] = [formatDay(range.from), formatDay(range.to)];
    const [usage, paid] = await Promise.all([this.repository.dailyUsage(fromDay, toDay), this.settlement.paidMicroUsdcPerDay(fromDay, toDay)]);
    return {
      from: fromDay,
      to: toDay,
      rows: usage.map((r) => ({ ...r, paidAtto: microUsdcToAtto(paid.get(r.day) ?? 0n) })),
    };
  }

  /**
   * Platform totals. charged/revenue come from the daily rollup (revenue = the platform's margin
   * on priced usage); breakage (expired grants' remainders, also platform revenue) is its own
   * figure, read from the grants and the journal in the balances' snapshot; balances are stored account balances summed by kind, the users' with what
   * their unexpired grants hold (read in one snapshot: a grant draw moving money between a grant
   * and its user is counted once); the hot wallet and the
   * last settlement come from the settlement module (hot_wallet is null when settlement is off).
   */
  async overview(): Promise<AdminOverview> {
    const [usage, [byKind, grantedAtto, breakageAtto], unpriced, lastSettlement, hotWallet] = await Promise.all([
      this.repository.usageTotals(),
      // One snapshot of the primary (as the balances were read before grants): repeatable read.
      this.db.transaction(
        async (client) => [await this.ledger.totalsByAccountKind(client), await this.grants.usableTotalAtto(client), await this.grants.breakageTotalAtto(client)] as const,
        'repeatable read',
      ),
      this.usage.countUnpriced(),
      this.settlement.lastSettlementSummary(),
      this.settlement.hotWalletStatus(),
    ]);
    return {
      chargedAtto: usage.chargedAtto,
      // Revenue is the margin kept: refunds reverse their share of it (on the day they are made).
      marginAtto: usage.marginAtto - usage.marginReversedAtto,
      breakageAtto,
      refundedAtto: usage.refundedAtto,
      pendingAtto: byKind.get('contributor_pending')?.balanceAtto ?? 0n,
      usersBalanceAtto: (byKind.get('user')?.balanceAtto ?? 0n) + grantedAtto,
      usersGrantedAtto: grantedAtto,
      usersHeldAtto: byKind.get('user')?.heldAtto ?? 0n,
      payableAtto: byKind.get('contributor_payable')?.balanceAtto ?? 0n,
      inSettlementAtto: byKind.get('contributor_in_settlement')?.balanceAtto ?? 0n,
      paidAtto: byKind.get('contributor_paid')?.balanceAtto ?? 0n,
      unpricedEvents: unpriced,
      hotWallet,
      lastSettlement,
    };
  }
}
