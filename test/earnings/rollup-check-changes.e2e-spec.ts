// The checkpointed rollup check costs what is new (issue 35): an update or delete of usage events
// leaves a change row (usage_event_changes, written by a trigger in the same transaction), so the
// check no longer counts every unpriced event of the window on each glance (500,000 unpriced
// events today cost ~4 s per check with nothing new) and catches a change at or below a day's
// frontier from those rows; unpriced events written since the last check move the frontier once,
// instead of being read again by every check.
import { billingSuiteWithGateway, exampleEvent } from '../support/billing-fixtures.js';
import { suiteSql } from '../support/suite-sql.js';

const DAY_MS = 86_400_000;
// Two consecutive days before today (UTC) in one month, so in one partition (an update moving an
// event to another month's partition is a delete there and an insert here: only the delete leaves
// a change row, see the migration); always inside the window (the current and the previous month).
const dayBefore = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
const sameMonth = dayBefore(1).endsWith('-01') ? 2 : 1;
const [D1, D2] = [dayBefore(sameMonth + 1), dayBefore(sameMonth)] as const;

describe('checkpointed rollup check: updates and deletes of events', () => {
  const { t, gw } = billingSuiteWithGateway('rollup_changes');
  const sql = suiteSql(t);
  const check = async (full = false) => (await t.admin(t.http.get(`/v1/admin/ledger/check${full ? '?full=true' : ''}`)).expect(200)).body;
  const post = (id: string, day: string, overrides: Record<string, unknown> = {}) =>
    gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: id, occurred_at: `${day}T10:00:00Z`, ...overrides }));
  const frontiers = async () => (await sql.query<{ through: string | null }>('SELECT DISTINCT through_event_id::text AS through FROM rollup_verified_days')).rows.map((r) => r.through);
  const maxEventId = async () => (await sql.query<{ id: string }>('SELECT max(id)::text AS id FROM usage_events')).rows[0]!.id;
  const changeRows = async () => Number((await sql.query<{ n: string }>('SELECT count(*) AS n FROM usage_event_changes')).rows[0]!.n);
  /** After a change and its undo: compared once more with all its events, equal, then skipped. */
  const expectSettled = async () => {
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1, days_from_sums: 0 });
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0 });
  };

  beforeAll(async () => {
    for (const [i, day] of [D1, D2].entries()) for (let n = 0; n < 2; n += 1) await post(`c-${i}-${n}`, day).expect(201);
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 2 });
  });

  it('writes no change row on ingestion, and moves the frontier over unpriced events once', async () => {
    expect(await changeRows()).toBe(0);
    await post('c-unpriced-0', D2, { model: 'acme/no-price' }).expect(202);
    await post('c-unpriced-1', D2, { model: 'acme/no-price' }).expect(202);
    expect(await changeRows()).toBe(0);
    // No rollup row changed, but events were written above the frontier: the check moves every day
    // to the new frontier (before, unpriced-only writes moved nothing and every glance read them).
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0, days_unchanged: 2 });
    expect(await frontiers()).toEqual([await maxEventId()]);
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0, days_unchanged: 2 });
  });

  it('catches an event deleted at or below the frontier with its rollup untouched', async () => {
    await sql.query(`CREATE TEMP TABLE gone AS SELECT * FROM usage_events WHERE event_id = 'c-0-1'`);
    await sql.query(`DELETE FROM usage_events WHERE event_id = 'c-0-1'`);
    expect(await changeRows()).toBe(1);
    try {
      // Before, nothing the glance compared had changed (digest, unpriced and new events): skipped.
      const drifted = await check();
      expect(drifted.rollups).toMatchObject({ ok: false, days_verified: 1, days_from_sums: 0 });
      expect(drifted.rollups.mismatched).toEqual([expect.objectContaining({ day: D1, contributor_id: 'c_std' })]);
      // A day that fails keeps its change row: still caught.
      expect((await check()).rollups.ok).toBe(false);
    } finally {
      await sql.query(`INSERT INTO usage_events SELECT * FROM gone`);
      await sql.query('DROP TABLE gone');
    }
    await expectSettled();
    // The stored proof covers the change rows: pruned.
    expect(await changeRows()).toBe(0);
  });

  it('sees an update that names the partition, not usage_events', async () => {
    const partition = (await sql.query<{ name: string }>(`SELECT tableoid::regclass::text AS name FROM usage_events WHERE event_id = 'c-1-0'`)).rows[0]!.name;
    expect(partition).not.toBe('usage_events');
    await sql.query(`UPDATE ${partition} SET prompt_tokens = prompt_tokens + 1 WHERE event_id = 'c-1-0'`);
    try {
      const drifted = await check();
      expect(drifted.rollups).toMatchObject({ ok: false, days_verified: 1, days_from_sums: 0 });
      expect(drifted.rollups.mismatched).toEqual([expect.objectContaining({ day: D2, contributor_id: 'c_std' })]);
    } finally {
      await sql.query(`UPDATE ${partition} SET prompt_tokens = prompt_tokens - 1 WHERE event_id = 'c-1-0'`);
    }
    await expectSettled();
  });

  it('marks both days when an update moves an event to another day', async () => {
    await sql.query(`UPDATE usage_events SET occurred_at = occurred_at - interval '1 day' WHERE event_id = 'c-1-1'`);
    try {
      const drifted = await check();
      expect(drifted.rollups.ok).toBe(false);
      expect(new Set(drifted.rollups.mismatched.map((m: { day: string }) => m.day))).toEqual(new Set([D1, D2]));
    } finally {
      await sql.query(`UPDATE usage_events SET occurred_at = occurred_at + interval '1 day' WHERE event_id = 'c-1-1'`);
    }
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 2, days_from_sums: 0 });
    expect((await check(true)).ok).toBe(true);
  });

  it('a reprice leaves one change row per day and transaction; the day is compared in full, then pruned', async () => {
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: 'acme/no-price', input_usd_per_mtok: '1', output_usd_per_mtok: '2', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    expect((await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200)).body).toMatchObject({ priced: 2 });
    const days = (await sql.query<{ day: string }>(`SELECT to_char(day, 'YYYY-MM-DD') AS day FROM usage_event_changes`)).rows.map((r) => r.day);
    expect(days.length).toBeGreaterThan(0);
    expect(new Set(days)).toEqual(new Set([D2]));
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1, days_from_sums: 0 });
    expect(await changeRows()).toBe(0);
    expect((await check(true)).ok).toBe(true);
  });
});
