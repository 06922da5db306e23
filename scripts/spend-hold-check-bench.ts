// npm run bench:spend (a small measurement, not a test; EXPLAIN=1 prints the plan): the budget check of a hold with 10
// budgets on the user, as BudgetsService.checkHold runs it (its budgets, their spent from the
// user's spend rollup, and the held amounts), on a fresh database seeded with one user's events
// among other users'. Prints p50/p95 in milliseconds.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from './lib/migrate.js';
import { BudgetsRepository } from '../src/modules/spend/budgets.repository.js';
import { SpendRollupRepository } from '../src/modules/spend/spend-rollup.repository.js';
import { periodRange, type BudgetPeriod } from '../src/modules/spend/budget-periods.js';
import { budgetApplies, exceededBudget } from '../src/modules/spend/budget-rules.js';

const BASE_URL = process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';
const USER_EVENTS = Number(process.env.USER_EVENTS ?? 3000);
const OTHER_EVENTS = Number(process.env.OTHER_EVENTS ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 500);
const name = `spend_bench_${randomBytes(4).toString('hex')}`;

const admin = new pg.Client({ connectionString: `${BASE_URL}/postgres` });
await admin.connect();
try {
  await migrate(`${BASE_URL}/${name}`);
  const pool = new pg.Pool({ connectionString: `${BASE_URL}/${name}`, max: 2 });
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
  // As the user's first budget does (BudgetsService.put): the spend rollup switched on and backfilled.
  const backfill = await pool.connect();
  try {
    await backfill.query('BEGIN');
    await new SpendRollupRepository().enable(backfill, 'u_bench');
    await backfill.query('COMMIT');
  } finally {
    backfill.release();
  }
  await pool.query('ANALYZE');
  const periods: BudgetPeriod[] = ['day', 'week', 'month', 'total', 'day', 'week', 'month', 'day', 'week', 'month'];
  for (const [i, period] of periods.entries()) {
    await pool.query(`INSERT INTO user_budgets (user_id, budget_id, limit_atto, period, key_id, model, action) VALUES ('u_bench', $1, 10 ^ 24, $2, $3, $4, 'block')`, [
      `b${i}`,
      period,
      i % 3 === 1 ? 'k1' : null,
      i % 4 === 2 ? 'm1' : null,
    ]);
  }
  const repository = new BudgetsRepository();
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
} catch (error) {
  console.error(`bench failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
}
