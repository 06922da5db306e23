import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUE_HISTORY } from '../../queue/queue-names.js';
import { LedgerModule } from '../ledger/ledger.module.js';
import { HistoryProcessor } from './history.processor.js';
import { UsagePartitionsRepository } from './usage-partitions.repository.js';

/** Worker only: usage_events partitions ahead and ledger checkpoints, on schedules. */
@Module({
  imports: [LedgerModule, BullModule.registerQueue({ name: QUEUE_HISTORY })],
  providers: [UsagePartitionsRepository, HistoryProcessor],
})
export class HistoryQueueModule {}
