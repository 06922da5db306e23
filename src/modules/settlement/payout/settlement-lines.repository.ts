import { Injectable } from '@nestjs/common';
import type { SqlClient } from '../../../database/database.service.js';
import { LINE_FAILURE_REORGED_OUT, type LineFailureReason } from '../creation/settlement.types.js';

/**
 * Line state transitions. Each UPDATE names the state it leaves, so a replayed or concurrent step
 * changes nothing and the caller can assert the row count.
 */
@Injectable()
export class SettlementLinesRepository {
  /** queued -> submitted, in the same transaction as the signed transaction's row. */
  async markSubmitted(client: SqlClient, lineIds: string[], txId: string): Promise<number> {
    const result = await client.query(
      `UPDATE settlement_lines SET status = 'submitted', tx_id = $2 WHERE id = ANY($1::uuid[]) AND status = 'queued' AND tx_id IS NULL`,
      [lineIds, txId],
    );
    return result.rowCount ?? 0;
  }

  /** A fee-bump replacement carries the same lines: they follow the newest attempt. */
  async moveToTx(client: SqlClient, fromTxIds: string[], toTxId: string): Promise<number> {
    const result = await client.query(
      `UPDATE settlement_lines SET tx_id = $2 WHERE tx_id = ANY($1::uuid[]) AND status = 'submitted'`,
      [fromTxIds, toTxId],
    );
    return result.rowCount ?? 0;
  }

  async markPaid(client: SqlClient, lineIds: string[], txId: string): Promise<number> {
    if (lineIds.length === 0) return 0;
    const result = await client.query(
      `UPDATE settlement_lines SET status = 'paid', tx_id = $2, confirmed_at = now() WHERE id = ANY($1::uuid[]) AND status = 'submitted'`,
      [lineIds, txId],
    );
    return result.rowCount ?? 0;
  }

  /** queued or submitted -> failed; txId records the transaction that tried (null before any). */
  async markFailed(client: SqlClient, lineIds: string[], reason: LineFailureReason, txId: string | null): Promise<number> {
    if (lineIds.length === 0) return 0;
    const result = await client.query(
      `UPDATE settlement_lines SET status = 'failed', failure_reason = $2, tx_id = $3
       WHERE id = ANY($1::uuid[]) AND status IN ('queued', 'submitted')`,
      [lineIds, reason, txId],
    );
    return result.rowCount ?? 0;
  }

  /** paid -> failed: a reorganisation removed the payment for good (the ledger entry reverses it). */
  async markReorgedOut(client: SqlClient, lineIds: string[]): Promise<number> {
    if (lineIds.length === 0) return 0;
    const result = await client.query(
      `UPDATE settlement_lines SET status = 'failed', failure_reason = $2, confirmed_at = NULL WHERE id = ANY($1::uuid[]) AND status = 'paid'`,
      [lineIds, LINE_FAILURE_REORGED_OUT],
    );
    return result.rowCount ?? 0;
  }

  /** After a reorganisation another attempt of the nonce was mined: the booked lines follow it. */
  async moveBooked(client: SqlClient, fromTxId: string, toTxId: string): Promise<number> {
    const result = await client.query(`UPDATE settlement_lines SET tx_id = $2 WHERE tx_id = $1 AND status IN ('paid', 'failed')`, [fromTxId, toTxId]);
    return result.rowCount ?? 0;
  }

  /** A transaction proven never to pay (reverted, or its nonce taken): its lines may be sent again. */
  async requeueOfTxs(client: SqlClient, txIds: string[]): Promise<number> {
    const result = await client.query(
      `UPDATE settlement_lines SET status = 'queued', tx_id = NULL WHERE tx_id = ANY($1::uuid[]) AND status = 'submitted'`,
      [txIds],
    );
    return result.rowCount ?? 0;
  }

  /**
   * Flags the contributors of refused lines, so the next settlements skip them until an admin
   * looks. Only while the contributor's address is still the line's: an address changed since
   * (the fix) is not blocked by a refusal of the old one. Written here because the contributors
   * module exposes no flagging method for a transaction.
   */
  async flagContributors(client: SqlClient, lines: ReadonlyArray<{ contributorId: string; payoutAddress: string }>, reason: string): Promise<void> {
    if (lines.length === 0) return;
    await client.query(
      `UPDATE contributors c SET flagged_reason = $3, updated_at = now()
       FROM unnest($1::text[], $2::text[]) AS x(id, address)
       WHERE c.id = x.id AND lower(c.payout_address) = lower(x.address) AND c.flagged_reason IS NULL`,
      [lines.map((l) => l.contributorId), lines.map((l) => l.payoutAddress), reason],
    );
  }
}
