// The bulk seeder leaves a database the ledger check accepts: balanced journal, stored balances
// equal to postings, rollups equal to the raw events; earnings answer from what it wrote.
import pg from 'pg';
import { seedEvents } from '../../scripts/lib/seed-events.js';
import { testAppForSuite } from '../support/test-app.js';

describe('scripts/seed-events', () => {
  const t = testAppForSuite('seed_events');

  it('seeds priced events, rollups and an aggregated journal that pass the ledger check', async () => {
    const endDay = new Date('2026-11-20T00:00:00Z');
    const options = { databaseUrl: t.databaseUrl, events: 30_000, contributors: 7, users: 3, models: 9, days: 12, endDay, chunkEvents: 7_000 };
    const first = await seedEvents(options);
    // A second run adds to the same contributors, days and rollup rows.
    await seedEvents({ ...options, events: 5_000 });
    expect(first).toMatchObject({ events: 30_000, rollupRows: 7 * 12 * 9 });

    const check = await t.admin(t.http.get('/v1/admin/ledger/check')).expect(200);
    expect(check.body).toMatchObject({ ok: true, mismatched_accounts: [], rollups: { ok: true, mismatched: [] } });

    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      const raw = await db.query<{ n: string; earned: string; premium: string }>(
        `SELECT count(*) AS n, sum(payout_atto) AS earned, count(*) FILTER (WHERE contributor_tier = 'premium') AS premium
         FROM usage_events WHERE contributor_id = 'seed-c000004'`,
      );
      const earnings = await t.admin(t.http.get('/v1/contributors/seed-c000004/earnings?from=2026-11-08&to=2026-11-20')).expect(200);
      expect(earnings.body.rows).toHaveLength(12);
      expect(earnings.body.totals.events).toBe(Number(raw.rows[0]!.n));
      expect(Number(raw.rows[0]!.premium)).toBe(Number(raw.rows[0]!.n));
      const balance = await t.admin(t.http.get('/v1/contributors/seed-c000004/balance')).expect(200);
      expect(balance.body).toMatchObject({ tier: 'premium', payable_usd: earnings.body.totals.earned_usd });
      const overview = await t.admin(t.http.get('/v1/admin/overview')).expect(200);
      expect(overview.body.users_balance_usd).toBe('6000');
    } finally {
      await db.end();
    }
  }, 120_000);
});
