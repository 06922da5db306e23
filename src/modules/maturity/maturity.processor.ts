import { InjectQueue, Processor } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { SCHEDULERS, WORKER_OPTIONS } from '../../queue/jobs.js';
import { OnJob } from '../../queue/on-job.js';
import { JOB_EARNINGS_MATURE, QUEUE_EARNINGS } from '../../queue/queue-names.js';
import { ScheduledJobProcessor } from '../../queue/scheduled-job-processor.js';
import { MaturityService } from './maturity.service.js';

/** Moves matured earnings to payable on a schedule (a BullMQ job scheduler: one run at a time). */
@Processor(QUEUE_EARNINGS, WORKER_OPTIONS[QUEUE_EARNINGS])
export class MaturityProcessor extends ScheduledJobProcessor {
  constructor(
    private readonly maturity: MaturityService,
    @InjectQueue(QUEUE_EARNINGS) queue: Queue,
  ) {
    super(queue, [SCHEDULERS.earningsMaturity]);
  }

  @OnJob(JOB_EARNINGS_MATURE)
  async mature(): Promise<{ matured_through: string | null; contributors: number; matured_atto: string }> {
    const run = await this.maturity.matureDue();
    return { matured_through: run.maturedThroughDay, contributors: run.contributors, matured_atto: run.maturedAtto.toString() };
  }
}
