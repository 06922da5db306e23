import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient, type SqlRunner } from '../../database/database.service.js';
import { assert } from '../../common/errors/index.js';
import { arrayLiteral, plainArrayLiteral, preparedStatement } from '../../database/sql.js';
import { userAccount } from '../ledger/account-codes.js';
import type { SpendDelta } from './spend-deltas.js';

/*
 * user_spend_daily: per user, UTC day of occurred_at, key ('' = none) and model, the charges of
 * priced events and what was refunded of them: budgets' spent is read from it (BudgetsRepository).
 * Kept only for users whose account row has spend_rollup (set by their first budget). Every
 * writer that changes a user's charge in a period holds that account row's lock while it adds
 * here: the usage write (the one-statement CTE below, or addCharges on the transaction path),
 * reprice (addCharges) and refunds (addRefund). withCompleteRollup() sets the flag under the same
 * lock and backfills what came before from a snapshot taken under it, so the rollup of a user with
 * a budget equals the events at every commit (test/spend/spend-rollup.int-spec.ts,
 * test/spend/budget-backfill.int-spec.ts and the ledger check's `spend_rollup`).
 */

/** The key column of an event's key_id: '' for none (key ids are never empty). */
const KEY = (column: string) => `coalesce(${column}, '')`;
const DAY = (column: string) => `(${column} AT TIME ZONE 'UTC')::date`;
const ACCUMULATE = `ON CONFLICT (user_id, day, key_id, model) DO UPDATE SET
         charge_atto = r.charge_atto + excluded.charge_atto,
         refunded_atto = r.refunded_atto + excluded.refunded_atto`;

/**
 * The one-statement usage write's part: the charges of the events `source` inserted (it returns
 * user_id, occurred_at, key_id, model, charge_atto) for the users whose account row `balances`
 * returned with spend_rollup. The subquery over `balances` is read whole first, so every account
 * row is locked before a rollup row is. A user without budgets costs an empty hash probe per row.
 */
export function spendRollupCte(input: { name: string; source: string; balances: string }): string {
  return `${input.name} AS (
     INSERT INTO user_spend_daily AS r (user_id, day, key_id, model, charge_atto)
     SELECT s.user_id, ${DAY('s.occurred_at')}, ${KEY('s.key_id')}, s.model, sum(s.charge_atto)
     FROM ${input.source} s
     WHERE s.charge_atto IS NOT NULL AND s.user_id IN (SELECT a.owner_id FROM ${input.balances} a WHERE a.spend_rollup AND a.kind = 'user')
     GROUP BY 1, 2, 3, 4
     ORDER BY 1, 2, 3, 4
     ${ACCUMULATE}
     RETURNING 1
   )`;
}

/**
 * What the rollup must hold, from the events and refunds, for the users `users` selects (a SQL
 * expression over user_id) and the days from $`sinceParam` (a date, or -infinity): the backfill
 * and the check both read it.
 */
export function expectedSpendSql(input: { userFilter: string; since: string }): string {
  return `SELECT s.user_id, s.day, s.key_id, s.model, sum(s.charge_atto) AS charge_atto, sum(s.refunded_atto) AS refunded_atto FROM (
     SELECT e.user_id, ${DAY('e.occurred_at')} AS day, ${KEY('e.key_id')} AS key_id, e.model, e.charge_atto, 0 AS refunded_atto
     FROM usage_events e
     WHERE ${input.userFilter.replaceAll('$USER', 'e.user_id')} AND e.charge_atto IS NOT NULL AND e.occurred_at >= (${input.since})::timestamp AT TIME ZONE 'UTC'
     UNION ALL
     SELECT e.user_id, ${DAY('e.occurred_at')}, ${KEY('e.key_id')}, e.model, 0, r.amount_atto
     FROM refunds r
     JOIN usage_event_keys k ON k.event_id = r.event_id
     JOIN usage_events e ON e.id = k.id AND e.occurred_at = k.occurred_at
     WHERE ${input.userFilter.replaceAll('$USER', 'r.user_id')} AND k.occurred_at >= (${input.since})::timestamp AT TIME ZONE 'UTC'
   ) s
   GROUP BY 1, 2, 3, 4`;
}

/**
 * The backfill's read, in its snapshot, a chunk at a time so no statement grows with the history:
 * the id that ends the next BACKFILL_CHUNK_EVENTS events of the user (null: the rest is the last
 * chunk; usage_events_user_id_id_idx), then those events' charges summed per day, key and model.
 */
const CHUNK_END_SQL = 'SELECT id FROM usage_events WHERE user_id = $1 AND id > $2 ORDER BY id OFFSET $3 - 1 LIMIT 1';
// Grouped by the date, formatted after: grouped by the text, the planner sorted on disk instead of hashing.
const CHUNK_SUMS_SQL = `SELECT to_char(day, 'YYYY-MM-DD') AS day, key_id, model, charge_atto, 0 AS refunded_atto FROM (
     SELECT ${DAY('occurred_at')} AS day, ${KEY('key_id')} AS key_id, model, sum(charge_atto) AS charge_atto
     FROM usage_events WHERE user_id = $1 AND id > $2 AND ($3::bigint IS NULL OR id <= $3) AND charge_atto IS NOT NULL
     GROUP BY 1, 2, 3) x`;
/** The user's refunds (far fewer than events: one statement), on the day, key and model of their event. */
const REFUND_SUMS_SQL = `SELECT to_char(day, 'YYYY-MM-DD') AS day, key_id, model, 0 AS charge_atto, refunded_atto FROM (
     SELECT ${DAY('e.occurred_at')} AS day, ${KEY('e.key_id')} AS key_id, e.model, sum(r.amount_atto) AS refunded_atto
     FROM refunds r
     JOIN usage_event_keys k ON k.event_id = r.event_id
     JOIN usage_events e ON e.id = k.id AND e.occurred_at = k.occurred_at
     WHERE r.user_id = $1
     GROUP BY 1, 2, 3) x`;
/** Events per statement of the backfill's read (about a second each at load 7 on the 2-core machine). */
const BACKFILL_CHUNK_EVENTS = 500_000;

/** The backfill's sums added to what writes added since its snapshot (rows in key order, as every writer's). */
const ADD_SUMS = preparedStatement('spend_rollup_add_sums', `INSERT INTO user_spend_daily AS r (user_id, day, key_id, model, charge_atto, refunded_atto)
   SELECT * FROM unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::numeric[], $6::numeric[])
   ${ACCUMULATE}`);

/** Flagged users with a budget: their rollup is complete (a first budget commits with its backfill's sums). */
const COMPLETE_ROLLUP_USERS = `SELECT a.owner_id FROM accounts a WHERE a.spend_rollup AND a.kind = 'user' AND EXISTS (SELECT 1 FROM user_budgets b WHERE b.user_id = a.owner_id)`;

/** The users (of those given) whose locked account row has spend_rollup. */
const FLAGGED = (userColumn: string) => `EXISTS (SELECT 1 FROM accounts a WHERE a.code = 'user:' || ${userColumn} AND a.spend_rollup)`;

/** Charges summed in Node (spendDeltas), of users whose locked account row has the flag. */
const ADD_CHARGES = preparedStatement('spend_rollup_add_charges', `INSERT INTO user_spend_daily AS r (user_id, day, key_id, model, charge_atto)
   SELECT * FROM unnest($1::text[], $2::date[], $3::text[], $4::text[], $5::numeric[])
   ${ACCUMULATE}`);

/** An event archived with its month is in no rollup row (archive deletes them): its refund adds nothing. */
const ADD_REFUND_SQL = `INSERT INTO user_spend_daily AS r (user_id, day, key_id, model, refunded_atto)
   SELECT e.user_id, ${DAY('e.occurred_at')}, ${KEY('e.key_id')}, e.model, $2::numeric
   FROM usage_event_keys k JOIN usage_events e ON e.id = k.id AND e.occurred_at = k.occurred_at
   WHERE k.event_id = $1 AND ${FLAGGED('e.user_id')}
   ${ACCUMULATE}`;

interface SumRow {
  day: string;
  key_id: string;
  model: string;
  charge_atto: string;
  refunded_atto: string;
}

/** Rollup rows added per statement by the backfill's locked step. */
const SUMS_PER_STATEMENT_MAX = 5000;

/** BEGIN ... COMMIT on a checked-out connection (the backfill keeps its advisory lock's session across transactions). */
async function inTransaction<T>(client: SqlClient, fn: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const value = await fn();
    await client.query('COMMIT');
    return value;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

@Injectable()
export class SpendRollupRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Events per statement of the backfill's read (a test sets a small one to read many chunks). */
  backfillChunkEvents = BACKFILL_CHUNK_EVENTS;

  /**
   * Runs `write` (a budget's upsert) under the user's account row lock once the user's spend
   * rollup is on and complete, backfilling it first if needed WITHOUT holding that lock while the
   * user's history is read (docs/spend-controls.md "The backfill"):
   * 1. under the lock (short): set spend_rollup, drop any rows, and fix a REPEATABLE READ snapshot
   *    on a second connection. Writes that locked the row before are committed and in the
   *    snapshot; writes after wait for this commit, then see the flag and add their own charges
   *    and refunds to the rollup (an event inserted before its writer's lock, or a reprice's
   *    update, commits after it: never in the snapshot).
   * 2. no lock: sum the user's events (a chunk of ids per statement) and refunds in that snapshot.
   * 3. under the lock again: add the sums to what writes added since, and run `write`, in one
   *    transaction; the locked part is proportional to the rollup's rows, not to the events.
   * A first budget is written in step 3, so a flagged user without a budget has an incomplete
   * rollup (a crash between 1 and 3): the next first budget starts again at 1, and the ledger
   * check looks only at users with a budget. One backfill of a user at a time (a session
   * advisory lock), so two first budgets never interleave their steps.
   */
  async withCompleteRollup<T>(userId: string, write: (client: SqlClient) => Promise<T>): Promise<T> {
    const ready = await this.db.transaction(async (client) => ((await this.lockAccount(client, userId)).complete ? { value: await write(client) } : null));
    if (ready) return ready.value;
    // Both connections are taken before any lock: a pool drained by writers waiting for the account row cannot stall us.
    const holder = await this.db.pool.connect();
    const reader = await this.db.pool.connect();
    let broken = false;
    try {
      await holder.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [`spend_backfill:${userId}`]);
      const first = await inTransaction(holder, async () => {
        const account = await this.lockAccount(holder, userId);
        if (account.complete) return { value: await write(holder) }; // another first budget finished meanwhile
        await holder.query('UPDATE accounts SET spend_rollup = true WHERE code = $1', [userAccount(userId)]);
        await holder.query('DELETE FROM user_spend_daily WHERE user_id = $1', [userId]);
        await reader.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
        await reader.query('SELECT 1'); // the snapshot, taken while this transaction holds the row
        return null;
      });
      if (first) return first.value;
      const sums = await this.historySums(reader, userId);
      await reader.query('COMMIT');
      return await inTransaction(holder, async () => {
        const account = await this.lockAccount(holder, userId);
        assert(account.flagged && !account.complete, `spend rollup of ${userId} changed during its backfill`);
        await this.addSums(holder, userId, sums);
        return write(holder);
      });
    } catch (error) {
      broken = true;
      await reader.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      await holder.query('SELECT pg_advisory_unlock_all()').catch(() => {
        broken = true;
      });
      holder.release(broken);
      reader.release(broken);
    }
  }

  /** The user's account row, locked (created at 0 if new: the lock order of every write). */
  private async lockAccount(client: SqlClient, userId: string): Promise<{ flagged: boolean; complete: boolean }> {
    const code = userAccount(userId);
    await client.query(`INSERT INTO accounts (code, kind, owner_id, tracked) VALUES ($1, 'user', $2, true) ON CONFLICT (code) DO NOTHING`, [code, userId]);
    const locked = await client.query<{ spend_rollup: boolean; budgeted: boolean }>(
      'SELECT spend_rollup, EXISTS (SELECT 1 FROM user_budgets WHERE user_id = $2) AS budgeted FROM accounts WHERE code = $1 FOR UPDATE',
      [code, userId],
    );
    const row = locked.rows[0]!;
    return { flagged: row.spend_rollup, complete: row.spend_rollup && row.budgeted };
  }

  /** In the backfill's snapshot: the user's events (chunk by chunk) and refunds, summed per day, key and model, in key order. */
  private async historySums(reader: SqlClient, userId: string): Promise<SumRow[]> {
    const sums = new Map<string, { day: string; key_id: string; model: string; charge: bigint; refunded: bigint }>();
    const add = (rows: readonly SumRow[]) => {
      for (const r of rows) {
        const key = `${r.day}\u0000${r.key_id}\u0000${r.model}`;
        const sum = sums.get(key) ?? { day: r.day, key_id: r.key_id, model: r.model, charge: 0n, refunded: 0n };
        sum.charge += BigInt(r.charge_atto);
        sum.refunded += BigInt(r.refunded_atto);
        sums.set(key, sum);
      }
    };
    let afterId = '0';
    for (;;) {
      const end = (await reader.query<{ id: string }>(CHUNK_END_SQL, [userId, afterId, this.backfillChunkEvents])).rows[0]?.id ?? null;
      add((await reader.query<SumRow>(CHUNK_SUMS_SQL, [userId, afterId, end])).rows);
      if (end === null) break;
      afterId = end;
    }
    add((await reader.query<SumRow>(REFUND_SUMS_SQL, [userId])).rows);
    // Key order (day, key, model; bytewise as the rows' keys), as every writer adds rows.
    return [...sums.values()]
      .sort((a, b) => (a.day !== b.day ? (a.day < b.day ? -1 : 1) : a.key_id !== b.key_id ? (a.key_id < b.key_id ? -1 : 1) : a.model < b.model ? -1 : a.model > b.model ? 1 : 0))
      .map((s) => ({ day: s.day, key_id: s.key_id, model: s.model, charge_atto: s.charge.toString(), refunded_atto: s.refunded.toString() }));
  }

  private async addSums(client: SqlClient, userId: string, rows: readonly SumRow[]): Promise<void> {
    for (let i = 0; i < rows.length; i += SUMS_PER_STATEMENT_MAX) {
      const chunk = rows.slice(i, i + SUMS_PER_STATEMENT_MAX);
      await client.query(ADD_SUMS([chunk.map(() => userId), chunk.map((r) => r.day), chunk.map((r) => r.key_id), chunk.map((r) => r.model), chunk.map((r) => r.charge_atto), chunk.map((r) => r.refunded_atto)]));
    }
  }

  /**
   * Under the user's account row lock (the order of withCompleteRollup and of every write): when the user has
   * no budget left, clears spend_rollup and drops the rollup, so writes stop paying for it; a later
   * first budget backfills again. Returns true when it switched the rollup off.
   */
  async disableWithoutBudgets(client: SqlClient, userId: string): Promise<boolean> {
    const code = userAccount(userId);
    const locked = await client.query<{ spend_rollup: boolean }>('SELECT spend_rollup FROM accounts WHERE code = $1 FOR UPDATE', [code]);
    if (!locked.rows[0]?.spend_rollup) return false;
    const left = await client.query('SELECT 1 FROM user_budgets WHERE user_id = $1 LIMIT 1', [userId]);
    if (left.rowCount !== 0) return false;
    await client.query('UPDATE accounts SET spend_rollup = false WHERE code = $1', [code]);
    await client.query('DELETE FROM user_spend_daily WHERE user_id = $1', [userId]);
    return true;
  }

  /**
   * Transaction path and reprice: charges written or priced in this transaction, of users whose
   * account row this transaction locked and got back with spend_rollup (spendDeltas: in key order).
   */
  async addCharges(client: SqlClient, deltas: readonly SpendDelta[]): Promise<void> {
    if (deltas.length === 0) return;
    await client.query(
      // Array literals built by one join each (the statement runs once per group of a budgeted user).
      ADD_CHARGES([
        arrayLiteral(deltas.map((d) => d.userId)),
        plainArrayLiteral(deltas.map((d) => d.day)),
        arrayLiteral(deltas.map((d) => d.keyId)),
        arrayLiteral(deltas.map((d) => d.model)),
        plainArrayLiteral(deltas.map((d) => d.chargeAtto.toString())),
      ]),
    );
  }

  /** A refund, in its transaction after the refund's entry locked the user's account row. */
  async addRefund(client: SqlClient, eventId: string, amountAtto: bigint): Promise<void> {
    await client.query(ADD_REFUND_SQL, [eventId, amountAtto.toString()]);
  }

  /**
   * Rows of user_spend_daily that differ from the events and refunds (missing on either side
   * counts; an all-zero row equals no row), for the flagged users, days from `sinceDay` on
   * (null: all); at most `limit`.
   */
  async mismatches(runner: SqlRunner, sinceDay: string | null, limit: number): Promise<{ rows: bigint; mismatched: SpendRollupMismatch[] }> {
    // The users first, then their events by user_id: given as a subquery, the planner could not know
    // how few they are and read every event of the window (150 ms at 7.5M events with no budget at all).
    const users = (await runner.query<{ owner_id: string }>(COMPLETE_ROLLUP_USERS)).rows.map((r) => r.owner_id);
    if (users.length === 0) return { rows: 0n, mismatched: [] };
    const since = sinceDay === null ? `'-infinity'::date` : '$2::date';
    const expected = expectedSpendSql({ userFilter: '$USER = ANY($1::text[])', since });
    const params = sinceDay === null ? [users, limit] : [users, sinceDay, limit];
    const limitParam = `$${params.length}`;
    const result = await runner.query<{ user_id: string; day: string; key_id: string; model: string; rollup_charge: string | null; rollup_refunded: string | null; charge: string | null; refunded: string | null; rows: string }>(
      `WITH expected AS (${expected}),
         rollup AS (SELECT * FROM user_spend_daily WHERE day >= ${since} AND user_id = ANY($1::text[])),
         compared AS (
           SELECT coalesce(r.user_id, x.user_id) AS user_id, to_char(coalesce(r.day, x.day), 'YYYY-MM-DD') AS day, coalesce(r.key_id, x.key_id) AS key_id,
             coalesce(r.model, x.model) AS model, r.charge_atto AS rollup_charge, r.refunded_atto AS rollup_refunded, x.charge_atto AS charge, x.refunded_atto AS refunded
           FROM rollup r FULL JOIN expected x ON x.user_id = r.user_id AND x.day = r.day AND x.key_id = r.key_id AND x.model = r.model
         )
       SELECT c.*, (SELECT count(*) FROM rollup) AS rows FROM compared c
       WHERE coalesce(c.rollup_charge, 0) <> coalesce(c.charge, 0) OR coalesce(c.rollup_refunded, 0) <> coalesce(c.refunded, 0)
       UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, (SELECT count(*) FROM rollup)
       ORDER BY 1 NULLS FIRST, 2, 3, 4
       LIMIT ${limitParam} + 1`,
      params,
    );
    const [total, ...rows] = result.rows;
    return {
      rows: BigInt(total!.rows),
      mismatched: rows.map((r) => ({
        userId: r.user_id,
        day: r.day,
        keyId: r.key_id === '' ? null : r.key_id,
        model: r.model,
        rollup: { chargeAtto: BigInt(r.rollup_charge ?? '0'), refundedAtto: BigInt(r.rollup_refunded ?? '0') },
        events: { chargeAtto: BigInt(r.charge ?? '0'), refundedAtto: BigInt(r.refunded ?? '0') },
      })),
    };
  }
}

export interface SpendRollupMismatch {
  userId: string;
  day: string;
  keyId: string | null;
  model: string;
  rollup: { chargeAtto: bigint; refundedAtto: bigint };
  events: { chargeAtto: bigint; refundedAtto: bigint };
}
