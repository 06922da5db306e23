import { Module } from '@nestjs/common';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { BudgetsController } from './budgets.controller.js';
import { BudgetsRepository } from './budgets.repository.js';
import { BudgetsService } from './budgets.service.js';
import { SpendClock } from './spend-clock.js';

@Module({
  imports: [WebhooksModule],
  controllers: [BudgetsController],
  providers: [SpendClock, BudgetsRepository, BudgetsService],
  exports: [SpendClock, BudgetsService],
})
export class SpendModule {}
