// GET /v1/admin/usage/summary by user or key reads usage_user_key_daily (the worker's rollup, up
// to a frontier of event ids) plus the events above its frontier, and the days changed since from
// their events. Every answer is compared with the stored priced events summed, while events are
// ingested (late ones too), repriced and refunded as the rollup advances in small steps; then the
// rollup itself is compared with the events up to its frontier, and an archived month is left out
// as its events are.
import { DatabaseService } from '../../src/database/database.service.js';
import type { SummaryGroup } from '../../src/modules/usage/usage-explorer.schemas.js';
import { UsageUserRollupRepository } from '../../src/modules/usage/usage-user-rollup.repository.js';
import { billingSuiteWithGateway, exampleEvent, GPT4O } from '../support/billing-fixtures.js';
import { suiteSql } from '../support/suite-sql.js';
import { expectedBody, storedPriced, type Filter } from '../support/usage-summary-expected.js';

const CLAUDE = 'anthropic/claude-sonnet-4';
const LATE_PRICE = 'acme/priced-later';
const USERS = ['u_42', 'u_7', 'u_9'];
const KEYS = ['key-a', 'key-b', undefined];
const MODELS = [GPT4O, CLAUDE, LATE_PRICE];
const DAY_MS = 86_400_000;
/** Events from Oct 28 to Nov 3 (a month boundary), late ones included (any day, any time). */
const FIRST_DAY = Date.UTC(2026, 9, 28);
const DAYS = 7;

const GROUPS: SummaryGroup[] = ['user', 'key', 'day', 'model'];
const FILTERS: Filter[] = [
  {},
  { from: '2026-10-30T00:00:00Z', to: '2026-11-02T00:00:00Z' },
  { from: '2026-10-29T05:00:00Z', to: '2026-11-02T23:00:00Z' },
  { from: '2026-10-31T00:00:00+02:00' },
  { user_id: 'u_7' },
  { key_id: 'key-b', from: '2026-10-30T00:00:00Z' },
  { model: CLAUDE, to: '2026-11-01T00:00:00Z' },
  { user_id: 'u_42', key_id: 'key-a', model: GPT4O },
];

describe('GET /v1/admin/usage/summary by user or key: usage_user_key_daily plus the events above its frontier', () => {
  const { t, gw } = billingSuiteWithGateway('usage_user_rollup', { userCreditUsd: '100000' });
  const sql = suiteSql(t);
  let rollup: UsageUserRollupRepository;
  let n = 0;

  const summary = async (filter: Filter, groupBy: SummaryGroup) =>
    (await t.admin(t.http.get('/v1/admin/usage/summary')).query({ ...filter, group_by: groupBy }).expect(200)).body;

  /** Every group-by and filter above against the stored events summed (nothing is written meanwhile). */
  async function expectExact(label: string) {
    const priced = await storedPriced(sql);
    for (const groupBy of GROUPS) {
      for (const filter of FILTERS) {
        expect({ label, groupBy, filter, body: await summary(filter, groupBy) }).toEqual({ label, groupBy, filter, body: expectedBody(priced, filter, groupBy) });
      }
    }
  }

  /** A batch of events in a deterministic spread of users, keys, models and days (any order of days: late events). */
  async function ingest(count: number) {
    const events = [];
    for (let k = 0; k < count; k++, n++) {
      const day = (n * 5) % DAYS;
      events.push(
        exampleEvent({
          event_id: `ur-${String(n).padStart(5, '0')}`,
          user_id: USERS[n % USERS.length],
          key_id: KEYS[(n >> 1) % KEYS.length],
          contributor_id: n % 4 === 0 ? 'c_prem' : 'c_std',
          model: MODELS[n % MODELS.length],
          occurred_at: new Date(FIRST_DAY + day * DAY_MS + ((n * 7_919_111) % DAY_MS)).toISOString(),
          usage: { prompt_tokens: 100 + 7 * n, completion_tokens: 10 + (n % 31), cached_tokens: 0, reasoning_tokens: 0 },
        }),
      );
    }
    await gw(t.http.post('/v1/usage-events/batch')).send({ events }).expect(200);
  }

  /** The rollup's rows against the priced events with ids up to its frontier, summed by SQL. */
  async function rollupDiff(): Promise<number> {
    const result = await sql.query<{ n: string }>(
      `WITH s AS (SELECT through_event_id AS f FROM usage_user_key_rollup_state),
       e AS (
         SELECT (occurred_at AT TIME ZONE 'UTC')::date AS day, user_id, coalesce(key_id, '') AS key_id, model, count(*)::bigint AS events,
           sum(prompt_tokens)::bigint AS prompt_tokens, sum(completion_tokens)::bigint AS completion_tokens, sum(official_atto) AS official_atto,
           sum(charge_atto) AS charge_atto, sum(payout_atto) AS payout_atto, sum(margin_atto) AS margin_atto
         FROM usage_events, s WHERE status = 'priced' AND id <= s.f GROUP BY 1, 2, 3, 4)
       SELECT count(*) AS n FROM e FULL JOIN usage_user_key_daily r USING (day, user_id, key_id, model)
       WHERE (e.events, e.prompt_tokens, e.completion_tokens, e.official_atto, e.charge_atto, e.payout_atto, e.margin_atto)
         IS DISTINCT FROM (r.events, r.prompt_tokens, r.completion_tokens, r.official_atto, r.charge_atto, r.payout_atto, r.margin_atto)`,
    );
    return Number(result.rows[0]!.n);
  }

  beforeAll(async () => {
    rollup = new UsageUserRollupRepository(t.app.get(DatabaseService));
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: CLAUDE, input_usd_per_mtok: '3', output_usd_per_mtok: '15', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    for (const user of USERS) await t.admin(t.http.post(`/v1/admin/users/${user}/credits`)).send({ amount_usd: '100000', reference: `seed-${user}` }).expect(201);
  });

  it('is exact while events are ingested, repriced and refunded as the rollup advances', async () => {
    await ingest(60);
    await expectExact('before any advance (every event above the frontier 0)');
    await rollup.advance();
    expect(await rollupDiff()).toBe(0);
    await expectExact('advanced');

    // Concurrently: ingestion (late events too), the rollup advancing 7 ids at a time, the unpriced
    // model priced and repriced, refunds.
    let ingesting = true;
    const ingestion = (async () => {
      for (let b = 0; b < 12; b++) await ingest(15);
      ingesting = false;
    })();
    const advancing = (async () => {
      let steps = 0;
      while (ingesting || steps < 3) {
        await rollup.advance(7n);
        steps++;
      }
      return steps;
    })();
    const repricing = (async () => {
      await t.admin(t.http.post('/v1/admin/prices')).send({ model: LATE_PRICE, input_usd_per_mtok: '1', output_usd_per_mtok: '2', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
      while (ingesting) {
        await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200);
      }
    })();
    const refunding = (async () => {
      for (const id of ['ur-00000', 'ur-00004', 'ur-00031', 'ur-00058']) {
        await t.admin(t.http.post(`/v1/admin/usage-events/${id}/refunds`)).send({ refund_id: `rf-${id}`, amount_usd: '0.000001', reason: 'test' }).expect(201);
      }
    })();
    const [, steps] = await Promise.all([ingestion, advancing, repricing, refunding]);
    expect(steps).toBeGreaterThan(3);
    // Events priced by the reprice after the last one stay unpriced: the summary leaves them out.
    await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200);
    await expectExact('after the concurrent phase, rollup behind and days changed');
    // Caught up in small steps: every step exact, the rollup equal to its events.
    for (let i = 0; i < 60; i++) {
      const moved = await rollup.advance(25n);
      if (moved.throughEventId === moved.fromEventId && moved.daysRecomputed === 0) break;
    }
    expect(await rollupDiff()).toBe(0);
    expect((await sql.query('SELECT count(*)::int AS n FROM usage_user_key_changes')).rows[0].n).toBe(0);
    await expectExact('caught up');
  });

  it('reads the rollup for whole days (a drift in it shows), the events for partial days and days changed since', async () => {
    await rollup.advance();
    const whole = { from: '2026-10-30T00:00:00Z', to: '2026-10-31T00:00:00Z' };
    const partial = { from: '2026-10-30T00:00:00Z', to: '2026-10-30T23:00:00Z' };
    const before = await summary(whole, 'user');
    const partialBefore = await summary(partial, 'user');
    await sql.query(`UPDATE usage_user_key_daily SET events = events + 1000 WHERE day = '2026-10-30' AND user_id = 'u_42' AND model = $1 AND key_id = 'key-a'`, [GPT4O]);
    expect((await summary(whole, 'user')).totals.events).toBe(before.totals.events + 1000);
    expect(await summary(partial, 'user')).toEqual(partialBefore);
    // A change to that day's events (here key_id set after the fact) logs the day: read from its
    // events (the drift no longer shows) until the next advance recomputes it (which drops the drift).
    await sql.query(`UPDATE usage_events SET key_id = 'key-late' WHERE event_id = (SELECT min(event_id) FROM usage_events WHERE status = 'priced' AND occurred_at >= '2026-10-30' AND occurred_at < '2026-10-31' AND key_id IS NULL)`);
    await expectExact('a day changed, not yet recomputed');
    expect(await rollupDiff()).toBeGreaterThan(0);
    const moved = await rollup.advance();
    expect(moved.daysRecomputed).toBe(1);
    expect(await rollupDiff()).toBe(0);
    await expectExact('the changed day recomputed');
  });

  it('leaves out an archived month as its events are gone, and counts its late events in the default partition', async () => {
    await sql.query(`INSERT INTO usage_archives (month, events, official_atto, charge_atto, payout_atto, margin_atto, file, sha256, bytes, table_bytes)
       VALUES ('2026-10-01', 0, 0, 0, 0, 0, 'usage_events_2026_10.ndjson.gz', '', 0, 0)`);
    // What npm run archive leaves: the partition's events gone (a detach does not fire the change log).
    await sql.query('ALTER TABLE usage_events DISABLE TRIGGER usage_events_changed');
    try {
      await sql.query(`DELETE FROM usage_events WHERE occurred_at < '2026-11-01'`);
    } finally {
      await sql.query('ALTER TABLE usage_events ENABLE TRIGGER usage_events_changed');
    }
    await expectExact('October archived, its rollup rows kept');
    // A late October event (it lands in the default partition after an archive).
    await ingest(1);
    await gw(t.http.post('/v1/usage-events/batch'))
      .send({ events: [exampleEvent({ event_id: 'ur-late-october', user_id: 'u_9', key_id: 'key-a', occurred_at: '2026-10-30T10:00:00Z' })] })
      .expect(200);
    await rollup.advance();
    await expectExact('October archived, a late event of it, advanced');
  });
});
