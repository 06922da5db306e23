import { Processor } from '@nestjs/bullmq';
import { DelayedError, type Job } from 'bullmq';
import { WORKER_OPTIONS, type JobPayload } from '../../queue/jobs.js';
import { JobProcessor, OnJob } from '../../queue/on-job.js';
import { JOB_SETTLEMENT_FINALITY, JOB_SETTLEMENT_RECONCILE, JOB_SETTLEMENT_RUN, JOB_SETTLEMENT_SEND, QUEUE_SETTLEMENT } from '../../queue/queue-names.js';
import { PayoutFinalityService } from './payout/payout-finality.service.js';
import { PayoutSenderService } from './payout/payout-sender.service.js';
import { ReconciliationService } from './payout/reconciliation.service.js';
import { SettlementService } from './creation/settlement.service.js';

/** Thin: one service method per job, errors rethrown (a send that fails is retried by BullMQ). */
@Processor(QUEUE_SETTLEMENT, WORKER_OPTIONS[QUEUE_SETTLEMENT])
export class SettlementProcessor extends JobProcessor {
  constructor(
    private readonly settlements: SettlementService,
    private readonly sender: PayoutSenderService,
    private readonly reconciliation: ReconciliationService,
    private readonly finality: PayoutFinalityService,
  ) {
    super();
  }

  @OnJob(JOB_SETTLEMENT_RUN)
  run(): Promise<unknown> {
    return this.settlements.runScheduled();
  }

  @OnJob(JOB_SETTLEMENT_SEND)
  async send(payload: JobPayload<typeof JOB_SETTLEMENT_SEND>, job: Job, token?: string): Promise<unknown> {
    const outcome = await this.sender.sendSettlement(payload.settlement_id);
    if (outcome.kind === 'hold' || outcome.kind === 'busy') {
      // Not a failure: back to delayed without spending one of the job's attempts.
      await job.moveToDelayed(Date.now() + outcome.retryAfterMs, token);
      throw new DelayedError(outcome.kind === 'hold' ? outcome.reason : 'wallet busy');
    }
    return outcome;
  }

  @OnJob(JOB_SETTLEMENT_RECONCILE)
  reconcile(payload: JobPayload<typeof JOB_SETTLEMENT_RECONCILE>): Promise<unknown> {
    return this.reconciliation.reconcileSettlement(payload.settlement_id);
  }

  /** Also repairs a send job lost between an approval's commit and its enqueue (API killed there). */
  @OnJob(JOB_SETTLEMENT_FINALITY)
  async recheckFinality(): Promise<unknown> {
    const finality = await this.finality.runScheduled();
    const sendJobsAdded = await this.settlements.addMissingSendJobs();
    return { finality, send_jobs_added: sendJobsAdded };
  }
}
