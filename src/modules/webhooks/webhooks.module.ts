import { Module } from '@nestjs/common';
import { ContributorWebhooksController } from './contributor-webhooks.controller.js';
import { WebhookDeliveriesRepository } from './webhook-deliveries.repository.js';
import { WebhookEndpointsRepository } from './webhook-endpoints.repository.js';
import { WebhookEndpointsService } from './webhook-endpoints.service.js';
import { WebhookOutboxRepository } from './webhook-outbox.repository.js';
import { WebhookOutbox } from './webhook-outbox.service.js';
import { WebhooksController } from './webhooks.controller.js';

/**
 * Webhook endpoints (API) and the outbox every other module writes to. A leaf: it depends on no
 * domain module, so settlement, holds, usage and the ledger can all import it.
 */
@Module({
  controllers: [WebhooksController, ContributorWebhooksController],
  providers: [WebhookOutboxRepository, WebhookOutbox, WebhookEndpointsRepository, WebhookDeliveriesRepository, WebhookEndpointsService],
  exports: [WebhookOutbox],
})
export class WebhooksModule {}
