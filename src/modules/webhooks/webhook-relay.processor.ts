import { InjectQueue, Processor } from '@nestjs/bullmq';
import type { OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bullmq';
import { SCHEDULERS, scheduledJob, WORKER_OPTIONS } from '../../queue/jobs.js';
import { JobProcessor, OnJob } from '../../queue/on-job.js';
import { JOB_WEBHOOK_RELAY, QUEUE_WEBHOOKS } from '../../queue/queue-names.js';
import { WebhookRelayService } from './webhook-relay.service.js';

/** The relay on a BullMQ job scheduler: one run at a time across all workers. */
@Processor(QUEUE_WEBHOOKS, WORKER_OPTIONS[QUEUE_WEBHOOKS])
export class WebhookRelayProcessor extends JobProcessor implements OnApplicationBootstrap {
  constructor(
    private readonly relay: WebhookRelayService,
    @InjectQueue(QUEUE_WEBHOOKS) private readonly queue: Queue,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    const { id, job, repeat } = SCHEDULERS.webhookRelay;
    await this.queue.upsertJobScheduler(id, repeat, scheduledJob(job));
  }

  @OnJob(JOB_WEBHOOK_RELAY)
  tick(): Promise<{ relayed: number; deliveries: number; dispatched: number }> {
    return this.relay.tick();
  }
}
