import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { toBigInt, toBigIntOrNull } from '../../database/sql.js';

export type HoldStatus = 'active' | 'captured' | 'released' | 'expired';

export interface HoldRecord {
  holdId: string;
  userId: string;
  amountAtto: bigint;
  keyId: string | null;
  model: string | null;
  status: HoldStatus;
  expiresAt: Date;
  capturedEventId: string | null;
  capturedAtto: bigint | null;
  createdAt: Date;
}

type HoldRow = {
  hold_id: string;
  user_id: string;
  amount_atto: string;
  key_id: string | null;
  model: string | null;
  status: HoldStatus;
  expires_at: Date;
  captured_event_id: string | null;
  captured_atto: string | null;
  created_at: Date;
};

const HOLD_COLUMNS = 'hold_id, user_id, amount_atto, key_id, model, status, expires_at, captured_event_id, captured_atto, created_at';

@Injectable()
export class HoldsRepository {
  constructor(private readonly db: DatabaseService) {}

  async insertIfNew(client: SqlClient, hold: { holdId: string; userId: string; amountAtto: bigint; expiresAt: Date; keyId: string | null; model: string | null }): Promise<boolean> {
    const result = await client.query(
      `INSERT INTO holds (hold_id, user_id, amount_atto, status, expires_at, key_id, model) VALUES ($1, $2, $3, 'active', $4, $5, $6)
       ON CONFLICT (hold_id) DO NOTHING`,
      [hold.holdId, hold.userId, hold.amountAtto.toString(), hold.expiresAt, hold.keyId, hold.model],
    );
    return result.rowCount === 1;
  }

  async find(holdId: string, client?: SqlClient): Promise<HoldRecord | null> {
    const result = await (client ?? this.db.pool).query<HoldRow>(`SELECT ${HOLD_COLUMNS} FROM holds WHERE hold_id = $1`, [holdId]);
    return result.rows[0] ? toRecord(result.rows[0]) : null;
  }

  /** Moves an active hold to a final status; returns it only if this call changed it. */
  async finish(client: SqlClient, holdId: string, status: 'released' | 'expired'): Promise<HoldRecord | null> {
    const result = await client.query<HoldRow>(
      `UPDATE holds SET status = $2, updated_at = now() WHERE hold_id = $1 AND status = 'active' RETURNING ${HOLD_COLUMNS}`,
      [holdId, status],
    );
    return result.rows[0] ? toRecord(result.rows[0]) : null;
  }

  /** Expires due holds (all, or one user's), oldest first, in hold_id order. */
  async expireDue(client: SqlClient, now: Date, limit: number, userId?: string): Promise<HoldRecord[]> {
    const result = await client.query<HoldRow>(
      `UPDATE holds SET status = 'expired', updated_at = now()
       WHERE hold_id IN (
         SELECT hold_id FROM holds WHERE status = 'active' AND expires_at <= $1 AND ($3::text IS NULL OR user_id = $3)
         ORDER BY hold_id LIMIT $2 FOR UPDATE SKIP LOCKED)
       RETURNING ${HOLD_COLUMNS}`,
      [now, limit, userId ?? null],
    );
    return result.rows.map(toRecord);
  }

  /** Captures active holds named by events of the same user. */
  async capture(client: SqlClient, captures: Array<{ holdId: string; userId: string; eventId: string; chargeAtto: bigint }>): Promise<HoldRecord[]> {
    if (captures.length === 0) return [];
    const rows = captures.map((c) => ({ hold_id: c.holdId, user_id: c.userId, event_id: c.eventId, charge: c.chargeAtto.toString() }));
    const result = await client.query<HoldRow>(
      `UPDATE holds h SET status = 'captured', captured_event_id = x.event_id, captured_atto = x.charge, updated_at = now()
       FROM (SELECT DISTINCT ON (hold_id) * FROM json_to_recordset($1::json) AS j(hold_id text, user_id text, event_id text, charge numeric)
             ORDER BY hold_id) AS x
       WHERE h.hold_id = x.hold_id AND h.user_id = x.user_id AND h.status = 'active'
       RETURNING h.hold_id, h.user_id, h.amount_atto, h.key_id, h.model, h.status, h.expires_at, h.captured_event_id, h.captured_atto, h.created_at`,
      [JSON.stringify(rows)],
    );
    return result.rows.map(toRecord);
  }
}

function toRecord(row: HoldRow): HoldRecord {
  return {
    holdId: row.hold_id,
    userId: row.user_id,
    amountAtto: toBigInt(row.amount_atto),
    keyId: row.key_id,
    model: row.model,
    status: row.status,
    expiresAt: row.expires_at,
    capturedEventId: row.captured_event_id,
    capturedAtto: toBigIntOrNull(row.captured_atto),
    createdAt: row.created_at,
  };
}
