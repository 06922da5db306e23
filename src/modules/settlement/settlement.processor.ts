import { Processor, WorkerHost } from '@nestjs/bullmq';
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { JOB_SETTLEMENT_FINALITY, JOB_SETTLEMENT_RECONCILE, JOB_SETTLEMENT_RUN, JOB_SETTLEMENT_SEND, QUEUE_SETTLEMENT } from '../../queue/queue-names.js';
import { PayoutFinalityService } from './payout/payout-finality.service.js';
import { PayoutSenderService } from './payout/payout-sender.service.js';
import { ReconciliationService } from './payout/reconciliation.service.js';
import { settlementJobSchema } from './settlement.schemas.js';
import { SettlementService } from './statement/settlement.service.js';

/** One job at a time per worker: sends are serialized per wallet anyway (advisory lock). */
const SETTLEMENT_WORKER_CONCURRENCY = 1;
/** Sends wait for confirmations inside the job; the lock is renewed meanwhile. */
const SETTLEMENT_JOB_LOCK_MS = 60_000;

/** Thin: parse, call one service method, rethrow. */
@Processor(QUEUE_SETTLEMENT, { concurrency: SETTLEMENT_WORKER_CONCURRENCY, lockDuration: SETTLEMENT_JOB_LOCK_MS })
export class SettlementProcessor extends WorkerHost {
  constructor(
    private readonly settlements: SettlementService,
    private readonly sender: PayoutSenderService,
    private readonly reconciliation: ReconciliationService,
    private readonly finality: PayoutFinalityService,
  ) {
    super();
  }

  async process(job: Job, token?: string): Promise<unknown> {
    switch (job.name) {
      case JOB_SETTLEMENT_RUN:
        return this.settlements.runScheduled();
      case JOB_SETTLEMENT_SEND: {
        const { settlement_id: settlementId } = settlementJobSchema.parse(job.data);
        const outcome = await this.sender.sendSettlement(settlementId);
        if (outcome.kind === 'hold' || outcome.kind === 'busy') {
          // Not a failure: back to delayed without spending one of the job's attempts.
          await job.moveToDelayed(Date.now() + outcome.retryAfterMs, token);
          throw new DelayedError(outcome.kind === 'hold' ? outcome.reason : 'wallet busy');
        }
        return outcome;
      }
      case JOB_SETTLEMENT_RECONCILE: {
        const { settlement_id: settlementId } = settlementJobSchema.parse(job.data);
        return this.reconciliation.reconcileSettlement(settlementId);
      }
      case JOB_SETTLEMENT_FINALITY:
        return this.finality.runScheduled();
      default:
        throw new UnrecoverableError(`no handler for job ${job.name} on queue ${QUEUE_SETTLEMENT}`);
    }
  }
}
