import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../../config/index.js';
import { jobOptions } from '../../../queue/jobs.js';
import { JOB_SETTLEMENT_RECONCILE, JOB_SETTLEMENT_SEND, QUEUE_SETTLEMENT } from '../../../queue/queue-names.js';
import { createRedis, type RedisClient } from '../../../queue/redis-connection.js';

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
      this.queue = new Queue(QUEUE_SETTLEMENT, { connection: this.connection, prefix: this.config.QUEUE_PREFIX });
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

  /** Best effort after a commit: a lost enqueue is repaired by the worker's sweep. */
  async ensureSendJobQuietly(settlementId: string): Promise<void> {
    await this.ensureSendJob(settlementId).catch((error: Error) =>
      this.logger.warn(`could not enqueue send of settlement ${settlementId} (the worker sweep will): ${error.message}`),
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
