import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module.js';
import { SpendModule } from '../spend/spend.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { HoldsController } from './holds.controller.js';
import { HoldsRepository } from './holds.repository.js';
import { HoldsService } from './holds.service.js';

@Module({
  imports: [LedgerModule, WebhooksModule, SpendModule],
  controllers: [HoldsController],
  providers: [HoldsRepository, HoldsService],
  exports: [HoldsService],
})
export class HoldsModule {}
