// npm run bench:spend-backfill (a small measurement, not a test): how long the first budget of a
// user with USER_EVENTS stored events holds the user's account row, which every write of that
// user waits for. A probe connection takes and releases that row lock in a loop while the first
// budget is made; its longest wait is the writes' stall. Both ways, alternated ROUNDS times: "one
// transaction" (the backfill before: the whole history read under the lock) and "outside the lock"
// (SpendRollupRepository.withCompleteRollup). Prints each run, with the load average.
import { loadavg } from 'node:os';
import pg from 'pg';
import { poolDatabase, withScratchDatabase } from './lib/pool-database.js';
import { BudgetsRepository } from '../src/modules/spend/budgets.repository.js';
import { expectedSpendSql, SpendRollupRepository } from '../src/modules/spend/spend-rollup.repository.js';
import type { SqlClient } from '../src/database/database.service.js';

const BASE_URL = process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const USER_EVENTS = Number(process.env.USER_EVENTS ?? 200_000);
const OTHER_EVENTS = Number(process.env.OTHER_EVENTS ?? 100_000);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const USER = 'u_bench';
const budget = { userId: USER, budgetId: 'all', limitAtto: 10n ** 24n, period: 'total' as const, keyId: null, model: null, action: 'block' as const, alertAt: [] };

/** The backfill as it was: flag, drop, and the whole history summed, in the PUT's one transaction under the lock. */
async function oneTransaction(pool: pg.Pool, write: (client: SqlClient) => Promise<unknown>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT 1 FROM accounts WHERE code = $1 FOR UPDATE`, [`user:${USER}`]);
    await client.query(`UPDATE accounts SET spend_rollup = true WHERE code = $1`, [`user:${USER}`]);
    await client.query('DELETE FROM user_spend_daily WHERE user_id = $1', [USER]);
    await client.query(`INSERT INTO user_spend_daily (user_id, day, key_id, model, charge_atto, refunded_atto) ${expectedSpendSql({ userFilter: '$USER = $1', since: `'-infinity'::date` })}`, [USER]);
    await write(client);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
}

/** Takes and releases the user's row lock in a loop until `done`; the waits, in ms. */
async function probe(url: string, done: () => boolean): Promise<number[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const waits: number[] = [];
  try {
    while (!done()) {
      const started = performance.now();
      await client.query('BEGIN');
      await client.query(`SELECT 1 FROM accounts WHERE code = $1 FOR UPDATE`, [`user:${USER}`]);
      waits.push(performance.now() - started);
      await client.query('COMMIT');
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  } finally {
    await client.end();
  }
  return waits;
}

await withScratchDatabase(BASE_URL, 'spend_backfill_bench', async (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pool.on('error', () => undefined); // the database is dropped at the end, connections and all
  await pool.query(
    `INSERT INTO usage_events (id, event_id, request_hash, user_id, contributor_id, model, occurred_at, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, status, official_atto, charge_atto, payout_atto, margin_atto, key_id)
     SELECT g, 'e' || g, 'h', CASE WHEN g <= $1::int THEN $3 ELSE 'u_' || (g % 1000) END, 'c', CASE WHEN g % 3 = 0 THEN 'm2' ELSE 'm1' END,
       timestamptz '2026-12-01T00:00:00Z' - (g % 90) * interval '1 day' - (g % 86000) * interval '1 second', 1, 1, 0, 0, 'priced', 1000, 1000, 800, 200, 'k' || (g % 4)
     FROM generate_series(1, $1::int + $2::int) AS g`,
    [USER_EVENTS, OTHER_EVENTS, USER],
  );
  await pool.query(`INSERT INTO accounts (code, kind, owner_id, balance_atto) VALUES ($1, 'user', $2, 10 ^ 24)`, [`user:${USER}`, USER]);
  await pool.query('VACUUM ANALYZE'); // as autovacuum leaves a table: the visibility map set (index-only scans)
  const budgets = new BudgetsRepository();
  const rollup = new SpendRollupRepository(poolDatabase(pool));
  const write = (client: SqlClient) => budgets.upsert(client, budget);
  const ways = { 'one transaction': () => oneTransaction(pool, write), 'outside the lock': () => rollup.withCompleteRollup(USER, write) };
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const [way, run] of Object.entries(ways)) {
      await pool.query('DELETE FROM user_budgets WHERE user_id = $1', [USER]);
      await pool.query('UPDATE accounts SET spend_rollup = false WHERE code = $1', [`user:${USER}`]);
      await pool.query('DELETE FROM user_spend_daily WHERE user_id = $1', [USER]);
      const load = loadavg()[0]!.toFixed(1);
      let finished = false;
      const waits = probe(url, () => finished);
      await new Promise((resolve) => setTimeout(resolve, 50));
      const started = performance.now();
      await run();
      const tookMs = performance.now() - started;
      finished = true;
      const sorted = (await waits).sort((a, b) => a - b);
      const rows = (await pool.query<{ n: string }>('SELECT count(*) AS n FROM user_spend_daily WHERE user_id = $1', [USER])).rows[0]!.n;
      console.log(
        `${way}: first budget ${tookMs.toFixed(0)} ms, longest wait for the row lock ${sorted.at(-1)!.toFixed(1)} ms (p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} ms, ${sorted.length} probes), ${rows} rollup rows; load ${load} -> ${loadavg()[0]!.toFixed(1)}`,
      );
    }
  }
  await pool.end();
});
