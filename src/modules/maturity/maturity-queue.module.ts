import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUE_EARNINGS } from '../../queue/queue-names.js';
import { MaturityModule } from './maturity.module.js';
import { MaturityProcessor } from './maturity.processor.js';

/** Worker only: the earnings maturity schedule. */
@Module({ imports: [MaturityModule, BullModule.registerQueue({ name: QUEUE_EARNINGS })], providers: [MaturityProcessor] })
export class MaturityQueueModule {}
