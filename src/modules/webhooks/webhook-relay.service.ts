import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { jobOptions } from '../../queue/jobs.js';
import { JOB_WEBHOOK_DISPATCH, QUEUE_WEBHOOK_DISPATCH } from '../../queue/queue-names.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';

/** Endpoints enqueued per relay tick at most. */
const DISPATCH_JOBS_PER_TICK_MAX = 1_000;
/** Outbox events fanned out per relay statement. */
const RELAY_BATCH_EVENTS_MAX = 500;
/** Relay statements per tick at most (then the next tick goes on). */
const RELAY_BATCHES_PER_TICK_MAX = 20;

/**
 * The outbox -> queue relay, run by the worker on a short schedule: fans committed outbox events
 * out into deliveries, then gives every endpoint with a delivery due (new, or a retry whose
 * backoff is over) a dispatch job. Postgres holds the truth; a lost job is re-created next tick.
 */
@Injectable()
export class WebhookRelayService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveriesRepository,
    @InjectQueue(QUEUE_WEBHOOK_DISPATCH) private readonly dispatchQueue: Queue,
  ) {}

  async tick(): Promise<{ relayed: number; deliveries: number; dispatched: number }> {
    let relayed = 0;
    let deliveries = 0;
    for (let batch = 0; batch < RELAY_BATCHES_PER_TICK_MAX; batch += 1) {
      const result = await this.deliveries.relay(RELAY_BATCH_EVENTS_MAX, this.config.WEBHOOK_RETRY_HOURS);
      relayed += result.relayed;
      deliveries += result.deliveries;
      if (result.relayed < RELAY_BATCH_EVENTS_MAX) break;
    }
    const due = await this.deliveries.endpointsWithDueWork(DISPATCH_JOBS_PER_TICK_MAX);
    if (due.length > 0) {
      await this.dispatchQueue.addBulk(
        due.map((endpointId) => {
          const data = { endpoint_id: endpointId };
          return { name: JOB_WEBHOOK_DISPATCH, data, opts: jobOptions(JOB_WEBHOOK_DISPATCH, data) };
        }),
      );
    }
    return { relayed, deliveries, dispatched: due.length };
  }
}
