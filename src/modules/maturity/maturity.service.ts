import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DatabaseService } from '../../database/database.service.js';
import { contributorPending } from '../ledger/account-codes.js';
import { LedgerService } from '../ledger/ledger.service.js';
import { EARNINGS_MATURED_JOURNAL_KIND, earningsMaturedDraft, earningsMaturedRef } from '../ledger/maturity-journal.js';
import { RefundsService } from '../refunds/refunds.service.js';
import { maturedThrough } from '../ledger/maturity-window.js';
import { MaturityRepository } from './maturity.repository.js';

export interface MaturityRun {
  maturedThroughDay: string | null;
  contributors: number;
  maturedAtto: bigint;
}

/**
 * PAYOUT_MATURITY_DAYS (api.md "Payout safety"): moves matured earnings from each contributor's
 * pending account to payable, one journal transaction per contributor and run day
 * (earnings_matured, ref '<contributor>:<matured-through day>'): a second run the same day is a
 * no-op, a run after downtime catches up every day at once. What stays pending is exactly what
 * is still maturing: the rollup's earnings of days after the matured one, minus the clawbacks
 * that refunds took from pending for those days.
 */
@Injectable()
export class MaturityService {
  private readonly logger = new Logger('Maturity');

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: DatabaseService,
    private readonly repository: MaturityRepository,
    private readonly ledger: LedgerService,
    private readonly refunds: RefundsService,
  ) {}

  async matureDue(now: Date = new Date()): Promise<MaturityRun> {
    const days = this.config.PAYOUT_MATURITY_DAYS;
    // With maturity off nothing is posted to pending, but what an earlier setting left there matures at once.
    const through = maturedThrough(now, days);
    let contributors = 0;
    let maturedAtto = 0n;
    for (const contributorId of await this.repository.contributorsWithPending()) {
      const moved = await this.matureOne(contributorId, through);
      if (moved > 0n) {
        contributors += 1;
        maturedAtto += moved;
      }
    }
    if (contributors > 0) this.logger.log(`matured earnings through ${through} for ${contributors} contributors`);
    return { maturedThroughDay: through, contributors, maturedAtto };
  }

  private matureOne(contributorId: string, through: string): Promise<bigint> {
    return this.db.transaction(async (client) => {
      // The lock orders this against usage postings and refunds of the same pending account.
      const pending = await this.ledger.lockAccount(client, contributorPending(contributorId));
      const maturing = (await this.repository.earnedAfter(client, contributorId, through)) - (await this.refunds.pendingClawbacksAfter(client, contributorId, through));
      let amount = pending.balanceAtto - (maturing > 0n ? maturing : 0n);
      if (amount > pending.balanceAtto) amount = pending.balanceAtto;
      if (amount <= 0n) return 0n;
      const written = await this.ledger.post(client, [earningsMaturedDraft({ contributorId, maturedThroughDay: through, amountAtto: amount })]);
      return written.has(`${EARNINGS_MATURED_JOURNAL_KIND}/${earningsMaturedRef(contributorId, through)}`) ? amount : 0n;
    });
  }
}
