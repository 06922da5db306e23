import { Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { assert } from '../../common/errors/index.js';
import type { SqlRunner } from '../../database/database.service.js';
import { WEBHOOK_EVENT_SCHEMAS, type WebhookEventData, type WebhookEventType } from './webhook-event-types.js';
import { WebhookOutboxRepository, type OutboxRow } from './webhook-outbox.repository.js';

export interface WebhookEventInput<T extends WebhookEventType = WebhookEventType> {
  type: T;
  data: WebhookEventData<T>;
  /** When the fact happened: the payload's `timestamp`. */
  occurredAt: Date;
  /** The contributor the event is about: that contributor's own endpoints receive it. */
  contributorId?: string | null;
  /** Whether admin endpoints receive it (default true; false for a contributor's own copy). */
  forAdmin?: boolean;
  /** For facts that may be announced twice (a retried job): the second insert is a no-op. */
  dedupeKey?: string;
}

/** The webhook-id of an event: stable across every retry, no `.` (Standard Webhooks). */
export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

export function outboxRow(event: WebhookEventInput): OutboxRow {
  const parsed = WEBHOOK_EVENT_SCHEMAS[event.type].safeParse(event.data);
  // A payload off its documented schema is a bug in the emitter, not bad input.
  assert(parsed.success, `webhook ${event.type} data does not match its schema: ${parsed.error?.message ?? ''}`);
  const forAdmin = event.forAdmin ?? true;
  assert(forAdmin || event.contributorId, `webhook ${event.type} has no audience`);
  return {
    messageId: newMessageId(),
    type: event.type,
    occurredAt: event.occurredAt,
    dataJson: JSON.stringify(parsed.data),
    contributorId: event.contributorId ?? null,
    forAdmin,
    dedupeKey: event.dedupeKey ?? null,
  };
}

/**
 * The outbox other modules write to, inside the transaction of the fact they announce: an event
 * is delivered if and only if its fact committed. The worker's relay takes it from there.
 */
@Injectable()
export class WebhookOutbox {
  constructor(private readonly repository: WebhookOutboxRepository) {}

  /** Records events in the caller's transaction; returns how many were stored (subscribed, new). */
  emit(runner: SqlRunner, events: readonly WebhookEventInput[]): Promise<number> {
    return this.repository.insert(runner, events.map(outboxRow));
  }

  /**
   * For the refunds module: announces a refund in the refund's own transaction. Admin endpoints
   * receive it (refund.* is not a type contributor keys may subscribe to).
   */
  emitRefundCreated(runner: SqlRunner, refund: WebhookEventData<'refund.created'> & { createdAt: Date }): Promise<number> {
    const { createdAt, ...data } = refund;
    return this.emit(runner, [{ type: 'refund.created', data, occurredAt: createdAt, contributorId: refund.contributor_id, dedupeKey: `refund.created:${refund.refund_id}` }]);
  }
}
