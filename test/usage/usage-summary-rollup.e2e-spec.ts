// GET /v1/admin/usage/summary reads whole UTC days of a day/model/contributor summary from the
// daily rollup (usage-summary-plan.ts) and the rest from the events. Here every answer is compared
// with the sums of the stored events themselves (what the summary read before the rollup), after
// refunds, events stored unpriced then repriced, events on both sides of UTC midnight, bounds in
// other time zones and a month as npm run archive leaves it (events gone, rollup rows kept).
import { SUMMARY_GROUPS, type SummaryGroup } from '../../src/modules/usage/usage-explorer.schemas.js';
import { planSummary } from '../../src/modules/usage/usage-summary-plan.js';
import { billingSuiteWithGateway, exampleEvent, GPT4O } from '../support/billing-fixtures.js';
import { suiteSql } from '../support/suite-sql.js';
import { expectedBody, storedPriced, type Filter, type StoredEvent } from '../support/usage-summary-expected.js';

const CLAUDE = 'anthropic/claude-sonnet-4';
const LATE_PRICE = 'acme/priced-later';
const USERS = ['u_42', 'u_7'];
const CONTRIBUTORS = ['c_std', 'c_prem'];
const MODELS = [GPT4O, CLAUDE, LATE_PRICE];
/** Milliseconds after a UTC midnight: the first and the last instant of a day, and within it. */
const OFFSETS_MS = [0, 1, 3_600_000, 43_200_000, 86_399_999];

describe('GET /v1/admin/usage/summary: rollup-served days equal the events', () => {
  const { t, gw } = billingSuiteWithGateway('usage_summary_rollup', { userCreditUsd: '100000' });
  const sql = suiteSql(t);
  let priced: StoredEvent[] = [];

  const summary = async (filter: Filter, groupBy: SummaryGroup) =>
    (await t.admin(t.http.get('/v1/admin/usage/summary')).query({ ...filter, group_by: groupBy }).expect(200)).body;

  beforeAll(async () => {
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: CLAUDE, input_usd_per_mtok: '3', output_usd_per_mtok: '15', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    await t.admin(t.http.post('/v1/admin/users/u_7/credits')).send({ amount_usd: '100000', reference: 'seed-u_7' }).expect(201);
    // Six UTC days (Oct 30 to Nov 4: a month boundary), each event at the first, the last
    // millisecond of its day or in between; LATE_PRICE has no price yet (stored unpriced).
    const events = [];
    let i = 0;
    for (let day = 0; day < 6; day++) {
      for (const offset of OFFSETS_MS) {
        for (const model of MODELS) {
          events.push(
            exampleEvent({
              event_id: `sr-${String(i).padStart(4, '0')}`,
              user_id: USERS[i % 2],
              contributor_id: CONTRIBUTORS[Math.floor(i / 2) % 2],
              model,
              occurred_at: new Date(Date.UTC(2026, 9, 30 + day) + offset).toISOString(),
              usage: { prompt_tokens: 100 + 7 * i, completion_tokens: 10 + (i % 31), cached_tokens: 0, reasoning_tokens: 0 },
            }),
          );
          i++;
        }
      }
    }
    const res = await gw(t.http.post('/v1/usage-events/batch')).send({ events }).expect(200);
    expect(res.body.results.filter((r: { status: string }) => r.status === 'unpriced')).toHaveLength(events.length / 3);
    // Priced afterwards: the reprice adds them to the rollup in its own transaction.
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: LATE_PRICE, input_usd_per_mtok: '1', output_usd_per_mtok: '2', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    expect((await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200)).body).toMatchObject({ priced: events.length / 3, still_unpriced: 0 });
    // Refunds change neither the events' amounts nor the usage rollup (they have their own).
    for (const id of ['sr-0000', 'sr-0031', 'sr-0077']) {
      await t.admin(t.http.post(`/v1/admin/usage-events/${id}/refunds`)).send({ refund_id: `rf-${id}`, amount_usd: '0.000001', reason: 'test' }).expect(201);
    }
    // key_id as gateways that pass it store it (as usage-explorer.e2e-spec.ts sets it).
    await sql.query(`UPDATE usage_events SET key_id = 'key-' || user_id || '-' || (right(event_id, 1)::int % 2) WHERE right(event_id, 1)::int % 3 <> 0`);
    priced = await storedPriced(sql);
    expect(priced).toHaveLength(events.length);
  }, 120_000);

  // Whole days, partial days at either edge, bounds in other time zones, less than a day, open bounds.
  const RANGES: Filter[] = [
    {},
    { from: '2026-10-31T00:00:00Z', to: '2026-11-03T00:00:00Z' },
    { from: '2026-10-31T00:00:00.001Z', to: '2026-11-02T23:59:59.999Z' },
    { from: '2026-10-31T12:00:00Z' },
    { to: '2026-11-02T12:00:00Z' },
    { from: '2026-11-01T00:00:00+02:00', to: '2026-11-03T00:00:00-05:00' },
    { from: '2026-10-31T23:59:59.999Z', to: '2026-11-01T00:00:00.001Z' },
    { from: '2026-11-01T01:00:00Z', to: '2026-11-01T13:00:00Z' },
  ];
  const OTHERS: Filter[] = [{}, { contributor_id: 'c_prem' }, { model: LATE_PRICE }, { contributor_id: 'c_std', model: CLAUDE }, { user_id: 'u_7' }, { key_id: 'key-u_42-1' }, { contributor_id: 'nobody' }];

  it.each(SUMMARY_GROUPS)('group_by=%s: every range and filter equals the stored events summed', async (groupBy) => {
    let servedByRollup = 0;
    for (const range of RANGES) {
      for (const other of OTHERS) {
        const filter = { ...range, ...other };
        expect({ filter, body: await summary(filter, groupBy) }).toEqual({ filter, body: expectedBody(priced, filter, groupBy) });
        const plan = planSummary({ userId: filter.user_id, keyId: filter.key_id, contributorId: filter.contributor_id, from: filter.from ? new Date(filter.from) : undefined, to: filter.to ? new Date(filter.to) : undefined }, groupBy);
        if (plan.rollupDays !== null) servedByRollup++;
      }
    }
    // Whole days are mostly rollup-served: contributor_usage_daily, or usage_user_key_daily for user
    // and key without a user, key or contributor filter (here before any worker moved it: every
    // event is above its frontier).
    expect(servedByRollup).toBeGreaterThan(groupBy === 'user' || groupBy === 'key' ? RANGES.length : RANGES.length * 2);
  });

  it('reads the rollup for whole days (a drift in it shows), and the events for partial ones', async () => {
    const whole = { from: '2026-11-01T00:00:00Z', to: '2026-11-02T00:00:00Z' };
    const partial = { from: '2026-11-01T00:00:00Z', to: '2026-11-01T23:00:00Z' };
    const before = await summary(whole, 'day');
    const partialBefore = await summary(partial, 'day');
    await sql.query(`UPDATE contributor_usage_daily SET events = events + 1000 WHERE day = '2026-11-01' AND contributor_id = 'c_std' AND model = $1`, [GPT4O]);
    try {
      expect((await summary(whole, 'day')).totals.events).toBe(before.totals.events + 1000);
      expect(await summary(partial, 'day')).toEqual(partialBefore);
    } finally {
      await sql.query(`UPDATE contributor_usage_daily SET events = events - 1000 WHERE day = '2026-11-01' AND contributor_id = 'c_std' AND model = $1`, [GPT4O]);
    }
  });

  it('leaves out an archived month (its events are gone, its rollup rows stay), as the events do', async () => {
    // What npm run archive leaves of October: the month in usage_archives, its events dropped.
    await sql.query(`INSERT INTO usage_archives (month, events, official_atto, charge_atto, payout_atto, margin_atto, file, sha256, bytes, table_bytes)
       VALUES ('2026-10-01', 0, 0, 0, 0, 0, 'usage_events_2026_10.ndjson.gz', '', 0, 0)`);
    await sql.query(`DELETE FROM usage_events WHERE occurred_at < '2026-11-01'`);
    const left = await storedPriced(sql);
    expect(left.length).toBeLessThan(priced.length);
    for (const groupBy of SUMMARY_GROUPS) {
      for (const filter of [{}, { to: '2026-11-02T00:00:00Z' }, { contributor_id: 'c_prem', from: '2026-10-30T06:00:00Z' }]) {
        expect({ filter, body: await summary(filter, groupBy) }).toEqual({ filter, body: expectedBody(left, filter, groupBy) });
      }
    }
  });
});
