import { InjectQueue, Processor } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { SCHEDULERS, scheduledJob, WORKER_OPTIONS } from '../../queue/jobs.js';
import { JobProcessor, OnJob } from '../../queue/on-job.js';
import { JOB_LITELLM_BACKFILL, QUEUE_LITELLM } from '../../queue/queue-names.js';
import { LitellmBackfillService } from './litellm-backfill.service.js';

/** The LiteLLM spend-log backfill on a schedule (any worker, one run at a time). */
@Processor(QUEUE_LITELLM, WORKER_OPTIONS[QUEUE_LITELLM])
export class LitellmBackfillProcessor extends JobProcessor implements OnApplicationBootstrap {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly backfill: LitellmBackfillService,
    @InjectQueue(QUEUE_LITELLM) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    const { id, job } = SCHEDULERS.litellmBackfill;
    // Without LiteLLM's database there is nothing to pull: a scheduler left by an earlier
    // configuration is removed.
    if (!this.backfill.enabled) {
      await this.queue.removeJobScheduler(id);
      return;
    }
    await this.queue.upsertJobScheduler(id, { every: this.config.LITELLM_BACKFILL_SECONDS * 1000 }, scheduledJob(job));
  }

  @OnJob(JOB_LITELLM_BACKFILL)
  async run() {
    if (!this.backfill.enabled) return { read: 0, ingested: 0, checkpoint: null, billed_parked: 0 };
    return this.backfill.run();
  }
}
