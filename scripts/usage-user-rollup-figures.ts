// DATABASE_URL=... tsx scripts/usage-user-rollup-figures.ts [--batch 500000] [--days 7]
// On a seeded database (npm run seed:events): moves usage_user_key_daily to the usage_events
// frontier as the worker's job does, timing each step (the worker's cost per new event), then times
// the summary by user and by key over the last whole days against the events-only query the
// summary ran before, and prints the plans (EXPLAIN ANALYZE, BUFFERS). docs/usage-explorer.md.
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { AppConfig } from '../src/config/index.js';
import { DatabaseService } from '../src/database/database.service.js';
import { UsageExplorerRepository } from '../src/modules/usage/usage-explorer.repository.js';
import type { SummaryGroup } from '../src/modules/usage/usage-explorer.schemas.js';
import { UsageUserRollupRepository } from '../src/modules/usage/usage-user-rollup.repository.js';

const { values } = parseArgs({ options: { batch: { type: 'string', default: '500000' }, days: { type: 'string', default: '7' } }, strict: true });
const databaseUrl = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/ledger';

/** The summary statements run, captured to be explained (pg's query, wrapped). */
const captured: Array<{ text: string; values: unknown[] }> = [];
const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
  if (typeof args[0] === 'string' && args[0].startsWith('SELECT key, grouping(key)')) captured.push({ text: args[0], values: (args[1] as unknown[]) ?? [] });
  return query.apply(this, args);
} as typeof pg.Client.prototype.query;

async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await fn();
  return [value, performance.now() - start];
}

async function main() {
  const db = new DatabaseService({ DATABASE_URL: databaseUrl, DATABASE_POOL_MAX: 4 } as AppConfig);
  const rollup = new UsageUserRollupRepository(db);
  const explorer = new UsageExplorerRepository(db);
  try {
    // The worker's job, step by step.
    let total = 0n;
    let totalMs = 0;
    for (;;) {
      const [moved, ms] = await timed(() => rollup.advance(BigInt(values.batch)));
      const read = moved.throughEventId - moved.fromEventId;
      if (read === 0n && moved.daysRecomputed === 0) break;
      total += read;
      totalMs += ms;
      console.log(`advance ${moved.fromEventId} -> ${moved.throughEventId}: ${read} ids, ${moved.rowsUpserted} rows upserted, ${moved.daysRecomputed} days recomputed, ${ms.toFixed(0)} ms (${((ms * 1000) / Number(read || 1n)).toFixed(2)} us/event)`);
    }
    if (total > 0n) console.log(`advanced ${total} ids in ${totalMs.toFixed(0)} ms: ${((totalMs * 1000) / Number(total)).toFixed(2)} us per event`);
    const sizes = await db.pool.query(`SELECT (SELECT count(*) FROM usage_user_key_daily) AS rows, pg_total_relation_size('usage_user_key_daily') AS bytes`);
    console.log(`usage_user_key_daily: ${sizes.rows[0].rows} rows, ${(Number(sizes.rows[0].bytes) / 1048576).toFixed(1)} MiB`);

    // The last whole days of the seed (it ends with today).
    const last = await db.pool.query<{ to: Date }>(`SELECT date_trunc('day', max(occurred_at) AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS to FROM usage_events`);
    const to = last.rows[0]!.to;
    const from = new Date(to.getTime() - Number(values.days) * 86_400_000);
    const cases: Array<{ label: string; groupBy: SummaryGroup; filter: { from?: Date; to?: Date } }> = [
      { label: `by user, ${values.days} whole days`, groupBy: 'user', filter: { from, to } },
      { label: `by key, ${values.days} whole days`, groupBy: 'key', filter: { from, to } },
      { label: `by user, ${values.days} days from 06:00 to 18:00`, groupBy: 'user', filter: { from: new Date(from.getTime() + 21_600_000), to: new Date(to.getTime() - 21_600_000) } },
      { label: 'by user, all days', groupBy: 'user', filter: {} },
    ];
    for (const c of cases) {
      const where = [`status = 'priced'`];
      const params: unknown[] = [];
      if (c.filter.from) where.push(`occurred_at >= $${params.push(c.filter.from)}`);
      if (c.filter.to) where.push(`occurred_at < $${params.push(c.filter.to)}`);
      // What the summary read before: every sum of the events, per group and over all.
      const eventsOnly = `SELECT ${c.groupBy === 'user' ? 'user_id' : 'key_id'} AS key, count(*), sum(prompt_tokens), sum(completion_tokens), sum(official_atto),
        sum(charge_atto), sum(payout_atto), sum(margin_atto) FROM usage_events WHERE ${where.join(' AND ')} GROUP BY GROUPING SETS ((1), ())`;
      const runs: string[] = [];
      let groups = 0;
      for (let i = 0; i < 2; i++) {
        const [body, ms] = await timed(() => explorer.summary(c.filter, c.groupBy));
        groups = body.groups.length;
        const [, msEvents] = await timed(() => db.pool.query(eventsOnly, params));
        runs.push(`rollup ${ms.toFixed(0)} ms / events only ${msEvents.toFixed(0)} ms`);
      }
      console.log(`\n## ${c.label}: ${groups} groups; ${runs.join('; ')}`);
      const statement = captured.at(-1)!;
      const plan = await db.pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.text}`, statement.values);
      console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
    }
  } finally {
    await db.onModuleDestroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
