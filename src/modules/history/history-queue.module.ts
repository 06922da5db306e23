import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUE_HISTORY } from '../../queue/queue-names.js';
import { LedgerModule } from '../ledger/ledger.module.js';
import { UsageUserRollupRepository } from '../usage/usage-user-rollup.repository.js';
import { HistoryProcessor } from './history.processor.js';
import { UsagePartitionsRepository } from './usage-partitions.repository.js';

/** Worker only: usage_events partitions ahead, ledger checkpoints and the usage rollup by user and key, on schedules. */
@Module({
  imports: [LedgerModule, BullModule.registerQueue({ name: QUEUE_HISTORY })],
  providers: [UsagePartitionsRepository, UsageUserRollupRepository, HistoryProcessor],
})
export class HistoryQueueModule {}
