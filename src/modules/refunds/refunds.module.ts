import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module.js';
import { SpendModule } from '../spend/spend.module.js';
import { UsageModule } from '../usage/usage.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { RefundChecks } from './refund-checks.js';
import { RefundsController } from './refunds.controller.js';
import { RefundsRepository } from './refunds.repository.js';
import { RefundsService } from './refunds.service.js';

@Module({
  imports: [LedgerModule, UsageModule, WebhooksModule, SpendModule],
  controllers: [RefundsController],
  providers: [RefundsRepository, RefundsService, RefundChecks],
  exports: [RefundsService],
})
export class RefundsModule {}
