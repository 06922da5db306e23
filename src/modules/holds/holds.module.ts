import { Module } from '@nestjs/common';
import { LedgerModule } from '../ledger/ledger.module.js';
import { HoldsController } from './holds.controller.js';
import { HoldsRepository } from './holds.repository.js';
import { HoldsService } from './holds.service.js';

@Module({
  imports: [LedgerModule],
  controllers: [HoldsController],
  providers: [HoldsRepository, HoldsService],
  exports: [HoldsService],
})
export class HoldsModule {}
