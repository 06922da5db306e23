import { Injectable } from '@nestjs/common';
import type { SqlClient } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';

export interface AdjustmentRecord {
  reference: string;
  contributorId: string;
  amountAtto: bigint;
  reason: string;
  payableAfterAtto: bigint;
  actorId: string;
  createdAt: Date;
}

/** A row read with COLUMNS: the record's fields, the NUMERIC amounts as text. */
type AdjustmentRow = Omit<AdjustmentRecord, 'amountAtto' | 'payableAfterAtto'> & { amountAtto: string; payableAfterAtto: string };

function toRecord(row: AdjustmentRow): AdjustmentRecord {
  return { ...row, amountAtto: toBigInt(row.amountAtto), payableAfterAtto: toBigInt(row.payableAfterAtto) };
}

const COLUMNS = `reference, contributor_id AS "contributorId", amount_atto AS "amountAtto", reason,
  payable_after_atto AS "payableAfterAtto", actor_id AS "actorId", created_at AS "createdAt"`;

@Injectable()
export class ContributorAdjustmentsRepository {
  /**
   * Claims the reference. ON CONFLICT DO NOTHING waits for a concurrent claim of the same
   * reference to commit, then yields no row: the caller reads the winner and compares payloads.
   */
  async insertIfNew(client: SqlClient, record: Omit<AdjustmentRecord, 'createdAt'>): Promise<AdjustmentRecord | null> {
    const result = await client.query<AdjustmentRow>(
      `INSERT INTO contributor_adjustments (reference, contributor_id, amount_atto, reason, payable_after_atto, actor_id)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (reference) DO NOTHING
       RETURNING ${COLUMNS}`,
      [record.reference, record.contributorId, record.amountAtto.toString(), record.reason, record.payableAfterAtto.toString(), record.actorId],
    );
    const row = result.rows[0];
    return row ? toRecord(row) : null;
  }

  async findByReference(client: SqlClient, reference: string): Promise<AdjustmentRecord | null> {
    const result = await client.query<AdjustmentRow>(`SELECT ${COLUMNS} FROM contributor_adjustments WHERE reference = $1`, [reference]);
    const row = result.rows[0];
    return row ? toRecord(row) : null;
  }
}
