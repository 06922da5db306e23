import { BullModule } from '@nestjs/bullmq';
import { Module } from '@nestjs/common';
import { QUEUE_WEBHOOK_DISPATCH, QUEUE_WEBHOOKS } from '../../queue/queue-names.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookDispatchProcessor } from './webhook-dispatch.processor.js';
import { WebhookDispatchService } from './webhook-dispatch.service.js';
import { WebhookRelayProcessor } from './webhook-relay.processor.js';
import { WebhookRelayService } from './webhook-relay.service.js';
import { WebhooksModule } from './webhooks.module.js';

/** Worker only: the outbox relay on a schedule and the per-endpoint dispatch jobs. */
@Module({
  imports: [WebhooksModule, BullModule.registerQueue({ name: QUEUE_WEBHOOKS }, { name: QUEUE_WEBHOOK_DISPATCH })],
  providers: [WebhookDeliveriesRepository, WebhookRelayService, WebhookRelayProcessor, WebhookDispatchService, WebhookDispatchProcessor],
})
export class WebhooksQueueModule {}
