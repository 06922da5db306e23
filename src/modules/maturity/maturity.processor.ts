import { InjectQueue, Processor } from '@nestjs/bullmq';
import type { OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { SCHEDULERS, scheduledJob, WORKER_OPTIONS } from '../../queue/jobs.js';
import { JobProcessor, OnJob } from '../../queue/on-job.js';
import { JOB_EARNINGS_MATURE, QUEUE_EARNINGS } from '../../queue/queue-names.js';
import { MaturityService } from './maturity.service.js';

/** Moves matured earnings to payable on a schedule (a BullMQ job scheduler: one run at a time). */
@Processor(QUEUE_EARNINGS, WORKER_OPTIONS[QUEUE_EARNINGS])
export class MaturityProcessor extends JobProcessor implements OnApplicationBootstrap {
  constructor(
    private readonly maturity: MaturityService,
    @InjectQueue(QUEUE_EARNINGS) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    const { id, job, repeat } = SCHEDULERS.earningsMaturity;
    await this.queue.upsertJobScheduler(id, repeat, scheduledJob(job));
  }

  @OnJob(JOB_EARNINGS_MATURE)
  async mature(): Promise<{ matured_through: string | null; contributors: number; matured_atto: string }> {
    const run = await this.maturity.matureDue();
    return { matured_through: run.maturedThroughDay, contributors: run.contributors, matured_atto: run.maturedAtto.toString() };
  }
}
