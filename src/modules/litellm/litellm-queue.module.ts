import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUE_LITELLM } from '../../queue/queue-names.js';
import { LitellmBackfillProcessor } from './litellm-backfill.processor.js';
import { LitellmBackfillService } from './litellm-backfill.service.js';
import { LitellmSpendLogsRepository } from './litellm-spend-logs.repository.js';
import { LitellmModule } from './litellm.module.js';

/** Worker only: the LiteLLM spend-log backfill (LITELLM_DATABASE_URL). */
@Module({
  imports: [LitellmModule, BullModule.registerQueue({ name: QUEUE_LITELLM })],
  providers: [LitellmSpendLogsRepository, LitellmBackfillService, LitellmBackfillProcessor],
})
export class LitellmQueueModule {}
