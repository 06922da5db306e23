import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlRunner } from '../../database/database.service.js';
import type { EndpointHealth } from './webhook-retry.js';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** An endpoint leased for one dispatch round, with what signing and sending need. */
export interface LeasedEndpoint {
  id: string;
  url: string;
  secret: string;
  failingSince: Date | null;
}

/** The oldest pending delivery of an endpoint, with its event. */
export interface PendingDelivery {
  id: bigint;
  attempts: number;
  nextAttemptAt: Date;
  deadlineAt: Date;
  messageId: string;
  type: string;
  occurredAt: Date;
  data: unknown;
}

export interface AttemptLogEntry {
  attempt: number;
  startedAt: Date;
  finishedAt: Date | null;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
}

export interface DeliveryRecord {
  id: bigint;
  endpointId: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: Date;
  deadlineAt: Date;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastLatencyMs: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  failedAt: Date | null;
  createdAt: Date;
  messageId: string;
  type: string;
  occurredAt: Date;
  attemptLog: AttemptLogEntry[];
}

/**
 * Fans a batch of new outbox events out into deliveries, one per receiving endpoint (an endpoint
 * receives the events recorded after it was registered; a disabled one keeps receiving, to send
 * when re-enabled), and marks them relayed, in one statement. SKIP LOCKED: several workers'
 * relays take disjoint batches; the unique (endpoint, event) makes a repeat a no-op anyway.
 */
const RELAY = `WITH batch AS (
    SELECT id, type, contributor_id, for_admin, created_at FROM webhook_events
    WHERE relayed_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED
  ), fanned AS (
    INSERT INTO webhook_deliveries (endpoint_id, event_id, deadline_at)
    SELECT e.id, b.id, now() + make_interval(hours => $2)
    FROM batch b JOIN webhook_endpoints e
      ON e.status <> 'deleted' AND b.type = ANY (e.event_types) AND e.created_at <= b.created_at
     AND ((e.contributor_id IS NULL AND b.for_admin) OR e.contributor_id = b.contributor_id)
    ORDER BY e.id, b.id
    ON CONFLICT (endpoint_id, event_id) DO NOTHING
    RETURNING endpoint_id
  ), marked AS (
    UPDATE webhook_events SET relayed_at = now() WHERE id IN (SELECT id FROM batch) RETURNING 1
  )
  SELECT (SELECT count(*) FROM marked) AS relayed, (SELECT count(*) FROM fanned) AS deliveries`;

const DELIVERY_COLUMNS = `d.id, d.endpoint_id, d.status, d.attempts, d.next_attempt_at, d.deadline_at, d.last_attempt_at, d.last_status_code,
  d.last_latency_ms, d.last_error, d.delivered_at, d.failed_at, d.created_at, ev.message_id, ev.type, ev.occurred_at`;

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date;
  deadline_at: Date;
  last_attempt_at: Date | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  failed_at: Date | null;
  created_at: Date;
  message_id: string;
  type: string;
  occurred_at: Date;
}

function toDelivery(row: DeliveryRow, attemptLog: AttemptLogEntry[]): DeliveryRecord {
  return {
    id: BigInt(row.id),
    endpointId: row.endpoint_id,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    deadlineAt: row.deadline_at,
    lastAttemptAt: row.last_attempt_at,
    lastStatusCode: row.last_status_code,
    lastLatencyMs: row.last_latency_ms,
    lastError: row.last_error,
    deliveredAt: row.delivered_at,
    failedAt: row.failed_at,
    createdAt: row.created_at,
    messageId: row.message_id,
    type: row.type,
    occurredAt: row.occurred_at,
    attemptLog,
  };
}

export interface AttemptOutcome {
  deliveryId: bigint;
  endpointId: string;
  attempt: number;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  delivery: { status: 'delivered' } | { status: 'pending'; nextAttemptAt: Date } | { status: 'failed' };
  health: EndpointHealth;
}

@Injectable()
export class WebhookDeliveriesRepository {
  constructor(private readonly db: DatabaseService) {}

  async relay(batchMax: number, retryHours: number): Promise<{ relayed: number; deliveries: number }> {
    const result = await this.db.pool.query<{ relayed: string; deliveries: string }>(RELAY, [batchMax, retryHours]);
    return { relayed: Number(result.rows[0]!.relayed), deliveries: Number(result.rows[0]!.deliveries) };
  }

  /** Active endpoints with a delivery due and no live dispatch lease: each needs a dispatch job. */
  async endpointsWithDueWork(limit: number): Promise<string[]> {
    const result = await this.db.pool.query<{ endpoint_id: string }>(
      `SELECT e.id AS endpoint_id FROM webhook_endpoints e
       WHERE e.status = 'active' AND (e.dispatch_lease_until IS NULL OR e.dispatch_lease_until < now())
         AND EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= now())
       ORDER BY e.id LIMIT $1`,
      [limit],
    );
    return result.rows.map((r) => r.endpoint_id);
  }

  /** Takes (or renews, with the same holder) the endpoint's dispatch lease; null when another holds it. */
  async lease(endpointId: string, holder: string, leaseMs: number): Promise<LeasedEndpoint | null> {
    const result = await this.db.pool.query<{ id: string; url: string; secret: string; failing_since: Date | null }>(
      `UPDATE webhook_endpoints SET dispatch_lease_until = now() + make_interval(secs => $3::double precision / 1000), dispatch_holder = $2
       WHERE id = $1 AND status = 'active' AND (dispatch_lease_until IS NULL OR dispatch_lease_until < now() OR dispatch_holder = $2)
       RETURNING id, url, secret, failing_since`,
      [endpointId, holder, leaseMs],
    );
    const row = result.rows[0];
    return row ? { id: row.id, url: row.url, secret: row.secret, failingSince: row.failing_since } : null;
  }

  async releaseLease(endpointId: string, holder: string): Promise<void> {
    await this.db.pool.query(`UPDATE webhook_endpoints SET dispatch_lease_until = NULL, dispatch_holder = NULL WHERE id = $1 AND dispatch_holder = $2`, [endpointId, holder]);
  }

  /** The endpoint's oldest pending delivery (event order), due or not. */
  async oldestPending(endpointId: string): Promise<PendingDelivery | null> {
    const result = await this.db.pool.query<{ id: string; attempts: number; next_attempt_at: Date; deadline_at: Date; message_id: string; type: string; occurred_at: Date; data: unknown }>(
      `SELECT d.id, d.attempts, d.next_attempt_at, d.deadline_at, ev.message_id, ev.type, ev.occurred_at, ev.data
       FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
       WHERE d.endpoint_id = $1 AND d.status = 'pending' ORDER BY d.event_id LIMIT 1`,
      [endpointId],
    );
    const row = result.rows[0];
    if (!row) return null;
    return { id: BigInt(row.id), attempts: row.attempts, nextAttemptAt: row.next_attempt_at, deadlineAt: row.deadline_at, messageId: row.message_id, type: row.type, occurredAt: row.occurred_at, data: row.data };
  }

  /**
   * Counts and logs the attempt before it is sent: if the process dies mid-request, the attempt
   * shows in the log as unfinished, and the next dispatcher sends again (same webhook-id).
   */
  async startAttempt(deliveryId: bigint): Promise<number | null> {
    return this.db.transaction(async (client) => {
      const result = await client.query<{ attempts: number }>(
        `UPDATE webhook_deliveries SET attempts = attempts + 1, last_attempt_at = now() WHERE id = $1 AND status = 'pending' RETURNING attempts`,
        [deliveryId.toString()],
      );
      const attempt = result.rows[0]?.attempts;
      if (attempt === undefined) return null;
      await client.query(`INSERT INTO webhook_attempts (delivery_id, attempt) VALUES ($1, $2)`, [deliveryId.toString(), attempt]);
      return attempt;
    });
  }

  /** The attempt's answer, the delivery's new state and the endpoint's health, in one transaction. */
  async finishAttempt(outcome: AttemptOutcome): Promise<void> {
    const id = outcome.deliveryId.toString();
    await this.db.transaction(async (client) => {
      await client.query(
        `UPDATE webhook_attempts SET finished_at = now(), status_code = $3, latency_ms = $4, error = $5 WHERE delivery_id = $1 AND attempt = $2`,
        [id, outcome.attempt, outcome.statusCode, outcome.latencyMs, outcome.error],
      );
      const d = outcome.delivery;
      await client.query(
        `UPDATE webhook_deliveries SET status = $2, last_status_code = $3, last_latency_ms = $4, last_error = $5,
           next_attempt_at = coalesce($6, next_attempt_at),
           delivered_at = CASE WHEN $2 = 'delivered' THEN now() ELSE delivered_at END,
           failed_at = CASE WHEN $2 = 'failed' THEN now() ELSE failed_at END
         WHERE id = $1`,
        [id, d.status, outcome.statusCode, outcome.latencyMs, outcome.error, d.status === 'pending' ? d.nextAttemptAt : null],
      );
      await this.applyHealth(client, outcome.endpointId, outcome.health);
    });
  }

  private async applyHealth(client: SqlRunner, endpointId: string, health: EndpointHealth): Promise<void> {
    if (health.kind === 'healthy') {
      await client.query(`UPDATE webhook_endpoints SET failing_since = NULL, last_success_at = now() WHERE id = $1`, [endpointId]);
      return;
    }
    if (health.kind === 'failing') {
      await client.query(`UPDATE webhook_endpoints SET failing_since = coalesce(failing_since, $2) WHERE id = $1`, [endpointId, health.failingSince]);
      return;
    }
    await client.query(
      `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $2, disabled_at = now(), failing_since = coalesce(failing_since, $3), updated_at = now()
       WHERE id = $1 AND status = 'active'`,
      [endpointId, health.reason, health.failingSince],
    );
  }

  /** An endpoint's deliveries, newest first, each with its last attempts (the delivery log). */
  async list(endpointId: string, limit: number, beforeId: bigint | null, attemptsPerDeliveryMax: number): Promise<DeliveryRecord[]> {
    const result = await this.db.pool.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id
       WHERE d.endpoint_id = $1 AND ($2::bigint IS NULL OR d.id < $2) ORDER BY d.id DESC LIMIT $3`,
      [endpointId, beforeId?.toString() ?? null, limit],
    );
    const logs = await this.attemptLogs(result.rows.map((r) => r.id), attemptsPerDeliveryMax);
    return result.rows.map((row) => toDelivery(row, logs.get(row.id) ?? []));
  }

  async find(endpointId: string, deliveryId: bigint, attemptsPerDeliveryMax: number): Promise<DeliveryRecord | null> {
    const result = await this.db.pool.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN webhook_events ev ON ev.id = d.event_id WHERE d.endpoint_id = $1 AND d.id = $2`,
      [endpointId, deliveryId.toString()],
    );
    const row = result.rows[0];
    if (!row) return null;
    const logs = await this.attemptLogs([row.id], attemptsPerDeliveryMax);
    return toDelivery(row, logs.get(row.id) ?? []);
  }

  /** Manual retry: pending again, due now, with a fresh retry window; the webhook-id stays. */
  async retry(endpointId: string, deliveryId: bigint, retryHours: number): Promise<boolean> {
    const result = await this.db.pool.query(
      `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = now(), deadline_at = now() + make_interval(hours => $3), failed_at = NULL
       WHERE endpoint_id = $1 AND id = $2`,
      [endpointId, deliveryId.toString(), retryHours],
    );
    return result.rowCount === 1;
  }

  private async attemptLogs(deliveryIds: string[], perDeliveryMax: number): Promise<Map<string, AttemptLogEntry[]>> {
    const logs = new Map<string, AttemptLogEntry[]>();
    if (deliveryIds.length === 0) return logs;
    const result = await this.db.pool.query<{ delivery_id: string; attempt: number; started_at: Date; finished_at: Date | null; status_code: number | null; latency_ms: number | null; error: string | null }>(
      `SELECT delivery_id, attempt, started_at, finished_at, status_code, latency_ms, error FROM (
         SELECT a.*, row_number() OVER (PARTITION BY delivery_id ORDER BY attempt DESC) AS n FROM webhook_attempts a WHERE delivery_id = ANY($1::bigint[])
       ) x WHERE n <= $2 ORDER BY delivery_id, attempt`,
      [deliveryIds, perDeliveryMax],
    );
    for (const r of result.rows) {
      const entry = { attempt: r.attempt, startedAt: r.started_at, finishedAt: r.finished_at, statusCode: r.status_code, latencyMs: r.latency_ms, error: r.error };
      const list = logs.get(r.delivery_id) ?? [];
      list.push(entry);
      logs.set(r.delivery_id, list);
    }
    return logs;
  }
}
