import { InjectQueue, Processor } from '@nestjs/bullmq';
import { Logger } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { SCHEDULERS, USAGE_PARTITIONS_AHEAD_MONTHS, WORKER_OPTIONS } from '../../queue/jobs.js';
import { OnJob } from '../../queue/on-job.js';
import { JOB_LEDGER_CHECKPOINT, JOB_LEDGER_FULL_PROOF, JOB_USAGE_PARTITIONS, JOB_USAGE_USER_ROLLUP, QUEUE_HISTORY } from '../../queue/queue-names.js';
import { ScheduledJobProcessor } from '../../queue/scheduled-job-processor.js';
import { LedgerCheckService } from '../ledger/ledger-check.service.js';
import { UsageUserRollupRepository } from '../usage/usage-user-rollup.repository.js';
import { UsagePartitionsRepository } from './usage-partitions.repository.js';

/** Scheduled history upkeep: partitions created ahead, verified ledger checkpoints, the daily proof of the whole journal, the usage rollup by user and key. */
@Processor(QUEUE_HISTORY, WORKER_OPTIONS[QUEUE_HISTORY])
export class HistoryProcessor extends ScheduledJobProcessor {
  private readonly logger = new Logger('History');

  constructor(
    private readonly partitions: UsagePartitionsRepository,
    private readonly checks: LedgerCheckService,
    private readonly userRollup: UsageUserRollupRepository,
    @InjectQueue(QUEUE_HISTORY) queue: Queue,
  ) {
    // The partitions scheduler's first job runs at boot: partitions exist before the month turns.
    super(queue, [SCHEDULERS.usagePartitions, SCHEDULERS.ledgerCheckpoint, SCHEDULERS.ledgerFullProof, SCHEDULERS.usageUserRollup]);
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

  @OnJob(JOB_LEDGER_FULL_PROOF)
  async proveJournal(): Promise<{ ok: boolean; journal_entries: string }> {
    const report = await this.checks.proveJournalInFull();
    if (!report.ok) this.logger.error(`the whole journal does not prove: ${report.mismatchedAccounts.length} accounts differ, ${report.unbalancedEntries} entries unbalanced`);
    return { ok: report.ok, journal_entries: report.journalEntries.toString() };
  }

  @OnJob(JOB_USAGE_USER_ROLLUP)
  async advanceUserRollup(): Promise<{ through_event_id: string; events_read: string; days_recomputed: number }> {
    const moved = await this.userRollup.advance();
    return { through_event_id: moved.throughEventId.toString(), events_read: (moved.throughEventId - moved.fromEventId).toString(), days_recomputed: moved.daysRecomputed };
  }
}
