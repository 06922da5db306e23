import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlRunner } from '../../database/database.service.js';

export type EndpointStatus = 'active' | 'disabled';

export interface WebhookEndpointRecord {
  id: string;
  url: string;
  eventTypes: string[];
  description: string | null;
  contributorId: string | null;
  status: EndpointStatus;
  disabledReason: string | null;
  disabledAt: Date | null;
  failingSince: Date | null;
  lastSuccessAt: Date | null;
  createdAt: Date;
}

/** WebhookEndpointRecord's columns, spelled as its fields: a row read with them is the record. */
const COLUMNS = `id, url, event_types AS "eventTypes", description, contributor_id AS "contributorId", status,
  disabled_reason AS "disabledReason", disabled_at AS "disabledAt", failing_since AS "failingSince",
  last_success_at AS "lastSuccessAt", created_at AS "createdAt"`;

/** Which endpoints a caller sees: all (admin) or one contributor's. */
export type EndpointScope = { kind: 'all' } | { kind: 'contributor'; contributorId: string };

function scopeClause(scope: EndpointScope, param: number): { sql: string; values: unknown[] } {
  return scope.kind === 'all' ? { sql: 'TRUE', values: [] } : { sql: `contributor_id = $${param}`, values: [scope.contributorId] };
}

@Injectable()
export class WebhookEndpointsRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Read here rather than through ContributorsService: the ledger and settlement import this
   * module to emit events, and contributors depend on the ledger (a module cycle otherwise).
   */
  async contributorExists(contributorId: string): Promise<boolean> {
    const result = await this.db.pool.query(`SELECT 1 FROM contributors WHERE id = $1`, [contributorId]);
    return result.rowCount === 1;
  }

  async countLive(runner: SqlRunner, contributorId: string | null): Promise<number> {
    const result = await runner.query<{ n: string }>(
      `SELECT count(*) AS n FROM webhook_endpoints WHERE status <> 'deleted' AND ($1::text IS NULL OR contributor_id = $1)`,
      [contributorId],
    );
    return Number(result.rows[0]!.n);
  }

  async insert(
    runner: SqlRunner,
    endpoint: { id: string; url: string; eventTypes: string[]; description: string | null; contributorId: string | null; secret: string; createdBy: string },
  ): Promise<WebhookEndpointRecord> {
    const result = await runner.query<WebhookEndpointRecord>(
      `INSERT INTO webhook_endpoints (id, url, event_types, description, contributor_id, secret, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [endpoint.id, endpoint.url, endpoint.eventTypes, endpoint.description, endpoint.contributorId, endpoint.secret, endpoint.createdBy],
    );
    return result.rows[0]!;
  }

  async list(scope: EndpointScope, limit: number): Promise<WebhookEndpointRecord[]> {
    const where = scopeClause(scope, 2);
    const result = await this.db.pool.query<WebhookEndpointRecord>(
      `SELECT ${COLUMNS} FROM webhook_endpoints WHERE status <> 'deleted' AND ${where.sql} ORDER BY created_at, id LIMIT $1`,
      [limit, ...where.values],
    );
    return result.rows;
  }

  async find(id: string, scope: EndpointScope, runner: SqlRunner = this.db.pool): Promise<WebhookEndpointRecord | null> {
    const where = scopeClause(scope, 2);
    const result = await runner.query<WebhookEndpointRecord>(`SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1 AND status <> 'deleted' AND ${where.sql}`, [id, ...where.values]);
    return result.rows[0] ?? null;
  }

  /** Soft delete: the delivery log stays readable by the audit trail; nothing is sent any more. */
  async markDeleted(runner: SqlRunner, id: string): Promise<boolean> {
    const result = await runner.query(`UPDATE webhook_endpoints SET status = 'deleted', deleted_at = now(), updated_at = now() WHERE id = $1 AND status <> 'deleted'`, [id]);
    return result.rowCount === 1;
  }

  /**
   * Back to active after a disable: the failure streak is forgotten and the deliveries that waited
   * meanwhile get a fresh retry window, due now.
   */
  async enable(runner: SqlRunner, id: string, retryHours: number): Promise<void> {
    await runner.query(
      `UPDATE webhook_endpoints SET status = 'active', disabled_reason = NULL, disabled_at = NULL, failing_since = NULL, updated_at = now()
       WHERE id = $1 AND status = 'disabled'`,
      [id],
    );
    await runner.query(
      `UPDATE webhook_deliveries SET next_attempt_at = now(), deadline_at = now() + make_interval(hours => $2)
       WHERE endpoint_id = $1 AND status = 'pending'`,
      [id, retryHours],
    );
  }
}
