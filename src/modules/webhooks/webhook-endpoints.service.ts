import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { DomainError, notFound } from '../../common/errors/index.js';
import { generateSigningSecret } from '../../common/signing/standard-webhooks.js';
import { DatabaseService } from '../../database/database.service.js';
import { AuditService } from '../audit/audit.service.js';
import type { Principal } from '../../common/auth/auth.types.js';
import { checkHost } from './webhook-address-resolver.js';
import { WebhookDeliveriesRepository, type DeliveryRecord } from './webhook-deliveries.repository.js';
import { WebhookEndpointsRepository, type EndpointScope, type WebhookEndpointRecord } from './webhook-endpoints.repository.js';
import { contributorMaySubscribe, type WebhookEventType } from './webhook-event-types.js';
import { checkWebhookUrl } from './webhook-url-policy.js';

/** Live endpoints per deployment and per contributor: a limit on everything. */
export const WEBHOOK_ENDPOINTS_MAX = 100;
export const WEBHOOK_ENDPOINTS_PER_CONTRIBUTOR_MAX = 5;
/** Attempts shown per delivery in the delivery log (the newest). */
export const ATTEMPTS_SHOWN_PER_DELIVERY_MAX = 20;

export interface CreateEndpointInput {
  url: string;
  events: WebhookEventType[];
  description?: string;
  /** Set: the endpoint belongs to that contributor and receives only its payout and settlement events. */
  contributorId: string | null;
}

/** Endpoint management: registration (URL checks, the secret), listing, deletion, the delivery log. */
@Injectable()
export class WebhookEndpointsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly db: DatabaseService,
    private readonly endpoints: WebhookEndpointsRepository,
    private readonly deliveries: WebhookDeliveriesRepository,
    private readonly audit: AuditService,
  ) {}

  async create(actor: Principal, input: CreateEndpointInput): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
    if (input.contributorId !== null) {
      const refused = input.events.filter((type) => !contributorMaySubscribe(type));
      if (refused.length > 0) {
        throw new DomainError('validation_failed', 'a contributor endpoint receives only payout.*, settlement.* and contributor.payout_address_changed events', [{ field: 'events', message: `not allowed: ${refused.join(', ')}` }]);
      }
      if (!(await this.endpoints.contributorExists(input.contributorId))) throw new DomainError('unknown_contributor', `contributor ${input.contributorId} is not registered`);
    }
    await this.assertUrlAllowed(input.url);
    const secret = generateSigningSecret();
    const id = randomUUID();
    const endpoint = await this.db.transaction(async (client) => {
      // Serializes concurrent registrations so the limits below hold.
      await client.query(`SELECT pg_advisory_xact_lock(hashtext('webhook_endpoints'))`);
      await this.assertBelowLimits(client, input.contributorId);
      const created = await this.endpoints.insert(client, { id, url: input.url, eventTypes: input.events, description: input.description ?? null, contributorId: input.contributorId, secret, createdBy: actor.keyId });
      await this.audit.recordWithSql(client, actor, { action: 'webhook.create', target: `webhook:${id}`, after: { url: input.url, events: input.events, contributor_id: input.contributorId } });
      return created;
    });
    return { endpoint, secret };
  }

  list(scope: EndpointScope): Promise<WebhookEndpointRecord[]> {
    return this.endpoints.list(scope, WEBHOOK_ENDPOINTS_MAX);
  }

  async get(id: string, scope: EndpointScope): Promise<WebhookEndpointRecord> {
    const endpoint = await this.endpoints.find(id, scope);
    if (!endpoint) throw notFound('webhook');
    return endpoint;
  }

  async remove(actor: Principal, id: string, scope: EndpointScope): Promise<void> {
    await this.db.transaction(async (client) => {
      const existing = await this.endpoints.find(id, scope, client);
      if (!existing) throw notFound('webhook');
      await this.endpoints.markDeleted(client, id);
      await this.audit.recordWithSql(client, actor, { action: 'webhook.delete', target: `webhook:${id}`, before: { url: existing.url, events: existing.eventTypes } });
    });
  }

  /** A disabled endpoint back in service; what waited meanwhile is sent (in order). */
  async enable(actor: Principal, id: string, scope: EndpointScope): Promise<WebhookEndpointRecord> {
    return this.db.transaction(async (client) => {
      const existing = await this.endpoints.find(id, scope, client);
      if (!existing) throw notFound('webhook');
      if (existing.status === 'active') return existing;
      await this.endpoints.enable(client, id, this.config.WEBHOOK_RETRY_HOURS);
      await this.audit.recordWithSql(client, actor, { action: 'webhook.enable', target: `webhook:${id}`, before: { status: existing.status, disabled_reason: existing.disabledReason }, after: { status: 'active' } });
      return (await this.endpoints.find(id, scope, client))!;
    });
  }

  async deliveriesOf(id: string, scope: EndpointScope, limit: number, beforeId: bigint | null): Promise<DeliveryRecord[]> {
    await this.get(id, scope);
    return this.deliveries.list(id, limit, beforeId, ATTEMPTS_SHOWN_PER_DELIVERY_MAX);
  }

  /** Sends a delivery again (failed, or even delivered), with the same webhook-id. */
  async retry(actor: Principal, id: string, deliveryId: bigint, scope: EndpointScope): Promise<DeliveryRecord> {
    await this.get(id, scope);
    if (!(await this.deliveries.retry(id, deliveryId, this.config.WEBHOOK_RETRY_HOURS))) throw notFound('delivery');
    await this.db.transaction((client) => this.audit.recordWithSql(client, actor, { action: 'webhook.retry', target: `webhook:${id}`, after: { delivery_id: deliveryId.toString() } }));
    return (await this.deliveries.find(id, deliveryId, ATTEMPTS_SHOWN_PER_DELIVERY_MAX))!;
  }

  private async assertUrlAllowed(text: string): Promise<void> {
    const url = checkWebhookUrl(text, { httpsOnly: this.config.NODE_ENV === 'production' });
    if (!url.ok) throw new DomainError('validation_failed', 'request validation failed', [{ field: 'url', message: url.reason }]);
    const host = await checkHost(url.host, { allowPrivate: this.config.WEBHOOK_ALLOW_PRIVATE, ipLiteral: url.ipLiteral });
    if (!host.ok) throw new DomainError('webhook_url_refused', `webhook URL refused: ${host.reason}`, { field: 'url', reason: host.reason });
  }

  private async assertBelowLimits(client: Parameters<WebhookEndpointsRepository['countLive']>[0], contributorId: string | null): Promise<void> {
    if ((await this.endpoints.countLive(client, null)) >= WEBHOOK_ENDPOINTS_MAX) {
      throw new DomainError('conflict', `at most ${WEBHOOK_ENDPOINTS_MAX} webhook endpoints; delete one first`);
    }
    if (contributorId !== null && (await this.endpoints.countLive(client, contributorId)) >= WEBHOOK_ENDPOINTS_PER_CONTRIBUTOR_MAX) {
      throw new DomainError('conflict', `at most ${WEBHOOK_ENDPOINTS_PER_CONTRIBUTOR_MAX} webhook endpoints per contributor; delete one first`);
    }
  }
}
