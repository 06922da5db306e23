import { InjectQueue, Processor } from '@nestjs/bullmq';
import { Inject, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { SCHEDULERS, scheduledJob, WORKER_OPTIONS, type JobPayload } from '../../queue/jobs.js';
import { JobProcessor, OnJob } from '../../queue/on-job.js';
import { JOB_USAGE_AUDIT_COUNT, JOB_USAGE_AUDIT_RUN, QUEUE_USAGE_AUDIT } from '../../queue/queue-names.js';
import { UsageAuditService } from './usage-audit.service.js';

/** Counts audited streams' tokens, and runs the verdicts every USAGE_AUDIT_INTERVAL_SECONDS. */
@Processor(QUEUE_USAGE_AUDIT, WORKER_OPTIONS[QUEUE_USAGE_AUDIT])
export class UsageAuditProcessor extends JobProcessor implements OnApplicationBootstrap {
  constructor(
    private readonly audit: UsageAuditService,
    @InjectQueue(QUEUE_USAGE_AUDIT) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    const { id, job } = SCHEDULERS.usageAudit;
    await this.queue.upsertJobScheduler(id, { every: this.config.USAGE_AUDIT_INTERVAL_SECONDS * 1000 }, scheduledJob(job));
  }

  @OnJob(JOB_USAGE_AUDIT_COUNT)
  async count(payload: JobPayload<typeof JOB_USAGE_AUDIT_COUNT>): Promise<{ recorded: number }> {
    return { recorded: await this.audit.recordSamples(payload.samples) };
  }

  @OnJob(JOB_USAGE_AUDIT_RUN)
  async run(): Promise<{ groups: number; flagged: number; newly_flagged: number }> {
    const result = await this.audit.run();
    return { groups: result.groups, flagged: result.flagged, newly_flagged: result.newlyFlagged };
  }
}
