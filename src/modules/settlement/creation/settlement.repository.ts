import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient } from '../../../database/database.service.js';
import { toBigInt } from '../../../database/sql.js';
import { LINE_COLUMNS, SETTLEMENT_COLUMNS, toLine, toSettlement, type LineRow, type SettlementRow } from './settlement-rows.js';
import type { LineStatus, SettlementLineRecord, SettlementRecord, SettlementStatus, SettlementTrigger } from './settlement.types.js';

type Runner = SqlClient | DatabaseService['pool'];
export type PagedSettlement = SettlementRecord & { createdUs: string };
export type PagedLine = SettlementLineRecord & { createdUs: string };
export interface TimeCursor {
  us: string;
  id: string;
}

/** Settlements and their lines. Raw SQL throughout: every write runs inside a pg transaction. */
@Injectable()
export class SettlementRepository {
  constructor(private readonly db: DatabaseService) {}

  async findById(id: string, runner: Runner = this.db.pool): Promise<SettlementRecord | null> {
    const result = await runner.query<SettlementRow>(`SELECT ${SETTLEMENT_COLUMNS} FROM settlements s WHERE s.id = $1`, [id]);
    return result.rows[0] ? toSettlement(result.rows[0]) : null;
  }

  async lockById(client: SqlClient, id: string): Promise<SettlementRecord | null> {
    const result = await client.query<SettlementRow>(`SELECT ${SETTLEMENT_COLUMNS} FROM settlements s WHERE s.id = $1 FOR UPDATE`, [id]);
    return result.rows[0] ? toSettlement(result.rows[0]) : null;
  }

  async findOpen(): Promise<SettlementRecord | null> {
    const result = await this.db.pool.query<SettlementRow>(
      `SELECT ${SETTLEMENT_COLUMNS} FROM settlements s WHERE s.status IN ('pending_approval', 'queued', 'submitting') LIMIT 1`,
    );
    return result.rows[0] ? toSettlement(result.rows[0]) : null;
  }

  /** Settlements a send job must exist for (approved, not finished), or those of `statuses` among them. */
  async listSendable(limit: number, statuses: ReadonlyArray<'queued' | 'submitting'> = ['queued', 'submitting']): Promise<string[]> {
    const result = await this.db.pool.query<{ id: string }>(
      `SELECT id FROM settlements WHERE status = ANY($2::text[]) ORDER BY created_at LIMIT $1`,
      [limit, statuses],
    );
    return result.rows.map((r) => r.id);
  }

  /** Micro-USDC of the lines paid per UTC day of confirmation in [fromDay, toDay) (days without any are absent). */
  async paidMicroUsdcPerDay(fromDay: string, toDay: string): Promise<Map<string, bigint>> {
    const result = await this.db.pool.query<{ day: string; paid: string }>(
      `SELECT to_char((confirmed_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, sum(amount_micro_usdc) AS paid
       FROM settlement_lines
       WHERE status = 'paid' AND confirmed_at >= ($1::date::timestamp AT TIME ZONE 'UTC') AND confirmed_at < ($2::date::timestamp AT TIME ZONE 'UTC')
       GROUP BY 1`,
      [fromDay, toDay],
    );
    return new Map(result.rows.map((r) => [r.day, toBigInt(r.paid)]));
  }

  async findLatest(): Promise<SettlementRecord | null> {
    const result = await this.db.pool.query<SettlementRow>(`SELECT ${SETTLEMENT_COLUMNS} FROM settlements s ORDER BY s.created_at DESC, s.id DESC LIMIT 1`);
    return result.rows[0] ? toSettlement(result.rows[0]) : null;
  }

  /** Takes the single open slot first (unique index): a concurrent run waits here, then conflicts. */
  async insertOpen(client: SqlClient, input: { id: string; trigger: SettlementTrigger }): Promise<void> {
    await client.query(
      `INSERT INTO settlements (id, status, trigger, payout_count, total_micro_usdc, requires_approval) VALUES ($1, 'queued', $2, 0, 0, false)`,
      [input.id, input.trigger],
    );
  }

  async completeCreation(client: SqlClient, input: { id: string; status: SettlementStatus; payoutCount: number; totalMicroUsdc: bigint; requiresApproval: boolean }): Promise<void> {
    await client.query(
      `UPDATE settlements SET status = $2, payout_count = $3, total_micro_usdc = $4, requires_approval = $5, updated_at = now() WHERE id = $1`,
      [input.id, input.status, input.payoutCount, input.totalMicroUsdc.toString(), input.requiresApproval],
    );
  }

  async insertLines(client: SqlClient, settlementId: string, lines: Array<{ id: string; contributorId: string; payoutAddress: string; amountMicroUsdc: bigint }>): Promise<void> {
    const rows = lines.map((line, index) => ({ id: line.id, idx: index, cid: line.contributorId, addr: line.payoutAddress, amt: line.amountMicroUsdc.toString() }));
    await client.query(
      `INSERT INTO settlement_lines (id, settlement_id, line_index, contributor_id, payout_address, amount_micro_usdc, status)
       SELECT x.id, $1, x.idx, x.cid, x.addr, x.amt, 'queued'
       FROM json_to_recordset($2::json) AS x(id uuid, idx int, cid text, addr text, amt numeric)`,
      [settlementId, JSON.stringify(rows)],
    );
  }

  async markApproved(client: SqlClient, id: string, approvedBy: string): Promise<void> {
    await client.query(
      `UPDATE settlements SET status = 'queued', approved_by = $2, approved_at = now(), updated_at = now() WHERE id = $1 AND status = 'pending_approval'`,
      [id, approvedBy],
    );
  }

  async markSubmitting(id: string): Promise<void> {
    await this.db.pool.query(`UPDATE settlements SET status = 'submitting', updated_at = now() WHERE id = $1 AND status = 'queued'`, [id]);
  }

  async setLastError(id: string, message: string | null, runner: Runner = this.db.pool): Promise<void> {
    await runner.query(`UPDATE settlements SET last_error = $2, updated_at = now() WHERE id = $1`, [id, message]);
  }

  async finishSend(client: SqlClient, id: string, status: SettlementStatus): Promise<boolean> {
    const result = await client.query(
      `UPDATE settlements SET status = $2, completed_at = now(), updated_at = now() WHERE id = $1 AND status = 'submitting'`,
      [id, status],
    );
    return result.rowCount === 1;
  }

  /** A finished settlement whose lines a reorganisation changed: its final status follows them. */
  async refreshFinishedStatus(client: SqlClient, id: string, status: SettlementStatus): Promise<void> {
    await client.query(
      `UPDATE settlements SET status = $2, updated_at = now() WHERE id = $1 AND status IN ('confirmed', 'partially_failed', 'failed')`,
      [id, status],
    );
  }

  /**
   * Stores a reconciliation unless one that read the chain later is stored already (two runs of one
   * settlement overlap when a reorganisation enqueues another while one reads: the older view must
   * not overwrite the newer). Returns whether it was stored.
   */
  async setReconciliation(client: SqlClient, id: string, reconciliation: { checked_at: string }): Promise<boolean> {
    const result = await client.query(
      `UPDATE settlements SET reconciliation = $2::jsonb, updated_at = now()
       WHERE id = $1 AND (reconciliation IS NULL OR (reconciliation->>'checked_at')::timestamptz <= $3::timestamptz)`,
      [id, JSON.stringify(reconciliation), reconciliation.checked_at],
    );
    return result.rowCount === 1;
  }

  /** The database's clock: one clock for every worker, so reconciliations order by when they began. */
  async databaseNow(): Promise<Date> {
    const result = await this.db.pool.query<{ now: Date }>('SELECT clock_timestamp() AS now');
    return result.rows[0]!.now;
  }

  /** Newest first; the cursor is (created_at in microseconds, id) of the last row seen. */
  async list(limit: number, cursor: TimeCursor | null): Promise<PagedSettlement[]> {
    const result = await this.db.readPool.query<SettlementRow>(
      `SELECT ${SETTLEMENT_COLUMNS} FROM settlements s
       WHERE $1::bigint IS NULL OR (s.created_at, s.id) < ('epoch'::timestamptz + $1::bigint * interval '1 microsecond', $2::uuid)
       ORDER BY s.created_at DESC, s.id DESC LIMIT $3`,
      [cursor?.us ?? null, cursor?.id ?? null, limit],
    );
    return result.rows.map(toSettlement);
  }

  async listLines(settlementId: string, runner: Runner = this.db.pool): Promise<SettlementLineRecord[]> {
    const result = await runner.query<LineRow>(
      `SELECT ${LINE_COLUMNS} FROM settlement_lines l LEFT JOIN settlement_txs t ON t.id = l.tx_id
       WHERE l.settlement_id = $1 ORDER BY l.line_index`,
      [settlementId],
    );
    return result.rows.map(toLine);
  }

  async listLinesWithStatus(settlementId: string, status: LineStatus): Promise<SettlementLineRecord[]> {
    const result = await this.db.pool.query<LineRow>(
      `SELECT ${LINE_COLUMNS} FROM settlement_lines l LEFT JOIN settlement_txs t ON t.id = l.tx_id
       WHERE l.settlement_id = $1 AND l.status = $2 ORDER BY l.line_index`,
      [settlementId, status],
    );
    return result.rows.map(toLine);
  }

  /** The lines a transaction (any attempt of its batch) carries, in the order they were encoded. */
  async listLinesOfTxs(txIds: string[], runner: Runner = this.db.pool): Promise<SettlementLineRecord[]> {
    const result = await runner.query<LineRow>(
      `SELECT ${LINE_COLUMNS} FROM settlement_lines l LEFT JOIN settlement_txs t ON t.id = l.tx_id
       WHERE l.tx_id = ANY($1::uuid[]) ORDER BY l.line_index`,
      [txIds],
    );
    return result.rows.map(toLine);
  }

  async countLinesByStatus(settlementId: string, runner: Runner = this.db.pool): Promise<Record<LineStatus, number>> {
    const result = await runner.query<{ status: LineStatus; n: number }>(
      `SELECT status, count(*)::int AS n FROM settlement_lines WHERE settlement_id = $1 GROUP BY status`,
      [settlementId],
    );
    const counts: Record<LineStatus, number> = { queued: 0, submitted: 0, paid: 0, failed: 0 };
    for (const row of result.rows) counts[row.status] = row.n;
    return counts;
  }

  async listContributorPayouts(contributorId: string, limit: number, cursor: TimeCursor | null): Promise<PagedLine[]> {
    const result = await this.db.pool.query<LineRow>(
      `SELECT ${LINE_COLUMNS} FROM settlement_lines l LEFT JOIN settlement_txs t ON t.id = l.tx_id
       WHERE l.contributor_id = $1
         AND ($2::bigint IS NULL OR (l.created_at, l.id) < ('epoch'::timestamptz + $2::bigint * interval '1 microsecond', $3::uuid))
       ORDER BY l.created_at DESC, l.id DESC LIMIT $4`,
      [contributorId, cursor?.us ?? null, cursor?.id ?? null, limit],
    );
    return result.rows.map(toLine);
  }
}
