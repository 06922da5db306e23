// The checkpointed rollup check's frontier (issue 25 item 3, review of main 9439bb3): every check
// that takes a frontier moves every verified day of the window to it, so the glance reads only the
// events written after it (before, a day verified a month ago kept its month-old frontier and every
// check read nearly the whole two-month window); a priced event without any rollup row on a day
// never verified is seen; days that left the window are pruned; the frontier's SHARE lock is given
// up quickly when a writer holds the table.
import { billingSuiteWithGateway, exampleEvent } from '../support/billing-fixtures.js';
import { whileTableWritten } from '../ledger/while-table-written.js';
import { suiteSql } from '../support/suite-sql.js';

const DAY_MS = 86_400_000;
// Days before today (UTC): always inside the window (the current and the previous month).
const dayBefore = (n: number) => new Date(Date.now() - n * DAY_MS).toISOString().slice(0, 10);
interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}
/** Rows the plan's scans of usage_events' partitions read (returned or filtered out), over every loop. */
const rowsRead = (node: PlanNode): number =>
  (node['Relation Name']?.startsWith('usage_events') ? ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1) : 0) + (node.Plans ?? []).reduce((n, p) => n + rowsRead(p), 0);
const [D1, D2, D3] = [dayBefore(3), dayBefore(2), dayBefore(1)] as const;

describe('checkpointed rollup check: one frontier for the window', () => {
  const { t, gw } = billingSuiteWithGateway('rollup_frontier');
  const sql = suiteSql(t);
  const check = async (full = false) => (await t.admin(t.http.get(`/v1/admin/ledger/check${full ? '?full=true' : ''}`)).expect(200)).body;
  const post = (id: string, day: string) => gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: id, occurred_at: `${day}T10:00:00Z` })).expect(201);
  const frontiers = async () => (await sql.query<{ day: string; through: string | null }>(`SELECT to_char(day, 'YYYY-MM-DD') AS day, through_event_id AS through FROM rollup_verified_days ORDER BY day`)).rows;
  const maxEventId = async () => (await sql.query<{ id: string }>('SELECT max(id)::text AS id FROM usage_events')).rows[0]!.id;


  it('moves every verified day to the newest frontier, so a check with nothing new reads nothing old', async () => {
    await post('f-1a', D1);
    await post('f-1b', D1);
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1 });
    const first = await maxEventId();
    expect(await frontiers()).toEqual([{ day: D1, through: first }]);
    // D2 verified later: D1, unchanged, is moved to D2's frontier too (before, it kept its own).
    await post('f-2a', D2);
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1, days_unchanged: 1 });
    const second = await maxEventId();
    expect(await frontiers()).toEqual([
      { day: D1, through: second },
      { day: D2, through: second },
    ]);
    // What D1's moved sums say is still right: its next event is checked from them, and equal.
    await post('f-1c', D1);
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1, days_from_sums: 1 });
    expect((await sql.query(`SELECT events FROM rollup_verified_sums WHERE day = $1`, [D1])).rows).toEqual([{ events: '3' }]);
    expect((await sql.query(`SELECT events FROM rollup_verified_sums WHERE day = $1`, [D2])).rows).toEqual([{ events: '1' }]);
    const third = await maxEventId();
    expect(new Set((await frontiers()).map((f) => f.through))).toEqual(new Set([third]));
    expect((await check(true)).rollups.ok).toBe(true);
  });

  it('stores a day checked from its sums from them (issue 35): unchanged at the next check, a rollup row changed later still found', async () => {
    await post('f-1d', D1);
    const before = (await sql.query<{ verified_at: Date }>('SELECT verified_at FROM rollup_verified_days WHERE day = $1', [D1])).rows[0]!.verified_at;
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1, days_from_sums: 1 });
    // Its sums grew by its new event (not rewritten from the rollup rows), its digest is the one now.
    expect((await sql.query(`SELECT events FROM rollup_verified_sums WHERE day = $1`, [D1])).rows).toEqual([{ events: '4' }]);
    expect((await sql.query<{ verified_at: Date }>('SELECT verified_at FROM rollup_verified_days WHERE day = $1', [D1])).rows[0]!.verified_at.getTime()).toBeGreaterThan(before.getTime());
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0 });
    await sql.query(`UPDATE contributor_usage_daily SET earned_atto = earned_atto + 1 WHERE day = $1`, [D1]);
    try {
      const found = (await check()).rollups;
      expect(found).toMatchObject({ ok: false, days_verified: 1 });
      expect(found.mismatched).toEqual([expect.objectContaining({ day: D1 })]);
    } finally {
      await sql.query(`UPDATE contributor_usage_daily SET earned_atto = earned_atto - 1 WHERE day = $1`, [D1]);
    }
    expect((await check()).rollups).toMatchObject({ ok: true });
    expect((await check(true)).rollups.ok).toBe(true);
  });

  it('brings days stored at different frontiers (by an earlier version) to one, with nothing new', async () => {
    const now = await maxEventId();
    // D2 has no event above its first frontier: stored at it, its row is what the earlier code kept.
    const d2First = (await sql.query<{ id: string }>(`SELECT max(id)::text AS id FROM usage_events WHERE event_id = 'f-2a'`)).rows[0]!.id;
    await sql.query(`UPDATE rollup_verified_days SET through_event_id = $2 WHERE day = $1`, [D2, d2First]);
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 0, days_unchanged: 2 });
    expect(await frontiers()).toEqual([
      { day: D1, through: now },
      { day: D2, through: now },
    ]);
    // And the glance's scan (from the lowest stored frontier) then reads no event: none has an id above it (by each
    // partition's primary key, as at scale; a few rows would otherwise be read whole).
    await sql.query('SET enable_seqscan = off; SET enable_bitmapscan = off');
    const plan = await sql.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM usage_events e WHERE e.status = 'priced' AND e.occurred_at >= $1::timestamptz
         AND e.id > (SELECT min(through_event_id) FROM rollup_verified_days)`,
      [`${D1}T00:00:00Z`],
    );
    await sql.query('RESET enable_seqscan; RESET enable_bitmapscan');
    expect(rowsRead(plan.rows[0]!['QUERY PLAN'][0].Plan)).toBe(0);
  });

  it('sees a priced event of a day that has no rollup row and was never verified', async () => {
    await sql.query(`CREATE TEMP TABLE ghost AS SELECT * FROM usage_events WHERE event_id = 'f-1a'`);
    await sql.query(`UPDATE ghost SET id = nextval('usage_events_id_seq'), event_id = 'f-ghost', occurred_at = $1::timestamptz`, [`${D3}T12:00:00Z`]);
    await sql.query(`INSERT INTO usage_events SELECT * FROM ghost`);
    try {
      // Before, the day was in none of the glance's sources (rollup rows, archive, verified days).
      const drifted = await check();
      expect(drifted.rollups).toMatchObject({ ok: false });
      expect(drifted.rollups.mismatched).toEqual([expect.objectContaining({ day: D3, contributor_id: 'c_std', rollup: null })]);
    } finally {
      await sql.query(`DELETE FROM usage_events WHERE event_id = 'f-ghost'`);
      await sql.query(`DROP TABLE ghost`);
    }
    expect((await check()).rollups.ok).toBe(true);
  });

  it('prunes the verified rows of days that left the window when it stores', async () => {
    await sql.query(`INSERT INTO rollup_verified_days (day, rollup_rows, digest) VALUES ('2020-01-01', 1, 'old')`);
    await sql.query(
      `INSERT INTO rollup_verified_sums (day, contributor_id, model, events, prompt_tokens, completion_tokens, official_atto, earned_atto, charge_atto, margin_atto, cached_tokens, cache_write_tokens, audio_tokens)
       VALUES ('2020-01-01', 'c_std', 'm', 1, 1, 1, 1, 1, 1, 0, 0, 0, 0)`,
    );
    await post('f-3a', D3);
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1 });
    expect((await sql.query(`SELECT day FROM rollup_verified_days WHERE day < '2021-01-01'`)).rows).toEqual([]);
    expect((await sql.query(`SELECT day FROM rollup_verified_sums WHERE day < '2021-01-01'`)).rows).toEqual([]);
  });

  it('gives up the frontier lock quickly behind a writer holding usage_events, and still answers', async () => {
    await post('f-3b', D3);
    await whileTableWritten(t.databaseUrl, 'usage_events', async () => {
      const started = Date.now();
      const answer = await check();
      // Before, the check waited 5 s for the lock (and every group commit queued behind it).
      expect(Date.now() - started).toBeLessThan(3_000);
      expect(answer.rollups).toMatchObject({ ok: true, days_verified: 1, days_from_sums: 1 });
    });
    // Without a frontier nothing is stored (before issue 35 the day was stored without one, and
    // every later change of it was compared with all its events): D3 keeps its frontier, and the
    // next check compares it again from its sums, now storing.
    const kept = (await frontiers()).find((f) => f.day === D3)!;
    expect(kept.through).not.toBeNull();
    await post('f-3c', D3);
    expect((await check()).rollups).toMatchObject({ ok: true, days_verified: 1, days_from_sums: 1 });
    expect(BigInt((await frontiers()).find((f) => f.day === D3)!.through!)).toBeGreaterThan(BigInt(kept.through!));
    expect((await check(true)).rollups.ok).toBe(true);
  });
});
