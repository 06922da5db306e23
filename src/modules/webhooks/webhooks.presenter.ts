// Records -> the API's JSON (snake_case, RFC 3339, ids as strings).
import { z } from 'zod';
import { cursorRowIdSchema, decodeCursor, encodeCursor } from '../../common/http/pagination.js';
import type { DeliveryRecord } from './webhook-deliveries.repository.js';
import type { WebhookEndpointRecord } from './webhook-endpoints.repository.js';

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

export function endpointJson(e: WebhookEndpointRecord) {
  return {
    id: e.id,
    url: e.url,
    events: e.eventTypes,
    description: e.description,
    contributor_id: e.contributorId,
    status: e.status,
    disabled_reason: e.disabledReason,
    disabled_at: iso(e.disabledAt),
    failing_since: iso(e.failingSince),
    last_success_at: iso(e.lastSuccessAt),
    created_at: e.createdAt.toISOString(),
  };
}

export function deliveryJson(d: DeliveryRecord) {
  return {
    delivery_id: d.id.toString(),
    webhook_id: d.endpointId,
    event: { id: d.messageId, type: d.type, timestamp: d.occurredAt.toISOString() },
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.status === 'pending' ? d.nextAttemptAt.toISOString() : null,
    deadline_at: d.deadlineAt.toISOString(),
    last_attempt_at: iso(d.lastAttemptAt),
    last_status_code: d.lastStatusCode,
    last_latency_ms: d.lastLatencyMs,
    last_error: d.lastError,
    delivered_at: iso(d.deliveredAt),
    failed_at: iso(d.failedAt),
    created_at: d.createdAt.toISOString(),
    attempt_log: d.attemptLog.map((a) => ({
      attempt: a.attempt,
      started_at: a.startedAt.toISOString(),
      finished_at: iso(a.finishedAt),
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      error: a.error,
    })),
  };
}

const cursorSchema = z.object({ id: cursorRowIdSchema });

export function deliveriesCursor(cursor: string | undefined): bigint | null {
  const decoded = decodeCursor(cursor, cursorSchema);
  return decoded ? BigInt(decoded.id) : null;
}

export function deliveriesPage(rows: DeliveryRecord[], limit: number) {
  const last = rows.at(-1);
  return { data: rows.map(deliveryJson), next_cursor: rows.length === limit && last ? encodeCursor({ id: last.id.toString() }) : null };
}

/** Path ids: a malformed one is simply not found (as api keys do). */
export function parseDeliveryId(text: string): bigint | null {
  return /^\d{1,18}$/.test(text) ? BigInt(text) : null;
}
