import { InjectQueue, Processor } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { SCHEDULERS, WORKER_OPTIONS } from '../../queue/jobs.js';
import { OnJob } from '../../queue/on-job.js';
import { JOB_WEBHOOK_RELAY, QUEUE_WEBHOOKS } from '../../queue/queue-names.js';
import { ScheduledJobProcessor } from '../../queue/scheduled-job-processor.js';
import { WebhookRelayService } from './webhook-relay.service.js';

/** The relay on a BullMQ job scheduler: one run at a time across all workers. */
@Processor(QUEUE_WEBHOOKS, WORKER_OPTIONS[QUEUE_WEBHOOKS])
export class WebhookRelayProcessor extends ScheduledJobProcessor {
  constructor(
    private readonly relay: WebhookRelayService,
    @InjectQueue(QUEUE_WEBHOOKS) queue: Queue,
  ) {
    super(queue, [SCHEDULERS.webhookRelay]);
  }

  @OnJob(JOB_WEBHOOK_RELAY)
  tick(): Promise<{ relayed: number; deliveries: number; dispatched: number }> {
    return this.relay.tick();
  }
}
