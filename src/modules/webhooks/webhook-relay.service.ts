import { InjectQueue } from '@nestjs/bullmq';
import { Inject, Injectable } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { JOB_WEBHOOK_DISPATCH, QUEUE_WEBHOOK_DISPATCH } from '../../queue/queue-names.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { DISPATCH_JOBS_PER_TICK_MAX, dispatchJobOptions, RELAY_BATCH_EVENTS_MAX, RELAY_BATCHES_PER_TICK_MAX } from './webhook-jobs.js';

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
      await this.dispatchQueue.addBulk(due.map((endpointId) => ({ name: JOB_WEBHOOK_DISPATCH, data: { endpoint_id: endpointId }, opts: dispatchJobOptions(endpointId) })));
    }
    return { relayed, deliveries, dispatched: due.length };
  }
}
