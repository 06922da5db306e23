import { Module } from '@nestjs/common';
import { ContributorsModule } from '../contributors/contributors.module.js';
import { HoldsModule } from '../holds/holds.module.js';
import { LedgerModule } from '../ledger/ledger.module.js';
import { PricingModule } from '../pricing/pricing.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { UsageController } from './usage.controller.js';
import { UsageRepository } from './usage.repository.js';
import { UsageService } from './usage.service.js';
import { UsageWriter } from './usage-writer.js';

@Module({
  imports: [LedgerModule, HoldsModule, PricingModule, ContributorsModule, WebhooksModule],
  controllers: [UsageController],
  providers: [UsageRepository, UsageWriter, UsageService],
  exports: [UsageService],
})
export class UsageModule {}
