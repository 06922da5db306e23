import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUE_SPEND } from '../../queue/queue-names.js';
import { SpendModule } from './spend.module.js';
import { SpendSweepProcessor } from './spend-sweep.processor.js';

/** Worker only: the spend sweep schedule. */
@Module({ imports: [SpendModule, BullModule.registerQueue({ name: QUEUE_SPEND })], providers: [SpendSweepProcessor] })
export class SpendQueueModule {}
