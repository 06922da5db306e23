import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module.js';
import { WebhooksModule } from '../webhooks/webhooks.module.js';
import { BalanceWatchRepository } from './balance-watch.repository.js';
import { BalanceWatchService } from './balance-watch.service.js';
import { BudgetsController } from './budgets.controller.js';
import { BudgetsRepository } from './budgets.repository.js';
import { BudgetsService } from './budgets.service.js';
import { GrantsRepository } from './grants.repository.js';
import { GrantsService } from './grants.service.js';
import { SpendClock } from './spend-clock.js';
import { SpendControlsController } from './spend-controls.controller.js';
import { SpendRollupCheck } from './spend-rollup-check.js';
import { SpendRollupRepository } from './spend-rollup.repository.js';

@Module({
  imports: [LedgerModule, WebhooksModule],
  controllers: [BudgetsController, SpendControlsController],
  providers: [SpendClock, BudgetsRepository, BudgetsService, BalanceWatchRepository, BalanceWatchService, GrantsRepository, GrantsService, SpendRollupRepository, SpendRollupCheck],
  exports: [SpendClock, BudgetsService, BalanceWatchService, GrantsService, SpendRollupRepository],
})
export class SpendModule {}
