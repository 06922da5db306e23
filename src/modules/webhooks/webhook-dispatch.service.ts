import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';
import { WebhookDeliveriesRepository, type LeasedEndpoint, type PendingDelivery } from './webhook-deliveries.repository.js';
import { decideAfterAttempt, endpointHealthAfter, type DeliveryDecision } from './webhook-retry.js';
import { sendWebhook, WEBHOOK_TIMEOUT_MS, type SentAttempt } from './webhook-sender.js';

/** Deliveries one round sends at most; the relay's next tick starts another round. */
export const DISPATCH_ROUND_DELIVERIES_MAX = 100;
/** A lease outlives one attempt with room to spare; renewed before each attempt. */
const DISPATCH_LEASE_MS = WEBHOOK_TIMEOUT_MS + 20_000;
/**
 * Deliveries in flight per endpoint: one (a round sends in event order, one at a time; the
 * endpoint's lease makes it one across worker processes too).
 */
export const DELIVERIES_IN_FLIGHT_PER_ENDPOINT = 1;
/**
 * Endpoints with a round in flight in one worker process, all together (one socket each). Far
 * above the dispatch queue's job concurrency: a hanging receiver holds its own lane, not a slot
 * another endpoint needs. Past it, a round is not started and the relay offers it again next tick.
 */
export const DISPATCH_ENDPOINTS_IN_FLIGHT_MAX = 256;

export type RoundStart = 'started' | 'in_flight' | 'full' | 'stopping';

/** The webhook body: exactly these bytes are signed and sent. */
export function webhookBody(delivery: Pick<PendingDelivery, 'type' | 'occurredAt' | 'data'>): string {
  return JSON.stringify({ type: delivery.type, timestamp: delivery.occurredAt.toISOString(), data: delivery.data });
}

function deliveryState(decision: DeliveryDecision) {
  if (decision.kind === 'delivered') return { status: 'delivered' as const };
  if (decision.kind === 'retry') return { status: 'pending' as const, nextAttemptAt: decision.nextAttemptAt };
  return { status: 'failed' as const };
}

/**
 * Sends an endpoint's pending deliveries in event order, one at a time, under a lease (one
 * dispatcher per endpoint). Each endpoint's round runs in its own lane, outside the dispatch job
 * (startRound returns at once): a receiver that accepts and never answers holds only its own lane
 * for the 10 s timeout, never one of the queue's few job slots, so it cannot delay the others
 * (api.md "Webhooks"). Postgres stays the truth: the lease and the attempt log survive a crash
 * mid-round exactly as before (the lease expires, the next dispatcher sends again). The oldest pending delivery goes first: while it waits for its retry,
 * later ones wait too, so a receiver sees events in order; a delivery that fails for good
 * (WEBHOOK_RETRY_HOURS) stops blocking the ones after it. A failure ends the round: the endpoint
 * is tried again when that delivery's backoff is over, not hammered with the rest of its queue.
 */
@Injectable()
export class WebhookDispatchService implements OnModuleDestroy {
  private readonly logger = new Logger('WebhookDispatch');
  /** Rounds in flight in this process, by endpoint (at most one each). */
  private readonly lanes = new Map<string, Promise<unknown>>();
  /** Aborted at shutdown: attempts in flight end at once, unrecorded (as after a crash). */
  private readonly stopping = new AbortController();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly deliveries: WebhookDeliveriesRepository,
  ) {
    // One listener per attempt in flight (each aborts its own request).
    setMaxListeners(DISPATCH_ENDPOINTS_IN_FLIGHT_MAX + 1, this.stopping.signal);
  }

  /** Starts a round for the endpoint in its own lane, unless one is in flight or all lanes are taken. */
  startRound(endpointId: string): RoundStart {
    if (this.stopping.signal.aborted) return 'stopping';
    if (this.lanes.has(endpointId)) return 'in_flight';
    if (this.lanes.size >= DISPATCH_ENDPOINTS_IN_FLIGHT_MAX) return 'full';
    const round = this.dispatchEndpoint(endpointId)
      .catch((error: unknown) => {
        if (!this.stopping.signal.aborted) this.logger.warn(`webhook dispatch round for endpoint ${endpointId} failed: ${(error as Error).message}`);
      })
      .finally(() => this.lanes.delete(endpointId));
    this.lanes.set(endpointId, round);
    return 'started';
  }

  /** Rounds in flight in this process (metrics and tests). */
  roundsInFlight(): number {
    return this.lanes.size;
  }

  onModuleDestroy(): void {
    this.stopping.abort();
  }

  /** One round for one endpoint; returns how many attempts it made. */
  async dispatchEndpoint(endpointId: string): Promise<number> {
    const holder = randomUUID();
    let endpoint = await this.deliveries.lease(endpointId, holder, DISPATCH_LEASE_MS);
    if (!endpoint) return 0;
    let attempts = 0;
    try {
      while (attempts < DISPATCH_ROUND_DELIVERIES_MAX && !this.stopping.signal.aborted) {
        const next = await this.deliveries.oldestPending(endpointId);
        if (!next || next.nextAttemptAt.getTime() > Date.now()) break;
        const delivered = await this.attempt(endpoint, next);
        attempts += 1;
        if (!delivered) break;
        // Renewed before the next attempt; null when disabled or deleted meanwhile.
        endpoint = await this.deliveries.lease(endpointId, holder, DISPATCH_LEASE_MS);
        if (!endpoint) break;
      }
    } finally {
      await this.deliveries.releaseLease(endpointId, holder);
    }
    return attempts;
  }

  private async attempt(endpoint: LeasedEndpoint, delivery: PendingDelivery): Promise<boolean> {
    const attempt = await this.deliveries.startAttempt(delivery.id);
    if (attempt === null) return true; // retried or finished by someone else meanwhile
    const sent = await sendWebhook(
      { url: endpoint.url, secret: endpoint.secret, messageId: delivery.messageId, body: webhookBody(delivery) },
      { allowPrivate: this.config.WEBHOOK_ALLOW_PRIVATE, httpsOnly: this.config.NODE_ENV === 'production', signal: this.stopping.signal },
    );
    // Cut short by shutdown: left as a crash leaves it (the attempt is logged as started, the
    // lease expires, the next dispatcher sends it again with the same webhook-id).
    if (this.stopping.signal.aborted) return false;
    await this.record(endpoint, delivery, attempt, sent);
    return sent.statusCode !== null && sent.statusCode >= 200 && sent.statusCode <= 299;
  }

  private async record(endpoint: LeasedEndpoint, delivery: PendingDelivery, attempt: number, sent: SentAttempt): Promise<void> {
    const now = new Date();
    const decision = decideAfterAttempt({ result: sent, attempt, now, deadline: delivery.deadlineAt, baseMs: this.config.WEBHOOK_RETRY_BASE_MS, random: Math.random() });
    const health = endpointHealthAfter({ result: sent, failingSince: endpoint.failingSince, now });
    await this.deliveries.finishAttempt({
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      attempt,
      statusCode: sent.statusCode,
      latencyMs: sent.latencyMs,
      error: sent.error,
      delivery: deliveryState(decision),
      health,
    });
    if (decision.kind !== 'delivered') {
      const answer = sent.statusCode !== null ? `HTTP ${sent.statusCode}` : sent.error;
      this.logger.warn(`webhook ${delivery.messageId} to endpoint ${endpoint.id}: attempt ${attempt} failed (${answer}); ${decision.kind}`);
    }
    if (health.kind === 'disable') this.logger.warn(`webhook endpoint ${endpoint.id} disabled: ${health.reason}`);
  }
}
