// npm run bench:spend (a small measurement, not a test; EXPLAIN=1 prints the plan): the budget check of a hold with 10
// budgets on the user, as BudgetsService.checkHold runs it (its budgets, their spent from the
// user's spend rollup, and the held amounts), on a fresh database seeded with one user's events
// among other users'. Prints p50/p95 in milliseconds.
import pg from 'pg';
import { poolDatabase, withScratchDatabase } from './lib/pool-database.js';
import { BudgetsRepository } from '../src/modules/spend/budgets.repository.js';
import { SpendRollupRepository } from '../src/modules/spend/spend-rollup.repository.js';
import { periodRange, type BudgetPeriod } from '../src/modules/spend/budget-periods.js';
import { budgetApplies, exceededBudget } from '../src/modules/spend/budget-rules.js';

const BASE_URL = process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const USER_EVENTS = Number(process.env.USER_EVENTS ?? 3000);
const OTHER_EVENTS = Number(process.env.OTHER_EVENTS ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 500);

await withScratchDatabase(BASE_URL, 'spend_bench', async (url) => {
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on('error', () => undefined); // the database is dropped at the end, connections and all
  const now = new Date();
  // Events over the last 40 days: the bench user's, among OTHER_EVENTS of 1000 other users.
  await pool.query(
    `INSERT INTO usage_events (id, event_id, request_hash, user_id, contributor_id, model, occurred_at, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, status, official_atto, charge_atto, payout_atto, margin_atto, key_id)
     SELECT g, 'e' || g, 'h', CASE WHEN g <= $1::int THEN 'u_bench' ELSE 'u_' || (g % 1000) END, 'c', CASE WHEN g % 3 = 0 THEN 'm2' ELSE 'm1' END,
       $3::timestamptz - (g % 40) * interval '1 day' - (g % 86000) * interval '1 second', 1, 1, 0, 0, 'priced', 1000000000000000, 1000000000000000, 800000000000000, 200000000000000, 'k' || (g % 4)
     FROM generate_series(1, $1::int + $2::int) AS g`,
    [USER_EVENTS, OTHER_EVENTS, now.toISOString()],
  );
  await pool.query(`INSERT INTO accounts (code, kind, owner_id, balance_atto) VALUES ('user:u_bench', 'user', 'u_bench', 10 ^ 24)`);
  const repository = new BudgetsRepository();
  // As the user's first budget does (BudgetsService.put): the spend rollup switched on and
  // backfilled, and the budgets written under the account lock.
  const periods: BudgetPeriod[] = ['day', 'week', 'month', 'total', 'day', 'week', 'month', 'day', 'week', 'month'];
  await new SpendRollupRepository(poolDatabase(pool)).withCompleteRollup('u_bench', async (client) => {
    for (const [i, period] of periods.entries()) {
      await repository.upsert(client, { userId: 'u_bench', budgetId: `b${i}`, limitAtto: 10n ** 24n, period, keyId: i % 3 === 1 ? 'k1' : null, model: i % 4 === 2 ? 'm1' : null, action: 'block', alertAt: [] });
    }
  });
  await pool.query('ANALYZE');
  if (process.env.EXPLAIN) {
    const explaining = { query: (text: string, values: unknown[]) => pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values).then((r) => { console.log(r.rows.map((row) => row['QUERY PLAN']).join('\n')); return { rows: [] }; }) };
    const budgets = await repository.listForUser(pool, 'u_bench');
    await repository.figures(explaining as never, 'u_bench', budgets.map((b) => ({ budgetId: b.budgetId, ...periodRange(b.period, now), keyId: b.keyId, model: b.model })));
  }
  const timesMs: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`SELECT balance_atto FROM accounts WHERE code = 'user:u_bench' FOR UPDATE`);
      const started = performance.now();
      const hold = { keyId: 'k1', model: 'm1' };
      const budgets = (await repository.listForUser(client, 'u_bench')).filter((b) => budgetApplies(b, hold));
      const figures = await repository.figures(client, 'u_bench', budgets.map((b) => ({ budgetId: b.budgetId, ...periodRange(b.period, now), keyId: b.keyId, model: b.model })));
      exceededBudget(budgets.map((b) => ({ ...b, ...figures.get(b.budgetId)! })), 1n);
      timesMs.push(performance.now() - started);
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  }
  timesMs.sort((a, b) => a - b);
  const at = (q: number) => timesMs[Math.floor(q * (timesMs.length - 1))]!.toFixed(3);
  console.log(`hold budget check, 10 budgets, ${USER_EVENTS} events of the user in 40 days (${OTHER_EVENTS} of others): p50 ${at(0.5)} ms, p95 ${at(0.95)} ms over ${RUNS} runs`);
  await pool.end();
});
