import { InjectQueue, Processor } from '@nestjs/bullmq';
import { Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { SCHEDULERS, scheduledJob, USAGE_PARTITIONS_AHEAD_MONTHS, WORKER_OPTIONS } from '../../queue/jobs.js';
import { JobProcessor, OnJob } from '../../queue/on-job.js';
import { JOB_LEDGER_CHECKPOINT, JOB_USAGE_PARTITIONS, QUEUE_HISTORY } from '../../queue/queue-names.js';
import { LedgerCheckService } from '../ledger/ledger-check.service.js';
import { UsagePartitionsRepository } from './usage-partitions.repository.js';

/** Scheduled history upkeep: partitions created ahead, verified ledger checkpoints. */
@Processor(QUEUE_HISTORY, WORKER_OPTIONS[QUEUE_HISTORY])
export class HistoryProcessor extends JobProcessor implements OnApplicationBootstrap {
  private readonly logger = new Logger('History');

  constructor(
    private readonly partitions: UsagePartitionsRepository,
    private readonly checks: LedgerCheckService,
    @InjectQueue(QUEUE_HISTORY) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    for (const scheduler of [SCHEDULERS.usagePartitions, SCHEDULERS.ledgerCheckpoint]) {
      // A scheduler with `every` starts its first job at once: partitions exist before the month turns.
      await this.queue.upsertJobScheduler(scheduler.id, scheduler.repeat, scheduledJob(scheduler.job));
    }
  }

  @OnJob(JOB_USAGE_PARTITIONS)
  async ensurePartitions(): Promise<{ created: string[] }> {
    const created = await this.partitions.ensureAhead(new Date(), USAGE_PARTITIONS_AHEAD_MONTHS);
    if (created.length > 0) this.logger.log(`usage_events partitions created: ${created.join(', ')}`);
    return { created };
  }

  @OnJob(JOB_LEDGER_CHECKPOINT)
  async checkpoint(): Promise<{ written: boolean; through_entry_id: string | null }> {
    const written = await this.checks.writeCheckpoint();
    return { written: written !== null, through_entry_id: written?.throughEntryId.toString() ?? null };
  }
}
