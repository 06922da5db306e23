import { Module } from '@nestjs/common';
import { ContributorsModule } from '../contributors/contributors.module.js';
import { HoldsModule } from '../holds/holds.module.js';
import { LedgerModule } from '../ledger/ledger.module.js';
import { PricingModule } from '../pricing/pricing.module.js';
import { SpendModule } from '../spend/spend.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { UsageController } from './usage.controller.js';
import { UsageExplorerController } from './usage-explorer.controller.js';
import { UsageExplorerRepository } from './usage-explorer.repository.js';
import { UsageExplorerService } from './usage-explorer.service.js';
import { UsageRepository } from './usage.repository.js';
import { UsageService } from './usage.service.js';
import { UsageWriter } from './usage-writer.js';

@Module({
  imports: [LedgerModule, HoldsModule, PricingModule, ContributorsModule, WebhooksModule, SpendModule],
  controllers: [UsageController, UsageExplorerController],
  providers: [UsageRepository, UsageWriter, UsageService, UsageExplorerRepository, UsageExplorerService],
  exports: [UsageService],
})
export class UsageModule {}
