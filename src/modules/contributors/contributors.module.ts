import { Module } from '@nestjs/common';
import { EarningsModule } from '../earnings/earnings.module.js';
import { PayoutSafetyModule } from '../payout-safety/payout-safety.module.js';
import { ContributorsController } from './contributors.controller.js';
import { ContributorsRepository } from './contributors.repository.js';
import { ContributorsService } from './contributors.service.js';

/** The contributor registry: tiers (with history), payout addresses, status. */
@Module({
  imports: [EarningsModule, PayoutSafetyModule],
  controllers: [ContributorsController],
  providers: [ContributorsRepository, ContributorsService],
  exports: [ContributorsService],
})
export class ContributorsModule {}
