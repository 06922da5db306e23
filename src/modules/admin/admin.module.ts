import { Module } from '@nestjs/common';
import { ContributorsModule } from '../contributors/contributors.module.js';
import { LedgerModule } from '../ledger/ledger.module.js';
import { SpendModule } from '../spend/spend.module.js';
import { SettlementModule } from '../settlement/settlement.module.js';
import { UsageModule } from '../usage/usage.module.js';
import { AdminController } from './admin.controller.js';
import { AdminRepository } from './admin.repository.js';
import { AdminService } from './admin.service.js';
import { ContributorAdjustmentsRepository } from './contributor-adjustments.repository.js';
import { ContributorAdjustmentsService } from './contributor-adjustments.service.js';

/** Admin dashboard reads (overview, contributor list, audit log) and contributor adjustments. */
@Module({
  imports: [LedgerModule, ContributorsModule, SettlementModule, SpendModule, UsageModule],
  controllers: [AdminController],
  providers: [AdminRepository, AdminService, ContributorAdjustmentsRepository, ContributorAdjustmentsService],
})
export class AdminModule {}
