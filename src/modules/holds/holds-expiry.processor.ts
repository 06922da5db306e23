import { InjectQueue, Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { SCHEDULERS, WORKER_OPTIONS } from '../../queue/jobs.js';
import { OnJob } from '../../queue/on-job.js';
import { JOB_EXPIRE_HOLDS, QUEUE_HOLDS } from '../../queue/queue-names.js';
import { ScheduledJobProcessor } from '../../queue/scheduled-job-processor.js';
import { HoldsService } from './holds.service.js';

/** Releases expired holds on a schedule (a BullMQ job scheduler: one run at a time, any worker). */
@Processor(QUEUE_HOLDS, WORKER_OPTIONS[QUEUE_HOLDS])
export class HoldsExpiryProcessor extends ScheduledJobProcessor {
  private readonly logger = new Logger('HoldsExpiry');

  constructor(
    private readonly holds: HoldsService,
    @InjectQueue(QUEUE_HOLDS) queue: Queue,
  ) {
    super(queue, [SCHEDULERS.holdExpiry]);
  }

  @OnJob(JOB_EXPIRE_HOLDS)
  async expire(): Promise<{ expired: number }> {
    const expired = await this.holds.expireDue();
    if (expired > 0) this.logger.log(`expired ${expired} holds`);
    return { expired };
  }
}
