// The checkpointed rollup check (GET /v1/admin/ledger/check without full): days whose rollup rows
// still hash to the digest stored when they were verified are not compared again; a day written
// since, or a rollup row changed behind the writers' back, is: from its verified sums plus its new
// events when only events above its frontier were added, with all its events after anything else
// that could change what was proven (a reprice of its unpriced events, an archive of its events).
// ?full=true compares every day.
import { billingSuiteWithGateway, exampleEvent } from '../support/billing-fixtures.js';
import { suiteSql } from '../support/suite-sql.js';

const DAYS = ['2026-11-27', '2026-11-28'] as const;
const LATER_DAY = '2026-11-29';

describe('checkpointed rollup check', () => {
  const { t, gw } = billingSuiteWithGateway('rollup_verified');
  const sql = suiteSql(t);
  const check = async (full = false) => (await t.admin(t.http.get(`/v1/admin/ledger/check${full ? '?full=true' : ''}`)).expect(200)).body;
  const post = (id: string, day: string) => gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: id, occurred_at: `${day}T10:00:00Z` })).expect(201);
  /**
   * After a change behind the writers' back: the day is compared again with all its events (not
   * from its verified sums) and reported; `undo` then puts back what was proven, also on failure.
   */
  const expectComparedInFullAndCaught = async (mismatch: Record<string, unknown>, undo: () => Promise<unknown>) => {
    try {
      const drifted = await check();
      expect(drifted.rollups).toMatchObject({ ok: false, days_verified: 1, days_from_sums: 0 });
      expect(drifted.rollups.mismatched).toEqual([expect.objectContaining(mismatch)]);
    } finally {
      await undo();
    }
  };

  /**
   * After an event was updated or deleted (a change, then its undo): the day is compared once more
   * with all its events (its change rows are above its mark), found equal, and skipped again.
   */
  const expectSettled = async () => {
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1, days_from_sums: 0 });
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0 });
  };

  beforeAll(async () => {
    for (const [i, day] of DAYS.entries()) for (let n = 0; n < 3; n += 1) await post(`ev-${i}-${n}`, day);
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
    // The verified day is compared as its verified sums plus the new event; the new day in full.
    expect(after.rollups).toMatchObject({ ok: true, days_verified: 2, days_unchanged: 1, days_from_sums: 1, rollup_rows: '3' });
    const sums = await sql.query<{ events: string }>(`SELECT events FROM rollup_verified_sums WHERE day = $1`, [DAYS[1]]);
    expect(sums.rows).toEqual([{ events: '4' }]);
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
    // An event row changed (its rollup untouched) on a day verified before: before issue 35 the
    // checkpointed check trusted the stored digest and only the full proof caught it; now the
    // update leaves a change row (usage_event_changes), so the day is compared in full and caught.
    await sql.query(`UPDATE usage_events SET payout_atto = payout_atto + 7, margin_atto = margin_atto - 7 WHERE event_id = 'ev-0-0'`);
    try {
      await expectComparedInFullAndCaught({ day: DAYS[0], contributor_id: 'c_std' }, async () => undefined);
      const full = await check(true);
      expect(full.rollups.ok).toBe(false);
      expect(full.rollups.mismatched).toEqual([expect.objectContaining({ day: DAYS[0] })]);
    } finally {
      await sql.query(`UPDATE usage_events SET payout_atto = payout_atto - 7, margin_atto = margin_atto + 7 WHERE event_id = 'ev-0-0'`);
    }
    expect((await check(true)).ok).toBe(true);
    await expectSettled();
  });

  it('does not take a wrong rollup for new events: a day failing from its sums is compared in full', async () => {
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0 });
    // A new event on a verified day, and its rollup row one atto off: the sums plus the new event
    // disagree, the comparison with all the events reports the row, and the day is not stored.
    await post('ev-late-2', DAYS[0]);
    await sql.query(`UPDATE contributor_usage_daily SET charge_atto = charge_atto + 1, margin_atto = margin_atto + 1 WHERE day = $1`, [DAYS[0]]);
    try {
      const drifted = await check();
      expect(drifted.rollups).toMatchObject({ ok: false, days_verified: 1, days_from_sums: 0 });
      expect(drifted.rollups.mismatched).toEqual([expect.objectContaining({ day: DAYS[0], contributor_id: 'c_std' })]);
      expect((await check()).rollups.ok).toBe(false);
    } finally {
      await sql.query(`UPDATE contributor_usage_daily SET charge_atto = charge_atto - 1, margin_atto = margin_atto - 1 WHERE day = $1`, [DAYS[0]]);
    }
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1 });
  });

  it('compares a day again in full when one of its unpriced events is priced, even with its rollup untouched', async () => {
    const model = 'acme/late-priced';
    await gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'ev-unpriced', model, occurred_at: `${DAYS[0]}T11:00:00Z` })).expect(202);
    // Unpriced: no rollup row changes, the day is skipped.
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0 });
    // A priced event after it: the day is verified again (from its sums), at a frontier above the unpriced one.
    await post('ev-late-3', DAYS[0]);
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1, days_from_sums: 1 });
    // Priced behind the writers' back (no rollup row): the day's digest is unchanged, its unpriced
    // events at or below its frontier are not. Before, the stored digest alone skipped the day.
    await sql.query(`UPDATE usage_events SET status = 'priced', official_atto = 5, charge_atto = 6, payout_atto = 5, margin_atto = 1 WHERE event_id = 'ev-unpriced'`);
    await expectComparedInFullAndCaught({ day: DAYS[0], model, rollup: null }, () =>
      sql.query(`UPDATE usage_events SET status = 'unpriced', official_atto = NULL, charge_atto = NULL, payout_atto = NULL, margin_atto = NULL WHERE event_id = 'ev-unpriced'`),
    );
    await expectSettled();
    // Priced the writers' way (the price, then the reprice): compared with all its events, equal.
    await t.admin(t.http.post('/v1/admin/prices')).send({ model, input_usd_per_mtok: '1', output_usd_per_mtok: '2', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    expect((await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200)).body).toMatchObject({ priced: 1 });
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1, days_from_sums: 0 });
    expect((await check(true)).rollups.ok).toBe(true);
  });

  it('compares a day again when an event above its frontier was written without its rollup', async () => {
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0 });
    // A copy of a stored event under a new id and event_id, its rollup row untouched.
    await sql.query(`CREATE TEMP TABLE ghost AS SELECT * FROM usage_events WHERE event_id = 'ev-0-1'`);
    await sql.query(`UPDATE ghost SET id = nextval('usage_events_id_seq'), event_id = 'ev-ghost'`);
    await sql.query(`INSERT INTO usage_events SELECT * FROM ghost`);
    // Before, the unchanged digest skipped the day.
    await expectComparedInFullAndCaught({ day: DAYS[0], contributor_id: 'c_std' }, async () => {
      await sql.query(`DELETE FROM usage_events WHERE event_id = 'ev-ghost'`);
      await sql.query(`DROP TABLE ghost`);
    });
    await expectSettled();
  });

  it("compares a day again in full when its archived rollups change (an archive drops events, not rollup rows)", async () => {
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0 });
    // What a wrong archive of the day would leave: archived sums that the rollup row does not hold.
    await sql.query(
      `INSERT INTO usage_archives (month, events, official_atto, charge_atto, payout_atto, margin_atto, file, sha256, bytes, table_bytes)
       VALUES ('2026-11-01', 1, 1, 1, 1, 0, 'test.ndjson.gz', 'x', 1, 1)`,
    );
    await sql.query(
      `INSERT INTO usage_archived_rollups (month, contributor_id, day, model, events, prompt_tokens, completion_tokens, official_atto, earned_atto, charge_atto, margin_atto, cached_tokens, cache_write_tokens, audio_tokens)
       VALUES ('2026-11-01', 'c_std', $1, 'openai/gpt-4o', 1, 1, 1, 1, 1, 1, 0, 0, 0, 0)`,
      [DAYS[1]],
    );
    // Before, the day's rollup digest alone was compared, and the day was skipped.
    await expectComparedInFullAndCaught({ day: DAYS[1], contributor_id: 'c_std' }, async () => {
      await sql.query(`DELETE FROM usage_archived_rollups WHERE month = '2026-11-01'`);
      await sql.query(`DELETE FROM usage_archives WHERE month = '2026-11-01'`);
    });
    // Back to what was proven: skipped again.
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0 });
  });
});
