import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient, type SqlRunner } from '../../database/database.service.js';
import { arrayLiteral, preparedStatement, toBigInt } from '../../database/sql.js';
import { describeAccount, type AccountKind } from './account-codes.js';
import { postingArrayLiterals, type BalanceDelta, type JournalDraft } from './journal-draft.js';

export interface AccountBalance {
  code: string;
  balanceAtto: bigint;
  heldAtto: bigint;
  /** A user's account: the latest expiry of its credit grants (null: none). */
  grantsUntil?: Date | null;
}

export type ContributorSort = 'id' | 'payable_desc';

/** A contributor of the registry with its accounts' stored balances (zero for an account not created yet). */
export interface ContributorBalanceRow {
  id: string;
  tier: string;
  status: string;
  payoutAddress: string;
  pendingAtto: bigint;
  payableAtto: bigint;
  inSettlementAtto: bigint;
  paidAtto: bigint;
}

/** Keyset position: the sort key of the last row of the previous page. */
export type ContributorCursor = { sort: 'id'; id: string } | { sort: 'payable_desc'; payableAtto: bigint; id: string };

// Balances joined by account code; a contributor without an account yet has zero balances.
const CONTRIBUTOR_PAGE_SELECT = `
  SELECT c.id, c.tier, c.status, c.payout_address,
         coalesce(m.balance_atto, 0) AS pending_atto,
         coalesce(p.balance_atto, 0) AS payable_atto,
         coalesce(s.balance_atto, 0) AS in_settlement_atto,
         coalesce(d.balance_atto, 0) AS paid_atto
  FROM contributors c
  LEFT JOIN accounts m ON m.code = 'contributor:' || c.id || ':pending'
  LEFT JOIN accounts p ON p.code = 'contributor:' || c.id || ':payable'
  LEFT JOIN accounts s ON s.code = 'contributor:' || c.id || ':in_settlement'
  LEFT JOIN accounts d ON d.code = 'contributor:' || c.id || ':paid'`;

export interface LedgerCheckRow {
  code: string;
  storedAtto: bigint | null;
  postedAtto: bigint;
}

const INSERT_ENTRIES = preparedStatement('ledger_insert_entries', `INSERT INTO journal_entries (kind, ref, account_codes, amounts_atto, memo)
   SELECT kind, ref, codes::text[], amounts::numeric[], memo
   FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) AS x(kind, ref, codes, amounts, memo)
   ON CONFLICT (kind, ref) DO NOTHING
   RETURNING id, kind, ref`);

const UPSERT_BALANCES = preparedStatement('ledger_upsert_balances', `INSERT INTO accounts (code, kind, owner_id, tracked, balance_atto, held_atto)
   SELECT code, kind, owner, true, balance, held
   FROM json_to_recordset($1::json) AS x(code text, kind text, owner text, balance numeric, held numeric)
   ORDER BY code
   ON CONFLICT (code) DO UPDATE
     SET balance_atto = accounts.balance_atto + excluded.balance_atto,
         held_atto = accounts.held_atto + excluded.held_atto
   RETURNING code, balance_atto, grants_until, spend_rollup`);

const DECREASE_HELD = preparedStatement('ledger_decrease_held', `UPDATE accounts a SET held_atto = a.held_atto + x.held
   FROM json_to_recordset($1::json) AS x(code text, held numeric) WHERE a.code = x.code`);

/** How long a whole-journal read of the full ledger check may take. */
const LEDGER_FULL_SCAN_TIMEOUT = '10min';

/**
 * A journal entry's sum of postings, inline: the ledger_sum() SQL function (not inlined by the
 * planner) cost 4-5x as much per entry; twice per entry, 117-150 ms against 30 ms for 10,000
 * entries (load 6, issue 35).
 */
export const ENTRY_SUM = '(SELECT coalesce(sum(x), 0) FROM unnest(amounts_atto) AS x)';

@Injectable()
export class LedgerRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Inserts journal transactions in one statement (one array parameter per column, each entry's
   * postings as the text of an array literal: cheap for Postgres to read for hundreds of entries).
   * ON CONFLICT keeps a replayed fact from posting twice; returns refs actually written.
   */
  async insertEntries(client: SqlClient, drafts: JournalDraft[]): Promise<Map<string, bigint>> {
    if (drafts.length === 0) return new Map();
    const n = drafts.length;
    const kinds: string[] = new Array(n);
    const refs: string[] = new Array(n);
    const codes: string[] = new Array(n);
    const amounts: string[] = new Array(n);
    const memos: Array<string | null> = new Array(n);
    for (let i = 0; i < n; i += 1) {
      const d = drafts[i]!;
      kinds[i] = d.kind;
      refs[i] = d.ref;
      const literals = postingArrayLiterals(d);
      codes[i] = literals.codes;
      amounts[i] = literals.amounts;
      memos[i] = d.memo ?? null;
    }
    const result = await client.query<{ id: string; kind: string; ref: string }>(
      INSERT_ENTRIES([arrayLiteral(kinds), arrayLiteral(refs), arrayLiteral(codes), arrayLiteral(amounts), arrayLiteral(memos)]),
    );
    const written = new Map<string, bigint>();
    for (const r of result.rows) written.set(`${r.kind}/${r.ref}`, BigInt(r.id));
    return written;
  }

  /**
   * Applies net deltas to tracked accounts in code order (no deadlocks), creating them if new;
   * returns each account's balance after the update (user.balance_low looks at the users').
   * The upsert's insert row must satisfy held_atto >= 0 even when it ends up as an update, so
   * held decreases go in a second statement over rows this transaction has already locked.
   */
  async applyDeltas(client: SqlClient, deltas: BalanceDelta[], grantsUntil?: Map<string, Date>, spendRollup?: Set<string>): Promise<Map<string, bigint>> {
    const balancesAfter = new Map<string, bigint>();
    if (deltas.length === 0) return balancesAfter;
    const rows = deltas.map((d) => {
      const info = describeAccount(d.accountCode);
      const heldIncrease = d.heldDeltaAtto > 0n ? d.heldDeltaAtto : 0n;
      return { code: d.accountCode, kind: info.kind, owner: info.ownerId, balance: d.balanceDeltaAtto.toString(), held: heldIncrease.toString() };
    });
    const upserted = await client.query<{ code: string; balance_atto: string; grants_until: Date | null; spend_rollup: boolean }>(UPSERT_BALANCES([JSON.stringify(rows)]));
    for (const row of upserted.rows) {
      balancesAfter.set(row.code, BigInt(row.balance_atto));
      // Returned by the upsert that locks the row anyway: grants cost users without them nothing.
      if (row.grants_until !== null && grantsUntil) grantsUntil.set(row.code, row.grants_until);
      // Users with budgets (their spend rollup is written under this lock): likewise free for the others.
      if (row.spend_rollup && spendRollup) spendRollup.add(row.code);
    }
    const decreases = deltas.filter((d) => d.heldDeltaAtto < 0n).map((d) => ({ code: d.accountCode, held: d.heldDeltaAtto.toString() }));
    if (decreases.length > 0) await client.query(DECREASE_HELD([JSON.stringify(decreases)]));
    return balancesAfter;
  }

  async ensureAccount(client: SqlClient, code: string): Promise<void> {
    const info = describeAccount(code);
    await client.query(
      `INSERT INTO accounts (code, kind, owner_id, tracked) VALUES ($1, $2, $3, $4) ON CONFLICT (code) DO NOTHING`,
      [code, info.kind, info.ownerId, info.tracked],
    );
  }

  async findBalances(codes: string[], client?: SqlClient): Promise<Map<string, AccountBalance>> {
    const runner = client ?? this.db.pool;
    const result = await runner.query<{ code: string; balance_atto: string; held_atto: string; grants_until: Date | null }>(
      'SELECT code, balance_atto, held_atto, grants_until FROM accounts WHERE code = ANY($1::text[])',
      [codes],
    );
    return new Map(result.rows.map((r) => [r.code, { code: r.code, balanceAtto: toBigInt(r.balance_atto), heldAtto: toBigInt(r.held_atto), grantsUntil: r.grants_until }]));
  }

  /** Locks one account row for the rest of the transaction (creating it if new). */
  async lockAccount(client: SqlClient, code: string): Promise<AccountBalance> {
    await this.ensureAccount(client, code);
    const result = await client.query<{ balance_atto: string; held_atto: string; grants_until: Date | null }>(
      'SELECT balance_atto, held_atto, grants_until FROM accounts WHERE code = $1 FOR UPDATE',
      [code],
    );
    const row = result.rows[0]!;
    return { code, balanceAtto: toBigInt(row.balance_atto), heldAtto: toBigInt(row.held_atto), grantsUntil: row.grants_until };
  }

  /** A user's grants_until moves forward to a new grant's expiry (never back: a stale future value only costs a slower path). */
  async extendGrantsUntil(client: SqlClient, code: string, expiresAt: Date): Promise<void> {
    await client.query('UPDATE accounts SET grants_until = greatest(grants_until, $2::timestamptz) WHERE code = $1', [code, expiresAt]);
  }

  /** Sum of postings for untracked accounts (platform), computed on demand. */
  async sumPostings(code: string): Promise<bigint> {
    const result = await this.db.pool.query<{ total: string }>(
      `SELECT coalesce(sum(amount_atto), 0) AS total FROM ledger_postings WHERE account_code = $1`,
      [code],
    );
    return toBigInt(result.rows[0]!.total);
  }

  /**
   * A whole-journal read of the full ledger check (?full=true, or no checkpoint yet): it grows with
   * the journal, so it runs past the API's statement timeout (30 s), which 10M entries exceed on a
   * slow machine. An admin check, never a hot path.
   */
  private fullScan<T>(read: (client: SqlClient) => Promise<T>): Promise<T> {
    return this.db.transaction(async (client) => {
      await client.query(`SET LOCAL statement_timeout = '${LEDGER_FULL_SCAN_TIMEOUT}'`);
      return read(client);
    });
  }

  async checkTotals(): Promise<{ entries: bigint; postingsSumAtto: bigint; unbalancedEntries: bigint }> {
    const result = await this.fullScan((client) => client.query<{ entries: string; total: string; unbalanced: string }>(
      `SELECT count(*) AS entries, coalesce(sum(sum_atto), 0) AS total, count(*) FILTER (WHERE sum_atto <> 0) AS unbalanced
       FROM (SELECT ${ENTRY_SUM} AS sum_atto FROM journal_entries) AS e`,
    ));
    const row = result.rows[0]!;
    return { entries: toBigInt(row.entries), postingsSumAtto: toBigInt(row.total), unbalancedEntries: toBigInt(row.unbalanced) };
  }

  /** Tracked accounts whose stored balance differs from the sum of their postings. */
  async findMismatchedAccounts(limit: number): Promise<LedgerCheckRow[]> {
    const result = await this.fullScan((client) => client.query<{ code: string; stored: string | null; posted: string }>(
      `WITH posted AS (SELECT account_code, sum(amount_atto) AS total FROM ledger_postings GROUP BY account_code)
       SELECT coalesce(a.code, p.account_code) AS code, a.balance_atto AS stored, coalesce(p.total, 0) AS posted
       FROM accounts a FULL JOIN posted p ON p.account_code = a.code
       WHERE (a.code IS NULL) OR (a.tracked AND a.balance_atto <> coalesce(p.total, 0))
       ORDER BY 1 LIMIT $1`,
      [limit],
    ));
    return result.rows.map((r) => ({ code: r.code, storedAtto: r.stored === null ? null : toBigInt(r.stored), postedAtto: toBigInt(r.posted) }));
  }

  /** Users whose held amount differs from the sum of their active holds. */
  async findHeldMismatches(limit: number): Promise<Array<{ code: string; heldAtto: bigint; activeHoldsAtto: bigint }>> {
    const result = await this.db.pool.query<{ code: string; held: string; active: string }>(
      `WITH active AS (SELECT 'user:' || user_id AS code, sum(amount_atto) AS total FROM holds WHERE status = 'active' GROUP BY user_id)
       SELECT coalesce(a.code, h.code) AS code, coalesce(a.held_atto, 0) AS held, coalesce(h.total, 0) AS active
       FROM accounts a FULL JOIN active h ON h.code = a.code
       WHERE coalesce(a.held_atto, 0) <> coalesce(h.total, 0)
       ORDER BY 1 LIMIT $1`,
      [limit],
    );
    return result.rows.map((r) => ({ code: r.code, heldAtto: toBigInt(r.held), activeHoldsAtto: toBigInt(r.active) }));
  }

  /** Stored balances summed by account kind (tracked accounts only keep one). */
  async totalsByAccountKind(runner: SqlRunner = this.db.pool): Promise<Map<AccountKind, { balanceAtto: bigint; heldAtto: bigint }>> {
    const result = await runner.query<{ kind: AccountKind; balance: string; held: string }>(
      `SELECT kind, coalesce(sum(balance_atto), 0) AS balance, coalesce(sum(held_atto), 0) AS held
       FROM accounts
       WHERE kind IN ('user', 'contributor_pending', 'contributor_payable', 'contributor_in_settlement', 'contributor_paid')
       GROUP BY kind`,
    );
    return new Map(result.rows.map((r) => [r.kind, { balanceAtto: toBigInt(r.balance), heldAtto: toBigInt(r.held) }]));
  }

  /**
   * Positive postings of entries of intoKind plus negative ones of outOfKind (the settlement
   * section of every ledger check). The entries are selected by kind first, through the (kind, ref)
   * index: the same filter over ledger_postings could not be pushed below the unnest and read
   * every entry of the journal (13.3 s over 3M entries, issue 25).
   */
  async netMoved(input: { intoKind: string; outOfKind: string }, runner: SqlRunner = this.db.pool): Promise<bigint> {
    const result = await runner.query<{ total: string }>(
      `SELECT coalesce(sum(p.amount), 0) AS total
       FROM journal_entries e, unnest(e.account_codes, e.amounts_atto) AS p(code, amount)
       WHERE e.kind IN ($1, $2) AND ((e.kind = $1 AND p.amount > 0) OR (e.kind = $2 AND p.amount < 0))`,
      [input.intoKind, input.outOfKind],
    );
    return toBigInt(result.rows[0]!.total);
  }

  /**
   * One page of contributors in a total order (ties broken by id, bytewise), so cursors are
   * stable. Sorting by payable orders by the balance at query time: a balance that changes
   * between pages can move a contributor across the cursor (as with any live keyset listing).
   * Joined here rather than in the admin module: account balances are read only by the ledger.
   */
  async contributorBalancePage(input: { sort: ContributorSort; after: ContributorCursor | null; limit: number; search?: string }): Promise<ContributorBalanceRow[]> {
    const params: unknown[] = [input.limit];
    const conditions: string[] = [];
    let order: string;
    if (input.sort === 'id') {
      order = 'c.id COLLATE "C"';
      if (input.after) {
        params.push(input.after.id);
        conditions.push(`c.id COLLATE "C" > $${params.length}`);
      }
    } else {
      order = 'coalesce(p.balance_atto, 0) DESC, c.id COLLATE "C"';
      if (input.after?.sort === 'payable_desc') {
        params.push(input.after.payableAtto.toString(), input.after.id);
        const [payable, id] = [params.length - 1, params.length];
        conditions.push(`(coalesce(p.balance_atto, 0) < $${payable}::numeric OR (coalesce(p.balance_atto, 0) = $${payable}::numeric AND c.id COLLATE "C" > $${id}))`);
      }
    }
    if (input.search !== undefined) {
      // A case-insensitive substring of the id or the payout address (strpos: no LIKE wildcards to escape).
      params.push(input.search.toLowerCase());
      conditions.push(`(strpos(lower(c.id), $${params.length}) > 0 OR strpos(lower(c.payout_address), $${params.length}) > 0)`);
    }
    const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
    const result = await this.db.readPool.query<{
      id: string;
      tier: string;
      status: string;
      payout_address: string;
      pending_atto: string;
      payable_atto: string;
      in_settlement_atto: string;
      paid_atto: string;
    }>(`${CONTRIBUTOR_PAGE_SELECT} ${where} ORDER BY ${order} LIMIT $1`, params);
    return result.rows.map((r) => ({
      id: r.id,
      tier: r.tier,
      status: r.status,
      payoutAddress: r.payout_address,
      pendingAtto: toBigInt(r.pending_atto),
      payableAtto: toBigInt(r.payable_atto),
      inSettlementAtto: toBigInt(r.in_settlement_atto),
      paidAtto: toBigInt(r.paid_atto),
    }));
  }
}
