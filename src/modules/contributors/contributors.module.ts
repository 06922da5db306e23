import { Module } from '@nestjs/common';
import { EarningsModule } from '../earnings/earnings.module.js';
import { PayoutSafetyModule } from '../payout-safety/payout-safety.module.js';
import { ContributorsController } from './contributors.controller.js';
import { ContributorsRepository } from './contributors.repository.js';
import { ContributorsService } from './contributors.service.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { PayoutAddressChallengesRepository } from './payout-address-challenges.repository.js';
import { PayoutAddressController } from './payout-address.controller.js';
import { PayoutAddressProofService } from './payout-address-proof.service.js';

/** The contributor registry: tiers (with history), payout addresses, status. */
@Module({
  imports: [EarningsModule, PayoutSafetyModule, WebhooksModule],
  controllers: [ContributorsController, PayoutAddressController],
  providers: [ContributorsRepository, ContributorsService, PayoutAddressChallengesRepository, PayoutAddressProofService],
  exports: [ContributorsService],
})
export class ContributorsModule {}
