// The checkpointed rollup check (GET /v1/admin/ledger/check without full): days whose rollup rows
// still hash to the digest stored when they were verified are not compared again; a day written
// since, or a rollup row changed behind the writers' back, is. ?full=true compares every day.
import pg from 'pg';
import { exampleEvent, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const DAYS = ['2026-11-27', '2026-11-28'] as const;
const LATER_DAY = '2026-11-29';

describe('checkpointed rollup check', () => {
  let t: TestApp;
  let sql: pg.Client;
  const check = async (full = false) => (await t.admin(t.http.get(`/v1/admin/ledger/check${full ? '?full=true' : ''}`)).expect(200)).body;
  const post = (id: string, day: string) => t.http.post('/v1/usage-events').set('Authorization', `Bearer ${gatewayKey}`).send(exampleEvent({ event_id: id, occurred_at: `${day}T10:00:00Z` })).expect(201);
  let gatewayKey: string;

  beforeAll(async () => {
    t = await startTestApp('rollup_verified');
    await seedBilling(t);
    gatewayKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: 'gw' }).expect(201)).body.key;
    for (const [i, day] of DAYS.entries()) for (let n = 0; n < 3; n += 1) await post(`ev-${i}-${n}`, day);
    sql = new pg.Client({ connectionString: t.databaseUrl });
    await sql.connect();
  });
  afterAll(async () => {
    await sql?.end();
    await t?.close();
  });

  it('verifies each day once, then only the days whose rows changed', async () => {
    const first = await check();
    expect(first.ok).toBe(true);
    expect(first.rollups).toMatchObject({ ok: true, days_verified: 2, days_unchanged: 0, rollup_rows: '2' });
    const again = await check();
    expect(again.rollups).toMatchObject({ ok: true, days_verified: 0, days_unchanged: 2 });
    // A new event on a verified day and one on a new day: those two days are compared again.
    await post('ev-late-0', DAYS[1]);
    await post('ev-late-1', LATER_DAY);
    const after = await check();
    expect(after.rollups).toMatchObject({ ok: true, days_verified: 2, days_unchanged: 1, rollup_rows: '3' });
  });

  it('catches a rollup row inserted behind the writers on a day after the checkpoint', async () => {
    await check();
    await sql.query(
      `INSERT INTO contributor_usage_daily (contributor_id, day, model, events, prompt_tokens, completion_tokens, official_atto, earned_atto, charge_atto, margin_atto)
       VALUES ('c_std', '2026-11-30', 'openai/gpt-4o', 5, 1, 1, 1, 1, 1, 0)`,
    );
    try {
      const drifted = await check();
      expect(drifted.ok).toBe(false);
      expect(drifted.rollups.ok).toBe(false);
      expect(drifted.rollups.mismatched).toEqual([expect.objectContaining({ contributor_id: 'c_std', day: '2026-11-30', model: 'openai/gpt-4o', events: null })]);
      // Still caught on the next check: a day that failed is never stored as verified.
      expect((await check()).rollups.ok).toBe(false);
    } finally {
      await sql.query(`DELETE FROM contributor_usage_daily WHERE day = '2026-11-30'`);
    }
    expect((await check()).rollups).toMatchObject({ ok: true });
  });

  it('catches a changed rollup row on a verified day, and ?full=true an event changed under a verified day', async () => {
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0 });
    await sql.query(`UPDATE contributor_usage_daily SET earned_atto = earned_atto + 1 WHERE day = $1`, [DAYS[0]]);
    try {
      const drifted = await check();
      expect(drifted.rollups.ok).toBe(false);
      expect(drifted.rollups.mismatched).toEqual([expect.objectContaining({ day: DAYS[0] })]);
    } finally {
      await sql.query(`UPDATE contributor_usage_daily SET earned_atto = earned_atto - 1 WHERE day = $1`, [DAYS[0]]);
    }
    expect((await check()).rollups.ok).toBe(true);
    // An event row changed (its rollup untouched) on a day verified before: the checkpointed check
    // trusts the stored digest; the full proof compares every day with its events and catches it.
    await sql.query(`UPDATE usage_events SET payout_atto = payout_atto + 7, margin_atto = margin_atto - 7 WHERE event_id = 'ev-0-0'`);
    try {
      expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0 });
      const full = await check(true);
      expect(full.rollups.ok).toBe(false);
      expect(full.rollups.mismatched).toEqual([expect.objectContaining({ day: DAYS[0] })]);
    } finally {
      await sql.query(`UPDATE usage_events SET payout_atto = payout_atto - 7, margin_atto = margin_atto + 7 WHERE event_id = 'ev-0-0'`);
    }
    expect((await check(true)).ok).toBe(true);
  });
});
