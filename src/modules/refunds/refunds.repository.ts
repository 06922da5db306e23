import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';

export interface RefundRecord {
  id: bigint;
  refundId: string;
  eventId: string;
  userId: string;
  contributorId: string;
  model: string;
  requestedAmountAtto: bigint | null;
  amountAtto: bigint;
  clawbackAtto: bigint;
  clawbackPendingAtto: bigint;
  marginReversedAtto: bigint;
  refundedTotalAtto: bigint;
  clawbackTotalAtto: bigint;
  reason: string;
  journalEntryId: bigint;
  actorId: string | null;
  createdAt: Date;
  eventOccurredAt: Date | null;
}

export type NewRefund = Omit<RefundRecord, 'id' | 'createdAt'>;

export interface RefundFilter {
  eventId?: string;
  contributorId?: string;
  userId?: string;
}

export interface RefundRollupMismatch {
  contributorId: string;
  day: string;
  model: string;
  rollup: RefundDaySums | null;
  refunds: RefundDaySums | null;
}

export interface RefundDaySums {
  refunds: bigint;
  refundedAtto: bigint;
  clawedBackAtto: bigint;
  marginReversedAtto: bigint;
}

const COLUMNS = `id, refund_id, event_id, user_id, contributor_id, model, requested_amount_atto, amount_atto, clawback_atto,
  clawback_pending_atto, margin_reversed_atto, refunded_total_atto, clawback_total_atto, reason, journal_entry_id, actor_id, created_at, event_occurred_at`;

type Row = Record<string, string | null> & { created_at: Date; event_occurred_at: Date | null };

function fromRow(row: Row): RefundRecord {
  return {
    id: toBigInt(row.id),
    refundId: row.refund_id!,
    eventId: row.event_id!,
    userId: row.user_id!,
    contributorId: row.contributor_id!,
    model: row.model!,
    requestedAmountAtto: row.requested_amount_atto === null ? null : toBigInt(row.requested_amount_atto),
    amountAtto: toBigInt(row.amount_atto),
    clawbackAtto: toBigInt(row.clawback_atto),
    clawbackPendingAtto: toBigInt(row.clawback_pending_atto),
    marginReversedAtto: toBigInt(row.margin_reversed_atto),
    refundedTotalAtto: toBigInt(row.refunded_total_atto),
    clawbackTotalAtto: toBigInt(row.clawback_total_atto),
    reason: row.reason!,
    journalEntryId: toBigInt(row.journal_entry_id),
    actorId: row.actor_id ?? null,
    createdAt: row.created_at,
    eventOccurredAt: row.event_occurred_at ?? null,
  };
}

function sumsOf(row: Record<string, string | null>, prefix: string): RefundDaySums | null {
  if (row[`${prefix}refunds`] === null || row[`${prefix}refunds`] === undefined) return null;
  return {
    refunds: toBigInt(row[`${prefix}refunds`]),
    refundedAtto: toBigInt(row[`${prefix}refunded_atto`]),
    clawedBackAtto: toBigInt(row[`${prefix}clawed_back_atto`]),
    marginReversedAtto: toBigInt(row[`${prefix}margin_reversed_atto`]),
  };
}

/** The refunds table (append-only) and its daily rollup per contributor, refund day and model. */
@Injectable()
export class RefundsRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Serializes requests with one refund_id (the 50 identical requests at once case). */
  async lockRefundId(client: SqlClient, refundId: string): Promise<void> {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 16))', [`refund:${refundId}`]);
  }

  /** Serializes the parts of one event, so two refunds can never together pass its charge. */
  async lockEvent(client: SqlClient, eventId: string): Promise<void> {
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 16))', [`refund_event:${eventId}`]);
  }

  async find(client: SqlClient, refundId: string): Promise<RefundRecord | null> {
    const result = await client.query<Row>(`SELECT ${COLUMNS} FROM refunds WHERE refund_id = $1`, [refundId]);
    return result.rows[0] ? fromRow(result.rows[0]) : null;
  }

  /** What earlier parts refunded and clawed back (read under the event lock). */
  async totalsForEvent(client: SqlClient, eventId: string): Promise<{ refundedAtto: bigint; clawedBackAtto: bigint }> {
    const result = await client.query<{ refunded: string; clawed: string }>(
      'SELECT coalesce(sum(amount_atto), 0) AS refunded, coalesce(sum(clawback_atto), 0) AS clawed FROM refunds WHERE event_id = $1',
      [eventId],
    );
    return { refundedAtto: toBigInt(result.rows[0]!.refunded), clawedBackAtto: toBigInt(result.rows[0]!.clawed) };
  }

  /** Inserts the refund and adds it to the rollup of its UTC day (the transaction's time). */
  async insert(client: SqlClient, refund: NewRefund): Promise<RefundRecord> {
    const result = await client.query<Row>(
      `INSERT INTO refunds (refund_id, event_id, user_id, contributor_id, model, requested_amount_atto, amount_atto, clawback_atto,
         clawback_pending_atto, margin_reversed_atto, refunded_total_atto, clawback_total_atto, reason, journal_entry_id, actor_id, event_occurred_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       RETURNING ${COLUMNS}`,
      [
        refund.refundId,
        refund.eventId,
        refund.userId,
        refund.contributorId,
        refund.model,
        refund.requestedAmountAtto?.toString() ?? null,
        refund.amountAtto.toString(),
        refund.clawbackAtto.toString(),
        refund.clawbackPendingAtto.toString(),
        refund.marginReversedAtto.toString(),
        refund.refundedTotalAtto.toString(),
        refund.clawbackTotalAtto.toString(),
        refund.reason,
        refund.journalEntryId.toString(),
        refund.actorId,
        refund.eventOccurredAt,
      ],
    );
    const stored = fromRow(result.rows[0]!);
    await client.query(
      `INSERT INTO contributor_refunds_daily (contributor_id, day, model, refunds, refunded_atto, clawed_back_atto, margin_reversed_atto)
       VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, $3, 1, $4, $5, $6)
       ON CONFLICT (contributor_id, day, model) DO UPDATE
         SET refunds = contributor_refunds_daily.refunds + 1,
             refunded_atto = contributor_refunds_daily.refunded_atto + excluded.refunded_atto,
             clawed_back_atto = contributor_refunds_daily.clawed_back_atto + excluded.clawed_back_atto,
             margin_reversed_atto = contributor_refunds_daily.margin_reversed_atto + excluded.margin_reversed_atto`,
      [stored.contributorId, stored.createdAt, stored.model, stored.amountAtto.toString(), stored.clawbackAtto.toString(), stored.marginReversedAtto.toString()],
    );
    return stored;
  }

  /** Newest first, keyset on id; at most limit + 1 rows so the caller can tell a next page. */
  async list(filter: RefundFilter, limit: number, beforeId: bigint | null): Promise<RefundRecord[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replace('?', `$${params.length}`));
    };
    if (filter.eventId !== undefined) add('event_id = ?', filter.eventId);
    if (filter.contributorId !== undefined) add('contributor_id = ?', filter.contributorId);
    if (filter.userId !== undefined) add('user_id = ?', filter.userId);
    if (beforeId !== null) add('id < ?', beforeId.toString());
    params.push(limit + 1);
    const result = await this.db.pool.query<Row>(
      `SELECT ${COLUMNS} FROM refunds ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC LIMIT $${params.length}`,
      params,
    );
    return result.rows.map(fromRow);
  }

  /**
   * Clawbacks taken from pending for events that occurred after `afterDay` (still maturing): the
   * maturity job keeps that much less in pending for those days.
   */
  async pendingClawbacksAfter(client: SqlClient, contributorId: string, afterDay: string): Promise<bigint> {
    const result = await client.query<{ s: string }>(
      `SELECT coalesce(sum(clawback_pending_atto), 0) AS s FROM refunds
       WHERE contributor_id = $1 AND clawback_pending_atto > 0 AND event_occurred_at >= ($2::date + 1)::timestamp AT TIME ZONE 'UTC'`,
      [contributorId, afterDay],
    );
    return toBigInt(result.rows[0]!.s);
  }

  /** Every rollup row against the refunds it sums (contributor, UTC day of created_at, model). */
  async findRollupMismatches(limit: number): Promise<{ rollupRows: bigint; mismatches: RefundRollupMismatch[] }> {
    const counted = await this.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM contributor_refunds_daily');
    const result = await this.db.pool.query<Record<string, string | null>>(
      `WITH raw AS (
         SELECT contributor_id, (created_at AT TIME ZONE 'UTC')::date AS day, model, count(*)::bigint AS refunds,
                sum(amount_atto) AS refunded_atto, sum(clawback_atto) AS clawed_back_atto, sum(margin_reversed_atto) AS margin_reversed_atto
         FROM refunds GROUP BY 1, 2, 3)
       SELECT coalesce(r.contributor_id, d.contributor_id) AS contributor_id, to_char(coalesce(r.day, d.day), 'YYYY-MM-DD') AS day,
              coalesce(r.model, d.model) AS model,
              d.refunds AS d_refunds, d.refunded_atto AS d_refunded_atto, d.clawed_back_atto AS d_clawed_back_atto, d.margin_reversed_atto AS d_margin_reversed_atto,
              r.refunds AS r_refunds, r.refunded_atto AS r_refunded_atto, r.clawed_back_atto AS r_clawed_back_atto, r.margin_reversed_atto AS r_margin_reversed_atto
       FROM raw r FULL JOIN contributor_refunds_daily d ON d.contributor_id = r.contributor_id AND d.day = r.day AND d.model = r.model
       WHERE r.contributor_id IS NULL OR d.contributor_id IS NULL
          OR (d.refunds, d.refunded_atto, d.clawed_back_atto, d.margin_reversed_atto) IS DISTINCT FROM (r.refunds, r.refunded_atto, r.clawed_back_atto, r.margin_reversed_atto)
       ORDER BY 1, 2, 3 LIMIT $1`,
      [limit],
    );
    return {
      rollupRows: toBigInt(counted.rows[0]!.n),
      mismatches: result.rows.map((row) => ({ contributorId: row.contributor_id!, day: row.day!, model: row.model!, rollup: sumsOf(row, 'd_'), refunds: sumsOf(row, 'r_') })),
    };
  }

  /**
   * Each refund's journal entry must say what its row says (user +amount, payable -clawback,
   * revenue -margin): the ledger check's proof that refunds and the journal agree.
   */
  async findJournalMismatches(limit: number): Promise<string[]> {
    const result = await this.db.pool.query<{ refund_id: string }>(
      `SELECT r.refund_id FROM refunds r LEFT JOIN journal_entries j ON j.id = r.journal_entry_id
       WHERE j.id IS NULL OR j.kind <> 'refund' OR j.ref <> 'refund:' || r.refund_id
          OR (r.clawback_pending_atto = 0 AND (
                j.account_codes <> ARRAY['user:' || r.user_id, 'contributor:' || r.contributor_id || ':payable', 'platform:revenue']
                OR j.amounts_atto <> ARRAY[r.amount_atto, -r.clawback_atto, -r.margin_reversed_atto]))
          OR (r.clawback_pending_atto > 0 AND (
                j.account_codes <> ARRAY['user:' || r.user_id, 'contributor:' || r.contributor_id || ':pending',
                                         'contributor:' || r.contributor_id || ':payable', 'platform:revenue']
                OR j.amounts_atto <> ARRAY[r.amount_atto, -r.clawback_pending_atto, -(r.clawback_atto - r.clawback_pending_atto), -r.margin_reversed_atto]))
       ORDER BY r.id LIMIT $1`,
      [limit],
    );
    return result.rows.map((r) => r.refund_id);
  }
}
