import { Injectable } from '@nestjs/common';
import type { SqlRunner } from '../../database/database.service.js';

export interface OutboxRow {
  messageId: string;
  type: string;
  occurredAt: Date;
  /** The `data` JSON, already validated against its type's schema. */
  dataJson: string;
  contributorId: string | null;
  forAdmin: boolean;
  dedupeKey: string | null;
}

/**
 * The outbox insert, run inside the caller's transaction (or statement). An event nobody would
 * receive is not stored at all: the EXISTS over the (small) endpoints table makes a deployment
 * without webhooks pay one index-less scan of an empty table, not a row per fact. A dedupe key
 * already used (a job that ran twice) or a replayed message id inserts nothing.
 */
const INSERT_EVENTS = `INSERT INTO webhook_events (message_id, type, occurred_at, data, contributor_id, for_admin, dedupe_key)
  SELECT x.message_id, x.type, x.occurred_at, x.data, x.contributor_id, x.for_admin, x.dedupe_key
  FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::jsonb[], $5::text[], $6::boolean[], $7::text[])
    AS x(message_id, type, occurred_at, data, contributor_id, for_admin, dedupe_key)
  WHERE EXISTS (
    SELECT 1 FROM webhook_endpoints e
    WHERE e.status <> 'deleted' AND x.type = ANY (e.event_types)
      AND ((e.contributor_id IS NULL AND x.for_admin) OR e.contributor_id = x.contributor_id))
  ON CONFLICT DO NOTHING`;

@Injectable()
export class WebhookOutboxRepository {
  async insert(runner: SqlRunner, rows: readonly OutboxRow[]): Promise<number> {
    if (rows.length === 0) return 0;
    const result = await runner.query(INSERT_EVENTS, [
      rows.map((r) => r.messageId),
      rows.map((r) => r.type),
      rows.map((r) => r.occurredAt.toISOString()),
      rows.map((r) => r.dataJson),
      rows.map((r) => r.contributorId),
      rows.map((r) => r.forAdmin),
      rows.map((r) => r.dedupeKey),
    ]);
    return result.rowCount ?? 0;
  }
}
