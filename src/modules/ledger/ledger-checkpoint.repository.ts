import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';
import { ENTRY_SUM, type LedgerCheckRow } from './ledger.repository.js';

export interface LedgerCheckpointRow {
  id: bigint;
  throughEntryId: bigint;
  entries: bigint;
  accounts: number;
  digest: string;
  createdAt: Date;
}

/** Postings of the entries after a position, per account: the only part of the journal a checkpointed check reads. */
const POSTED_AFTER_CTE = `after AS (
     SELECT p.code, sum(p.amount) AS total
     FROM journal_entries e, unnest(e.account_codes, e.amounts_atto) AS p(code, amount)
     WHERE e.id > $2::bigint AND e.id <= $3::bigint
     GROUP BY p.code
   ), posted AS (
     SELECT code, sum(total) AS total FROM (
       SELECT account_code AS code, total_atto AS total FROM ledger_checkpoint_balances WHERE checkpoint_id = $1::bigint
       UNION ALL SELECT code, total FROM after) AS x
     GROUP BY code
   )`;

/** sha256 of the balances as `code=total` lines in bytewise code order: what a checkpoint's digest covers. */
const DIGEST_SQL = `SELECT encode(sha256(convert_to(coalesce(string_agg(account_code || '=' || total_atto::text, E'\\n' ORDER BY account_code COLLATE "C"), ''), 'UTF8')), 'hex') AS digest,
     count(*)::int AS accounts, coalesce(sum(total_atto), 0) AS total
   FROM ledger_checkpoint_balances WHERE checkpoint_id = $1`;

/**
 * SQL of ledger checkpoints (docs/history.md): per-account sums of the journal up to an entry id,
 * so GET /v1/admin/ledger/check reads only the entries written after the last one.
 */
@Injectable()
export class LedgerCheckpointRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * The journal's frontier: the largest entry id such that every transaction that could still
   * write a smaller one has ended. A SHARE lock waits for the writers in flight (an INSERT holds
   * ROW EXCLUSIVE until it commits) and is released at once; ingestion pauses for that wait only.
   * While the request waits behind a long writer every new writer queues behind it, so the wait is
   * bounded by `lockTimeout` (a Postgres interval); not granted in time, it throws.
   */
  async frontier(lockTimeout: string): Promise<bigint> {
    return this.db.transaction(async (client) => {
      await client.query(`SET LOCAL lock_timeout = '${lockTimeout}'`);
      await client.query('LOCK TABLE journal_entries IN SHARE MODE');
      const result = await client.query<{ id: string }>('SELECT coalesce(max(id), 0) AS id FROM journal_entries');
      return toBigInt(result.rows[0]!.id);
    });
  }

  async latest(client: SqlClient): Promise<LedgerCheckpointRow | null> {
    const result = await client.query<{ id: string; through_entry_id: string; entries: string; accounts: number; digest: string; created_at: Date }>(
      'SELECT id, through_entry_id, entries, accounts, digest, created_at FROM ledger_checkpoints ORDER BY id DESC LIMIT 1',
    );
    const r = result.rows[0];
    return r ? { id: toBigInt(r.id), throughEntryId: toBigInt(r.through_entry_id), entries: toBigInt(r.entries), accounts: r.accounts, digest: r.digest, createdAt: r.created_at } : null;
  }

  /** The digest, account count and total of a checkpoint's balance rows as stored now. */
  async digestOf(client: SqlClient, checkpointId: bigint): Promise<{ digest: string; accounts: number; totalAtto: bigint }> {
    const result = await client.query<{ digest: string; accounts: number; total: string }>(DIGEST_SQL, [checkpointId.toString()]);
    const r = result.rows[0]!;
    return { digest: r.digest, accounts: r.accounts, totalAtto: toBigInt(r.total) };
  }

  /** Entries in (afterId, throughId]: how many, their sum, how many do not balance, the largest id. */
  async totalsBetween(client: SqlClient, afterId: bigint, throughId: bigint | null): Promise<{ entries: bigint; postingsSumAtto: bigint; unbalancedEntries: bigint; maxId: bigint }> {
    const result = await client.query<{ entries: string; total: string; unbalanced: string; max_id: string }>(
      `SELECT count(*) AS entries, coalesce(sum(sum_atto), 0) AS total, count(*) FILTER (WHERE sum_atto <> 0) AS unbalanced, coalesce(max(id), $1::bigint) AS max_id
       FROM (SELECT id, ${ENTRY_SUM} AS sum_atto FROM journal_entries WHERE id > $1::bigint AND ($2::bigint IS NULL OR id <= $2::bigint)) AS e`,
      [afterId.toString(), throughId?.toString() ?? null],
    );
    const r = result.rows[0]!;
    return { entries: toBigInt(r.entries), postingsSumAtto: toBigInt(r.total), unbalancedEntries: toBigInt(r.unbalanced), maxId: toBigInt(r.max_id) };
  }

  /**
   * The checkpointed check in one statement (issue 35): the checkpoint's rows as stored now (digest,
   * count, total) and the entries in (afterId, throughId], by a range of the primary key:
   * how many, their sum, how many do not balance, and the accounts whose stored balance differs from
   * the checkpoint's sums plus their postings (or that have postings but no row). Before: three
   * statements (the digest, the totals with ledger_sum() twice per entry, the per-account sums).
   */
  async verifyAfter(
    client: SqlClient,
    checkpointId: bigint,
    afterId: bigint,
    throughId: bigint,
    limit: number,
  ): Promise<{ stored: { digest: string; accounts: number; totalAtto: bigint }; entries: bigint; postingsSumAtto: bigint; unbalancedEntries: bigint; mismatched: LedgerCheckRow[] }> {
    const result = await client.query<{ digest: string; accounts: number; stored_total: string; entries: string; total: string; unbalanced: string; mismatched: Array<{ code: string; stored: string | null; posted: string }> | null }>(
      `WITH totals AS (
         SELECT count(*) AS entries, coalesce(sum(sum_atto), 0) AS total, count(*) FILTER (WHERE sum_atto <> 0) AS unbalanced
         FROM (SELECT ${ENTRY_SUM} AS sum_atto FROM journal_entries WHERE id > $2::bigint AND id <= $3::bigint) AS e
       ),
       -- The same range again, not a MATERIALIZED CTE of the entries: their arrays spilled to temp
       -- files past work_mem (20,000 entries: 321-666 ms against 236-331 ms, load 18).
       ${POSTED_AFTER_CTE}, mismatched AS (
         SELECT coalesce(a.code, p.code) AS code, a.balance_atto AS stored, coalesce(p.total, 0) AS posted
         FROM accounts a FULL JOIN posted p ON p.code = a.code
         WHERE (a.code IS NULL) OR (a.tracked AND a.balance_atto <> coalesce(p.total, 0))
         ORDER BY 1 LIMIT $4
       )
       SELECT d.digest, d.accounts, d.total AS stored_total,
              t.entries, t.total, t.unbalanced,
              (SELECT json_agg(json_build_object('code', code, 'stored', stored::text, 'posted', posted::text) ORDER BY code) FROM mismatched) AS mismatched
       FROM (${DIGEST_SQL}) AS d, totals AS t`,
      [checkpointId.toString(), afterId.toString(), throughId.toString(), limit],
    );
    const r = result.rows[0]!;
    return {
      stored: { digest: r.digest, accounts: r.accounts, totalAtto: toBigInt(r.stored_total) },
      entries: toBigInt(r.entries),
      postingsSumAtto: toBigInt(r.total),
      unbalancedEntries: toBigInt(r.unbalanced),
      mismatched: (r.mismatched ?? []).map((m) => ({ code: m.code, storedAtto: m.stored === null ? null : toBigInt(m.stored), postedAtto: toBigInt(m.posted) })),
    };
  }

  /**
   * Writes a checkpoint at throughId from the previous one (or from nothing) plus the entries in
   * between, and its digest; returns its id. The caller verifies it in the same transaction.
   */
  async insert(client: SqlClient, previous: LedgerCheckpointRow | null, throughId: bigint, entries: bigint): Promise<bigint> {
    const created = await client.query<{ id: string }>(
      `INSERT INTO ledger_checkpoints (through_entry_id, entries, accounts, digest) VALUES ($1, $2, 0, '') RETURNING id`,
      [throughId.toString(), entries.toString()],
    );
    const id = toBigInt(created.rows[0]!.id);
    await client.query(
      `WITH ${POSTED_AFTER_CTE}
       INSERT INTO ledger_checkpoint_balances (checkpoint_id, account_code, total_atto)
       SELECT $4::bigint, code, total FROM posted ORDER BY code`,
      [(previous?.id ?? 0n).toString(), (previous?.throughEntryId ?? 0n).toString(), throughId.toString(), id.toString()],
    );
    const { digest, accounts } = await this.digestOf(client, id);
    await client.query('UPDATE ledger_checkpoints SET digest = $2, accounts = $3 WHERE id = $1', [id.toString(), digest, accounts]);
    return id;
  }

  /** Keeps the newest `keep` checkpoints. */
  async prune(client: SqlClient, keep: number): Promise<void> {
    await client.query('DELETE FROM ledger_checkpoints WHERE id NOT IN (SELECT id FROM ledger_checkpoints ORDER BY id DESC LIMIT $1)', [keep]);
  }
}
