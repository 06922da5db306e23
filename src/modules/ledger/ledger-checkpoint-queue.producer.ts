import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { queueTelemetry } from '../../common/tracing/tracing.js';
import { jobOptions } from '../../queue/jobs.js';
import { JOB_LEDGER_CHECKPOINT, QUEUE_HISTORY } from '../../queue/queue-names.js';
import { createRedis, type RedisClient } from '../../queue/redis-connection.js';

/**
 * Job id of the advance a check asks for: BullMQ drops a second add while one waits or runs, so
 * checks in a row ask the worker once. Removed as it finishes, so the next request is a new job.
 */
export const LEDGER_CHECKPOINT_ADVANCE_JOB_ID = 'ledger-checkpoint-advance';
/** How long a check waits for the request to reach Redis before it answers anyway. */
const ADVANCE_REQUEST_WAIT_MS = 1_000;

/**
 * Asks the worker's ledger-checkpoint job (HistoryProcessor) to move the checkpoint now, instead of
 * at its next 10-minute run: a GET /v1/admin/ledger/check that read many entries after it does not
 * write it itself (issue 35: the write took the journal's SHARE lock and read the new entries twice
 * more inside the request). Best effort: the scheduled job moves it anyway.
 */
@Injectable()
export class LedgerCheckpointQueueProducer implements OnModuleDestroy {
  private readonly logger = new Logger('LedgerCheckpointQueue');
  private queue: Queue | null = null;
  private connection: RedisClient | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private get(): Queue {
    if (!this.queue) {
      this.connection = createRedis(this.config, 'producer');
      this.connection.on('error', () => undefined); // surfaced by the failing add, and /health/ready
      this.queue = new Queue(QUEUE_HISTORY, { connection: this.connection, prefix: this.config.QUEUE_PREFIX, telemetry: queueTelemetry() });
    }
    return this.queue;
  }

  /** Waits ADVANCE_REQUEST_WAIT_MS at most: a check answers even while Redis does not (the add goes on). */
  async requestAdvance(): Promise<void> {
    const added = this.get()
      .add(JOB_LEDGER_CHECKPOINT, {}, { ...jobOptions(JOB_LEDGER_CHECKPOINT, {}), jobId: LEDGER_CHECKPOINT_ADVANCE_JOB_ID, removeOnComplete: true, removeOnFail: true })
      .then(
        () => undefined,
        (error: Error) => this.logger.warn(`could not ask the worker to move the ledger checkpoint (its schedule will): ${error.message}`),
      );
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ADVANCE_REQUEST_WAIT_MS);
      timer.unref();
    });
    await Promise.race([added, waited]);
    clearTimeout(timer);
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue?.close().catch(() => undefined);
    this.connection?.disconnect();
  }
}
