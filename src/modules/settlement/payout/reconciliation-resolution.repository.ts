import { Injectable } from '@nestjs/common';
import type { SqlClient } from '../../../database/database.service.js';

/** The findings of a stored reconciliation, without when they were found (SQL: same text everywhere). */
export const RECONCILIATION_FINGERPRINT_SQL = (column: string) => `md5((${column} - 'checked_at')::text)`;

export interface ReconciliationResolutionRecord {
  id: string;
  settlementId: string;
  fingerprint: string;
  reconciliation: unknown;
  reason: string;
  resolvedBy: string | null;
  resolvedByRole: string;
  createdAt: Date;
}

// Selected under the record's own names: rows need no mapping (id is bigserial, read as text).
const COLUMNS = `r.id::text AS id, r.settlement_id AS "settlementId", r.fingerprint, r.reconciliation, r.reason,
  r.resolved_by AS "resolvedBy", r.resolved_by_role AS "resolvedByRole", r.created_at AS "createdAt"`;

/** Append-only resolutions of failed reconciliations (the table refuses UPDATE and DELETE). */
@Injectable()
export class ReconciliationResolutionRepository {
  /**
   * Resolves the settlement's current (failed) reconciliation, a copy of which is kept with the
   * reason. null when these findings were resolved before (the existing row is read instead).
   */
  async insertForCurrent(client: SqlClient, input: { settlementId: string; reason: string; resolvedBy: string | null; resolvedByRole: string }): Promise<ReconciliationResolutionRecord | null> {
    const result = await client.query<ReconciliationResolutionRecord>(
      `INSERT INTO reconciliation_resolutions AS r (settlement_id, fingerprint, reconciliation, reason, resolved_by, resolved_by_role)
       SELECT s.id, ${RECONCILIATION_FINGERPRINT_SQL('s.reconciliation')}, s.reconciliation, $2, $3, $4
       FROM settlements s WHERE s.id = $1 AND s.reconciliation->>'ok' = 'false'
       ON CONFLICT (settlement_id, fingerprint) DO NOTHING
       RETURNING ${COLUMNS}`,
      [input.settlementId, input.reason, input.resolvedBy, input.resolvedByRole],
    );
    return result.rows[0] ?? null;
  }

  /** The resolution that covers the settlement's current reconciliation, if any. */
  async findForCurrent(client: SqlClient, settlementId: string): Promise<ReconciliationResolutionRecord | null> {
    const result = await client.query<ReconciliationResolutionRecord>(
      `SELECT ${COLUMNS} FROM reconciliation_resolutions r
       JOIN settlements s ON s.id = r.settlement_id
       WHERE r.settlement_id = $1 AND r.fingerprint = ${RECONCILIATION_FINGERPRINT_SQL('s.reconciliation')}`,
      [settlementId],
    );
    return result.rows[0] ?? null;
  }
}
