import { Inject, Injectable } from '@nestjs/common';
import { assert, DomainError, notFound } from '../../common/errors/index.js';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { contributorInSettlement, contributorPaid, contributorPayable, contributorPending } from '../ledger/account-codes.js';
import { LedgerService } from '../ledger/ledger.service.js';
import { contributorBalancesOf, type ContributorBalances } from './contributor-balances.js';
import { formatDay, resolveEarningsRange, type GroupBy } from './earnings-range.js';
import { sumRows, type EarningsReport } from './earnings-report.js';
import { EarningsRepository, type ContributorSummary } from './earnings.repository.js';

/** Most rows one earnings answer may hold (366 days x 250 models); more asks for a narrower range. */
export const EARNINGS_ROWS_MAX = 91_500;

export interface ContributorBalanceView {
  contributor: ContributorSummary;
  balances: ContributorBalances;
}

@Injectable()
export class EarningsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly repository: EarningsRepository,
    private readonly ledger: LedgerService,
  ) {}

  /**
   * A contributor's balances from the stored balances of its three ledger accounts (missing
   * accounts are zero). Exported for the contributors module's admin GET.
   */
  async contributorBalances(contributorId: string): Promise<ContributorBalances> {
    const codes = { pending: contributorPending(contributorId), payable: contributorPayable(contributorId), inSettlement: contributorInSettlement(contributorId), paid: contributorPaid(contributorId) };
    const found = await this.ledger.balances([codes.pending, codes.payable, codes.inSettlement, codes.paid]);
    return contributorBalancesOf({
      pendingAtto: found.get(codes.pending)?.balanceAtto ?? 0n,
      payableAtto: found.get(codes.payable)?.balanceAtto ?? 0n,
      inSettlementAtto: found.get(codes.inSettlement)?.balanceAtto ?? 0n,
      paidAtto: found.get(codes.paid)?.balanceAtto ?? 0n,
    });
  }

  /** The contributor (404 when unknown) with its balances: GET /v1/contributors/:id/balance. */
  async balance(contributorId: string): Promise<ContributorBalanceView> {
    const contributor = await this.requireContributor(contributorId);
    return { contributor, balances: await this.contributorBalances(contributorId) };
  }

  /** Earnings over whole UTC days from the daily rollup; totals are the exact sum of the rows. */
  async earnings(input: { contributorId: string; from?: string; to?: string; groupBy: GroupBy; now?: Date }): Promise<EarningsReport> {
    const range = resolveEarningsRange({
      from: input.from,
      to: input.to,
      now: input.now ?? new Date(),
      rangeDaysMax: this.config.EARNINGS_RANGE_DAYS_MAX,
    });
    await this.requireContributor(input.contributorId);
    const rows = await this.repository.earningsRows({
      contributorId: input.contributorId,
      fromDay: formatDay(range.from),
      toDay: formatDay(range.to),
      groupBy: input.groupBy,
      rowsMax: EARNINGS_ROWS_MAX,
    });
    if (rows.length > EARNINGS_ROWS_MAX) {
      throw new DomainError('unprocessable', `more than ${EARNINGS_ROWS_MAX} rows: ask for a shorter range or a coarser group_by`);
    }
    const totals = sumRows(rows);
    assert(totals.earnedAtto >= 0n && totals.officialAtto >= 0n, 'earnings are never negative');
    return { contributorId: input.contributorId, from: range.from, to: range.to, groupBy: input.groupBy, totals, rows };
  }

  private async requireContributor(contributorId: string): Promise<ContributorSummary> {
    const contributor = await this.repository.findContributor(contributorId);
    if (!contributor) throw notFound('contributor');
    return contributor;
  }
}
