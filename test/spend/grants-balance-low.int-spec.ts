// user.balance_low counts credit grants (docs/spend-controls.md "Credit grants", api.md "Webhooks"):
// the crossing is of the balance GET /v1/users/:id/balance shows (purchased + unexpired grants'
// remainders), once per crossing, on real Postgres. The outbox rows are read (no delivery needed:
// an endpoint subscribed to the type makes them stored).
import { formatAttoAsUsd as usd, parseUsdToAtto } from '../../src/common/money/index.js';
import { WEBHOOK_EVENT_SCHEMAS } from '../../src/modules/webhooks/webhook-event-types.js';
import { expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { suiteSql } from '../support/suite-sql.js';
import { testAppForSuite } from '../support/test-app.js';

const MODEL = 'acme/low-model';
const HOUR = 3_600_000;
const atto = (usd: string) => parseUsdToAtto(usd, { allowNegative: true });

describe('user.balance_low with credit grants', () => {
  // Threshold 0.40 USD: under the 0.50 USD of purchased credit the users below hold.
  const t = testAppForSuite('grants_balance_low', { USER_LOW_BALANCE_USD: '0.4', WEBHOOK_ALLOW_PRIVATE: 'true' });
  const sql = suiteSql(t);
  let chargeAtto: bigint;
  let n = 0;

  const event = (userId: string) => ({
    event_id: `blow-${(n += 1)}`,
    user_id: userId,
    contributor_id: 'c_std',
    model: MODEL,
    usage: { prompt_tokens: 1000, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 },
  });
  const ingest = async (userId: string) => (await t.admin(t.http.post('/v1/usage-events')).send(event(userId)).expect(201)).body;
  const ingestBatch = (userId: string, count: number) =>
    t.admin(t.http.post('/v1/usage-events/batch')).send({ events: Array.from({ length: count }, () => event(userId)) }).expect(200);
  const credit = (userId: string, body: Record<string, unknown>) => t.admin(t.http.post(`/v1/admin/users/${userId}/credits`)).send(body).expect(201);
  const balanceAtto = async (userId: string) => atto((await t.admin(t.http.get(`/v1/users/${userId}/balance`)).expect(200)).body.balance_usd);
  const lows = async (userId: string) => {
    const r = await sql.query<{ data: Record<string, string> }>(`SELECT data FROM webhook_events WHERE type = 'user.balance_low' AND data->>'user_id' = $1 ORDER BY id`, [userId]);
    for (const row of r.rows) expect(WEBHOOK_EVENT_SCHEMAS['user.balance_low'].safeParse(row.data).success).toBe(true);
    return r.rows.map((row) => row.data);
  };
  const fund = async (userId: string, grantUsd: string) => {
    await credit(userId, { amount_usd: '0.5', reference: `buy-${userId}` });
    await credit(userId, { amount_usd: grantUsd, reference: `grant-${userId}`, grant: { expires_at: new Date(Date.now() + 48 * HOUR).toISOString() } });
  };

  beforeAll(async () => {
    await seedBilling(t);
    // 0.2 USD a token thousand: one event takes the purchased 0.50 below 0.40 on its own.
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: MODEL, input_usd_per_mtok: '200', output_usd_per_mtok: '200', effective_from: '2024-01-01T00:00:00Z' }).expect(201);
    await t.admin(t.http.post('/v1/admin/webhooks')).send({ url: 'http://127.0.0.1:9/hook', events: ['user.balance_low'] }).expect(201);
    chargeAtto = atto((await ingest('u_probe')).charge_usd);
    expect(chargeAtto).toBeGreaterThan(atto('0.1'));
    expect(chargeAtto).toBeLessThan(atto('0.5'));
  });
  afterEach(() => expectLedgerClean(t));

  it('0.50 purchased + 20 granted: no balance_low while grants pay; once when purchased + granted crosses the threshold', async () => {
    await fund('u_low1', '20');
    const thresholdAtto = atto('0.4');
    // Single events: a grant holder's take the transaction path, the grants pay them.
    for (let i = 0; i < 5; i += 1) await ingest('u_low1');
    expect(await lows('u_low1')).toEqual([]);
    // Spend until the whole balance (purchased + granted) is just above the threshold...
    const eventsToThreshold = Number((atto('20.5') - thresholdAtto) / chargeAtto); // balance stays >= threshold after these
    for (let done = 5; done < eventsToThreshold; ) {
      const count = Math.min(80, eventsToThreshold - done); // batches of more than 64: the transaction path too
      if (count > 64) await ingestBatch('u_low1', count);
      else for (let i = 0; i < count; i += 1) await ingest('u_low1');
      done += count;
    }
    expect(await balanceAtto('u_low1')).toBeGreaterThanOrEqual(thresholdAtto);
    expect(await lows('u_low1')).toEqual([]);
    // ...then the event that crosses it, and more below it: one balance_low.
    await ingest('u_low1');
    const crossed = await lows('u_low1');
    expect(crossed).toHaveLength(1);
    const after = atto('20.5') - BigInt(eventsToThreshold + 1) * chargeAtto;
    expect(await balanceAtto('u_low1')).toBe(after);
    expect(crossed[0]).toEqual({ user_id: 'u_low1', balance_usd: usd(after), previous_balance_usd: usd(after + chargeAtto), threshold_usd: '0.4' });
    await ingest('u_low1');
    await ingestBatch('u_low1', 3);
    expect(await lows('u_low1')).toHaveLength(1);
    // A top-up back above the threshold, then a charge below it again: a second crossing.
    await credit('u_low1', { amount_usd: '2', reference: 'top-up-low1' }); // -0.82 -> 1.18 (grants spent)
    for (let i = 0; i < 8 && (await lows('u_low1')).length < 2; i += 1) await ingest('u_low1');
    expect(await lows('u_low1')).toHaveLength(2);
  });

  it('an adjustment of a grant holder is judged on purchased + granted', async () => {
    await fund('u_low2', '0.1');
    // Purchased 0.50 -> 0.35 would cross 0.40; the balance 0.60 -> 0.45 does not.
    await t.admin(t.http.post('/v1/admin/users/u_low2/credits')).send({ amount_usd: '-0.15', reference: 'adj-low2', reason: 'correction' }).expect(201);
    expect(await lows('u_low2')).toEqual([]);
    // 0.45 -> 0.35 does (purchased alone, 0.35 -> 0.25, would not).
    await t.admin(t.http.post('/v1/admin/users/u_low2/credits')).send({ amount_usd: '-0.1', reference: 'adj-low2b', reason: 'correction' }).expect(201);
    expect(await lows('u_low2')).toEqual([{ user_id: 'u_low2', balance_usd: '0.35', previous_balance_usd: '0.45', threshold_usd: '0.4' }]);
  });

  it("a refund of a grant-paid event announces nothing (its grant part goes back from the user's account to the grant)", async () => {
    await credit('u_low4', { amount_usd: '0.3', reference: 'buy-u_low4' }); // already below 0.40
    await credit('u_low4', { amount_usd: '1', reference: 'grant-u_low4', grant: { expires_at: new Date(Date.now() + 48 * HOUR).toISOString() } });
    const paid = await ingest('u_low4'); // the grant pays it: purchased stays 0.30
    expect(await lows('u_low4')).toEqual([]);
    // The refund credits 0.26 to the user's account (0.56), its grant part takes it back (0.30):
    // judged on purchased alone, that second entry "crossed" 0.40; the balance only went up.
    await t.admin(t.http.post(`/v1/admin/usage-events/${paid.event_id}/refunds`)).send({ refund_id: 'low4-r', amount_usd: usd(chargeAtto), reason: 'test' }).expect(201);
    expect(await balanceAtto('u_low4')).toBe(atto('1.3'));
    expect(await lows('u_low4')).toEqual([]);
  });

  it('a user without grants is judged on purchased credit as before (the one-statement write)', async () => {
    await credit('u_low3', { amount_usd: '0.5', reference: 'buy-u_low3' });
    await ingest('u_low3');
    await ingest('u_low3');
    const crossed = await lows('u_low3');
    expect(crossed).toEqual([{ user_id: 'u_low3', balance_usd: usd(atto('0.5') - chargeAtto), previous_balance_usd: '0.5', threshold_usd: '0.4' }]);
  });
});
