import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module.js';
import { EarningsController } from './earnings.controller.js';
import { EarningsRepository } from './earnings.repository.js';
import { EarningsService } from './earnings.service.js';
import { RollupCheck } from './rollup-check.js';
import { RollupVerifiedDaysRepository } from './rollup-verified-days.repository.js';

/** Contributor earnings and balances (reads only), plus the rollup consistency check. */
@Module({
  imports: [LedgerModule],
  controllers: [EarningsController],
  providers: [EarningsRepository, EarningsService, RollupCheck, RollupVerifiedDaysRepository],
  exports: [EarningsService],
})
export class EarningsModule {}
