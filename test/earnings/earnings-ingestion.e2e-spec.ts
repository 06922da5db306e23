// End to end through the real ingestion API: prices and contributors created by admin calls,
// events posted by a gateway, a tier change through PUT. Earnings (from the rollup the ingestion
// writer maintains) must equal sums over the stored usage_events rows.
import pg from 'pg';
import { formatAttoAsUsd } from '../../src/common/money/index.js';
import { seededRandom } from '../../src/common/random/seeded-random.js';
import { pick } from '../factories/usage-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const DAY_MS = 86_400_000;
const MODELS = ['openai/gpt-4o', 'openai/gpt-4o-mini'];
const ADDRESS = '0x1111111111111111111111111111111111111111';
// Longer than the tier book's refresh check, so ingestion sees the new tier.
const TIER_BOOK_SETTLE_MS = 600;

describe('earnings over events ingested through the API', () => {
  let t: TestApp;
  let db: pg.Client;
  let gatewayKey: string;
  const today = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS);
  const firstDay = new Date(today.getTime() - 5 * DAY_MS);
  const tomorrow = new Date(today.getTime() + DAY_MS);
  const day = (d: Date) => d.toISOString().slice(0, 10);

  async function postBatch(events: object[]) {
    const res = await t.http.post('/v1/usage-events/batch').set('Authorization', `Bearer ${gatewayKey}`).send({ events }).expect(200);
    for (const r of res.body.results) expect(r.status).toBe('priced');
  }

  function events(random: () => number, prefix: string, count: number, when: () => Date | undefined) {
    return Array.from({ length: count }, (_, i) => {
      const prompt = Math.floor(random() * 3000);
      const completion = Math.floor(random() * 900);
      const occurredAt = when();
      return {
        event_id: `${prefix}-${i}`,
        user_id: pick(random, ['u1', 'u2']),
        contributor_id: pick(random, ['c_a', 'c_b']),
        model: pick(random, MODELS),
        ...(occurredAt ? { occurred_at: occurredAt.toISOString() } : {}),
        usage: { prompt_tokens: prompt, completion_tokens: completion, cached_tokens: Math.floor(prompt / 3), reasoning_tokens: Math.floor(completion / 4) },
      };
    });
  }

  beforeAll(async () => {
    t = await startTestApp('earnings_ingest');
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    const price = (model: string, input: string, output: string) =>
      t.admin(t.http.post('/v1/admin/prices')).send({ model, input_usd_per_mtok: input, output_usd_per_mtok: output, effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    await price(MODELS[0]!, '2.5', '10');
    await price(MODELS[1]!, '0.15', '0.6');
    await t.admin(t.http.put('/v1/admin/contributors/c_a')).send({ tier: 'standard', payout_address: ADDRESS }).expect(201);
    await t.admin(t.http.put('/v1/admin/contributors/c_b')).send({ tier: 'premium', payout_address: ADDRESS }).expect(201);
    for (const user of ['u1', 'u2']) await t.admin(t.http.post(`/v1/admin/users/${user}/credits`)).send({ amount_usd: '1000', reference: `fund-${user}` }).expect(201);
    gatewayKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway' }).expect(201)).body.key;
    const random = seededRandom(7);
    // Past days, before the tier change (hours before now at most today, so never in the future).
    const pastAt = () => new Date(firstDay.getTime() + Math.floor(random() * (Date.now() - 3_600_000 - firstDay.getTime())));
    // A large group takes the statement-by-statement write, a small one (<= 64 events) the
    // one-statement write: both must leave the same rollups, ledger and earnings.
    await postBatch(events(random, 'past', 300, pastAt));
    await postBatch(events(random, 'past-small', 40, pastAt));
    await t.admin(t.http.put('/v1/admin/contributors/c_a')).send({ tier: 'premium', payout_address: ADDRESS }).expect(200);
    await new Promise((resolve) => setTimeout(resolve, TIER_BOOK_SETTLE_MS));
    await postBatch(events(random, 'now', 60, () => undefined));
  }, 60_000);

  afterAll(async () => {
    await db?.end();
    await t?.close();
  });

  it('earnings by day and model equal the sums over the stored priced events', async () => {
    for (const id of ['c_a', 'c_b']) {
      const raw = await db.query<{ day: string; model: string; events: string; pt: string; ct: string; cached: string; cw: string; audio: string; official: string; earned: string }>(
        `SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, model, count(*) AS events, sum(prompt_tokens) AS pt,
                sum(completion_tokens) AS ct, sum(cached_tokens) AS cached, sum(cache_write_5m_tokens + cache_write_1h_tokens) AS cw,
                sum(prompt_audio_tokens + completion_audio_tokens) AS audio, sum(official_atto) AS official, sum(payout_atto) AS earned
         FROM usage_events WHERE contributor_id = $1 AND status = 'priced'
         GROUP BY 1, 2 ORDER BY 1, model COLLATE "C"`,
        [id],
      );
      const res = await t.admin(t.http.get(`/v1/contributors/${id}/earnings?from=${day(firstDay)}&to=${day(tomorrow)}&group_by=day,model`)).expect(200);
      expect(res.body.rows).toEqual(
        raw.rows.map((r) => ({
          day: r.day,
          model: r.model,
          events: Number(r.events),
          prompt_tokens: Number(r.pt),
          completion_tokens: Number(r.ct),
          cached_tokens: Number(r.cached),
          cache_write_tokens: Number(r.cw),
          audio_tokens: Number(r.audio),
          official_usd: formatAttoAsUsd(BigInt(r.official)),
          earned_usd: formatAttoAsUsd(BigInt(r.earned)),
          refunds: 0,
          refunded_usd: '0',
          clawed_back_usd: '0',
          net_earned_usd: formatAttoAsUsd(BigInt(r.earned)),
        })),
      );
      const earned = raw.rows.reduce((n, r) => n + BigInt(r.earned), 0n);
      expect(res.body.totals.earned_usd).toBe(formatAttoAsUsd(earned));
      const balance = await t.admin(t.http.get(`/v1/contributors/${id}/balance`)).expect(200);
      expect(balance.body).toMatchObject({ tier: 'premium', payable_usd: formatAttoAsUsd(earned), accrued_usd: formatAttoAsUsd(earned) });
      // The contributors module's admin GET carries the same balances.
      const admin = await t.admin(t.http.get(`/v1/admin/contributors/${id}`)).expect(200);
      const balances = { accrued_usd: formatAttoAsUsd(earned), pending_usd: '0', payable_usd: formatAttoAsUsd(earned), in_settlement_usd: '0', paid_usd: '0' };
      expect(admin.body).toMatchObject({ id, tier: 'premium', ...balances, balances });
    }
  });

  it('prices the events after the tier change at the new tier', async () => {
    const tiers = await db.query<{ prefix: string; tier: string; n: string }>(
      `SELECT split_part(event_id, '-', 1) AS prefix, contributor_tier AS tier, count(*) AS n
       FROM usage_events WHERE contributor_id = 'c_a' GROUP BY 1, 2 ORDER BY 1, 2`,
    );
    expect(tiers.rows.map((r) => `${r.prefix}:${r.tier}`)).toEqual(['now:premium', 'past:standard']);
  });

  it('keeps the rollups, the ledger and the overview consistent', async () => {
    const check = await t.admin(t.http.get('/v1/admin/ledger/check')).expect(200);
    expect(check.body).toMatchObject({ ok: true, rollups: { ok: true, mismatched: [] } });
    const totals = await db.query<{ charged: string; margin: string }>(
      `SELECT sum(charge_atto) AS charged, sum(margin_atto) AS margin FROM usage_events WHERE status = 'priced'`,
    );
    const overview = await t.admin(t.http.get('/v1/admin/overview')).expect(200);
    const charged = BigInt(totals.rows[0]!.charged);
    expect(overview.body).toMatchObject({
      charged_usd: formatAttoAsUsd(charged),
      revenue_usd: formatAttoAsUsd(BigInt(totals.rows[0]!.margin)),
      users_balance_usd: formatAttoAsUsd(2000n * 10n ** 18n - charged),
      unpriced_events: 0,
    });
  });
});
