import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../../config/index.js';
import { jobOptions } from '../../../queue/jobs.js';
import { JOB_SETTLEMENT_RECONCILE, JOB_SETTLEMENT_SEND, QUEUE_SETTLEMENT } from '../../../queue/queue-names.js';
import { createRedis, type RedisClient } from '../../../queue/redis-connection.js';
import { queueTelemetry } from '../../../common/tracing/tracing.js';

/**
 * Enqueues settlement jobs from either entry point (the API has no BullMQ root module). Redis only
 * carries the job: the settlement row in Postgres is the truth, and the worker's sweep re-enqueues
 * any sendable settlement whose job was lost.
 */
@Injectable()
export class SettlementQueueProducer implements OnModuleDestroy {
  private readonly logger = new Logger('SettlementQueue');
  private queue: Queue | null = null;
  private connection: RedisClient | null = null;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  private get(): Queue {
    if (!this.queue) {
      this.connection = createRedis(this.config, 'producer');
      this.connection.on('error', () => undefined); // surfaced by the failing add, and /health/ready
      this.queue = new Queue(QUEUE_SETTLEMENT, { connection: this.connection, prefix: this.config.QUEUE_PREFIX, telemetry: queueTelemetry() });
    }
    return this.queue;
  }

  /** Job id = settlement id: one send job per settlement. A failed or finished one is started again. */
  async ensureSendJob(settlementId: string): Promise<void> {
    const queue = this.get();
    const existing = await queue.getJob(settlementId);
    if (existing) {
      const state = await existing.getState();
      if (state === 'failed') return void (await existing.retry('failed'));
      if (state !== 'completed') return;
      await existing.remove();
    }
    const payload = { settlement_id: settlementId };
    await queue.add(JOB_SETTLEMENT_SEND, payload, jobOptions(JOB_SETTLEMENT_SEND, payload));
  }

  /**
   * The periodic repair (the finality job): a send job only where none exists at all, as when the
   * API died between committing an approval and enqueueing its send. A finished or failed job is
   * left to the worker's start (ensureSendJob), so a settlement awaiting finality is not sent again
   * every interval.
   */
  async addSendJobIfMissing(settlementId: string): Promise<boolean> {
    const queue = this.get();
    if (await queue.getJob(settlementId)) return false;
    const payload = { settlement_id: settlementId };
    await queue.add(JOB_SETTLEMENT_SEND, payload, jobOptions(JOB_SETTLEMENT_SEND, payload));
    return true;
  }

  /** Best effort after a commit: a lost enqueue is repaired by the finality job (addSendJobIfMissing) within 15 s. */
  async ensureSendJobQuietly(settlementId: string): Promise<void> {
    await this.ensureSendJob(settlementId).catch((error: Error) =>
      this.logger.warn(`could not enqueue send of settlement ${settlementId} (the finality job will within 15 s): ${error.message}`),
    );
  }

  async enqueueReconcile(settlementId: string): Promise<void> {
    const payload = { settlement_id: settlementId };
    await this.get()
      .add(JOB_SETTLEMENT_RECONCILE, payload, jobOptions(JOB_SETTLEMENT_RECONCILE, payload))
      .catch((error: Error) => this.logger.warn(`could not enqueue reconciliation of ${settlementId}: ${error.message}`));
  }

  async onModuleDestroy(): Promise<void> {
    await this.queue?.close().catch(() => undefined);
    this.connection?.disconnect();
  }
}
