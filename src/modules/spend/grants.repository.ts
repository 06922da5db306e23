import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient, type SqlRunner } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';
import { PLATFORM_REVENUE } from '../ledger/account-codes.js';

export interface GrantRecord {
  grantId: string;
  userId: string;
  name: string | null;
  amountAtto: bigint;
  expiresAt: Date;
  /** When the worker moved the remainder to revenue (null: not yet). */
  expiredAt: Date | null;
  breakageAtto: bigint | null;
  createdAt: Date;
  /** What the grant's account holds now. */
  remainingAtto: bigint;
}

interface GrantRow {
  grant_id: string;
  user_id: string;
  name: string | null;
  amount_atto: string;
  expires_at: Date;
  expired_at: Date | null;
  breakage_atto: string | null;
  created_at: Date;
  remaining_atto: string;
}

const GRANT_COLUMNS = `g.grant_id, g.user_id, g.name, g.amount_atto, g.expires_at, g.expired_at, g.breakage_atto, g.created_at,
  coalesce(a.balance_atto, 0) AS remaining_atto`;
const GRANT_FROM = `user_grants g LEFT JOIN accounts a ON a.code = 'grant:' || g.grant_id`;

const grantFromRow = (r: GrantRow): GrantRecord => ({
  grantId: r.grant_id,
  userId: r.user_id,
  name: r.name,
  amountAtto: toBigInt(r.amount_atto),
  expiresAt: r.expires_at,
  expiredAt: r.expired_at,
  breakageAtto: r.breakage_atto === null ? null : toBigInt(r.breakage_atto),
  createdAt: r.created_at,
  remainingAtto: toBigInt(r.remaining_atto),
});

/** user_grants rows with their accounts' balances. Journal and balance writes go through the ledger. */
@Injectable()
export class GrantsRepository {
  constructor(private readonly db: DatabaseService) {}

  async insert(client: SqlClient, grant: { grantId: string; userId: string; name: string | null; amountAtto: bigint; expiresAt: Date; journalEntryId: bigint }): Promise<void> {
    await client.query(
      `INSERT INTO user_grants (grant_id, user_id, name, amount_atto, expires_at, journal_entry_id) VALUES ($1, $2, $3, $4, $5, $6)`,
      [grant.grantId, grant.userId, grant.name, grant.amountAtto.toString(), grant.expiresAt, grant.journalEntryId.toString()],
    );
  }

  async find(runner: SqlRunner, grantId: string): Promise<GrantRecord | null> {
    const result = await runner.query<GrantRow>(`SELECT ${GRANT_COLUMNS} FROM ${GRANT_FROM} WHERE g.grant_id = $1`, [grantId]);
    return result.rows[0] ? grantFromRow(result.rows[0]) : null;
  }

  /** A user's grants, the one expiring first first (the consumption order; ties by id). */
  async ofUser(runner: SqlRunner, userId: string): Promise<GrantRecord[]> {
    const result = await runner.query<GrantRow>(`SELECT ${GRANT_COLUMNS} FROM ${GRANT_FROM} WHERE g.user_id = $1 ORDER BY g.expires_at, g.grant_id COLLATE "C"`, [userId]);
    return result.rows.map(grantFromRow);
  }

  /** Grants of these users not broken yet and expiring after `at` (the ones a charge at `at` may draw from). */
  async usableOfUsers(client: SqlClient, userIds: readonly string[], at: Date): Promise<GrantRecord[]> {
    const result = await client.query<GrantRow>(
      `SELECT ${GRANT_COLUMNS} FROM ${GRANT_FROM}
       WHERE g.user_id = ANY($1::text[]) AND g.expired_at IS NULL AND g.expires_at > $2
       ORDER BY g.user_id, g.expires_at, g.grant_id COLLATE "C"`,
      [userIds, at],
    );
    return result.rows.map(grantFromRow);
  }

  /** What all users' grants usable at `at` hold (the admin overview): grants not broken, expiring after `at`. */
  async usableTotal(runner: SqlRunner, at: Date): Promise<bigint> {
    const result = await runner.query<{ total: string }>(
      `SELECT coalesce(sum(a.balance_atto), 0) AS total FROM ${GRANT_FROM} WHERE g.expired_at IS NULL AND g.expires_at > $1 AND a.balance_atto > 0`,
      [at],
    );
    return toBigInt(result.rows[0]!.total);
  }

  /**
   * What expired grants moved to platform revenue (the admin overview): every breakage, plus the
   * parts of refunds that went back to a grant already broken (grant_refund's revenue posting).
   */
  async breakageTotal(runner: SqlRunner): Promise<bigint> {
    const result = await runner.query<{ total: string }>(
      `SELECT (SELECT coalesce(sum(breakage_atto), 0) FROM user_grants WHERE expired_at IS NOT NULL)
        + (SELECT coalesce(sum(p.amount), 0) FROM journal_entries e, unnest(e.account_codes, e.amounts_atto) AS p(code, amount)
           WHERE e.kind = 'grant_refund' AND p.code = $1) AS total`,
      [PLATFORM_REVENUE],
    );
    return toBigInt(result.rows[0]!.total);
  }

  /** Grants of the given ids (a refund's), locked: breakage of one waits, or is seen done. */
  async lockMany(client: SqlClient, grantIds: readonly string[]): Promise<GrantRecord[]> {
    const result = await client.query<GrantRow>(
      `SELECT ${GRANT_COLUMNS} FROM ${GRANT_FROM} WHERE g.grant_id = ANY($1::text[]) ORDER BY g.grant_id COLLATE "C" FOR UPDATE OF g`,
      [grantIds],
    );
    return result.rows.map(grantFromRow);
  }

  /** Grants past expiry whose breakage has not run, the oldest first (user_grants_due_idx). */
  async due(at: Date, limit: number): Promise<Array<{ grantId: string; userId: string }>> {
    const result = await this.db.pool.query<{ grant_id: string; user_id: string }>(
      'SELECT grant_id, user_id FROM user_grants WHERE expired_at IS NULL AND expires_at <= $1 ORDER BY expires_at, grant_id LIMIT $2',
      [at, limit],
    );
    return result.rows.map((r) => ({ grantId: r.grant_id, userId: r.user_id }));
  }

  /**
   * What the user's grants not broken yet that expire after the given one (in the breakage order:
   * expires_at, then grant_id as `due` sorts them) hold now: the grants still in the user's balance
   * once that one has expired.
   */
  async laterUnbrokenOfUser(client: SqlClient, userId: string, after: { grantId: string; expiresAt: Date }): Promise<bigint> {
    const result = await client.query<{ total: string }>(
      `SELECT coalesce(sum(greatest(a.balance_atto, 0)), 0) AS total FROM ${GRANT_FROM}
       WHERE g.user_id = $1 AND g.expired_at IS NULL AND (g.expires_at, g.grant_id) > ($2::timestamptz, $3::text)`,
      [userId, after.expiresAt, after.grantId],
    );
    return toBigInt(result.rows[0]!.total);
  }

  async markBroken(client: SqlClient, grantId: string, at: Date, breakageAtto: bigint): Promise<void> {
    await client.query('UPDATE user_grants SET expired_at = $2, breakage_atto = $3 WHERE grant_id = $1', [grantId, at, breakageAtto.toString()]);
  }

  /** What an event's grant_use entry drew from each grant (empty: grants paid none of it). */
  async drawnByEvent(client: SqlClient, eventId: string): Promise<Array<{ grantId: string; amountAtto: bigint; expiresAt: Date }>> {
    const result = await client.query<{ grant_id: string; amount: string; expires_at: Date }>(
      `SELECT g.grant_id, -p.amount AS amount, g.expires_at
       FROM journal_entries e, unnest(e.account_codes, e.amounts_atto) AS p(code, amount)
       JOIN user_grants g ON 'grant:' || g.grant_id = p.code
       WHERE e.kind = 'grant_use' AND e.ref = $1 AND p.amount < 0`,
      [eventId],
    );
    return result.rows.map((r) => ({ grantId: r.grant_id, amountAtto: toBigInt(r.amount), expiresAt: r.expires_at }));
  }
}
