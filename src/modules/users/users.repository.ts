import { Injectable } from '@nestjs/common';
import type { SqlClient } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';

export interface CreditRecord {
  reference: string;
  userId: string;
  amountAtto: bigint;
  reason: string | null;
  createdAt: Date;
}

@Injectable()
export class UsersRepository {
  /** The credit row is the idempotency record of a top-up or adjustment. */
  async insertCreditIfNew(
    client: SqlClient,
    credit: { reference: string; userId: string; amountAtto: bigint; reason: string | null; journalEntryId: bigint },
  ): Promise<boolean> {
    const result = await client.query(
      `INSERT INTO user_credits (reference, user_id, amount_atto, reason, journal_entry_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (reference) DO NOTHING`,
      [credit.reference, credit.userId, credit.amountAtto.toString(), credit.reason, credit.journalEntryId.toString()],
    );
    return result.rowCount === 1;
  }

  async findCredit(client: SqlClient, reference: string): Promise<CreditRecord | null> {
    const result = await client.query<{ reference: string; user_id: string; amount_atto: string; reason: string | null; created_at: Date }>(
      'SELECT reference, user_id, amount_atto, reason, created_at FROM user_credits WHERE reference = $1',
      [reference],
    );
    const row = result.rows[0];
    return row ? { reference: row.reference, userId: row.user_id, amountAtto: toBigInt(row.amount_atto), reason: row.reason, createdAt: row.created_at } : null;
  }

  /** Locks the reference so two concurrent top-ups with one reference serialize. */
  async lockReference(client: SqlClient, reference: string): Promise<void> {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 7))', [`user_credit:${reference}`]);
  }
}
