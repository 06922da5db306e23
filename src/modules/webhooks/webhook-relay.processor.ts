import { InjectQueue, Processor, WorkerHost } from '@nestjs/bullmq';
import type { OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { JOB_WEBHOOK_RELAY, QUEUE_WEBHOOKS, WEBHOOK_RELAY_EVERY_MS } from '../../queue/queue-names.js';
import { WebhookRelayService } from './webhook-relay.service.js';

/** The relay on a BullMQ job scheduler: one run at a time across all workers. */
@Processor(QUEUE_WEBHOOKS)
export class WebhookRelayProcessor extends WorkerHost implements OnApplicationBootstrap {
  constructor(
    private readonly relay: WebhookRelayService,
    @InjectQueue(QUEUE_WEBHOOKS) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.queue.upsertJobScheduler(JOB_WEBHOOK_RELAY, { every: WEBHOOK_RELAY_EVERY_MS }, { name: JOB_WEBHOOK_RELAY, opts: { removeOnComplete: true, removeOnFail: 100 } });
  }

  process(): Promise<{ relayed: number; deliveries: number; dispatched: number }> {
    return this.relay.tick();
  }
}
