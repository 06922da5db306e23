// Earnings read from the daily rollup must equal the sums over the raw events, for randomized
// usage over several days, models, both tiers and a tier change.
import pg from 'pg';
import { formatAttoAsUsd, parseUsdToAtto } from '../../src/common/money/index.js';
import { seededRandom } from '../../src/common/random/seeded-random.js';
import type { EarningsSumsJson } from '../../src/modules/earnings/earnings-report.js';
import { randomEvents, UsageFactory, utcDay, type WrittenEvent } from '../factories/usage-factory.js';
import { parseCsv, readText } from '../support/csv.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SEED = Number(process.env.EARNINGS_TEST_SEED ?? 20261129);
const DAY_MS = 86_400_000;
const FIRST_DAY = new Date('2026-11-01T00:00:00Z');
const DAYS = Array.from({ length: 6 }, (_, i) => new Date(FIRST_DAY.getTime() + i * DAY_MS));
const SWITCH_AT = new Date('2026-11-03T12:00:00Z');
const MODELS = ['openai/gpt-4o', 'anthropic/claude-x', 'meta/llama,quoted"name'] as const;
const CONTRIBUTORS = ['c-std', 'c-prem', 'c-switch'] as const;
type GroupBy = 'day' | 'model' | 'day,model';

/** The wire's counts as they are, with the two amounts kept in atto until the rows are formatted. */
type Sums = Pick<EarningsSumsJson, 'events' | 'prompt_tokens' | 'completion_tokens' | 'cached_tokens' | 'cache_write_tokens' | 'audio_tokens'> & {
  official: bigint;
  earned: bigint;
};

/** The expected API rows, computed from the raw events in memory. */
function expectedRows(events: WrittenEvent[], contributorId: string, from: Date, to: Date, groupBy: GroupBy) {
  const groups = new Map<string, { day?: string; model?: string } & Sums>();
  for (const ev of events) {
    if (!ev.amounts || ev.contributorId !== contributorId) continue;
    if (ev.occurredAt < from || ev.occurredAt >= to) continue;
    const day = groupBy === 'model' ? undefined : utcDay(ev.occurredAt);
    const model = groupBy === 'day' ? undefined : ev.model;
    const key = `${day ?? ''}\u0000${model ?? ''}`;
    const g = groups.get(key) ?? { ...(day ? { day } : {}), ...(model ? { model } : {}), events: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, cache_write_tokens: 0, audio_tokens: 0, official: 0n, earned: 0n };
    g.events += 1;
    g.prompt_tokens += ev.promptTokens;
    g.completion_tokens += ev.completionTokens;
    // The factory writes text events: cache writes and audio stay 0.
    g.cached_tokens += ev.cachedTokens;
    g.official += ev.amounts.officialAtto;
    g.earned += ev.amounts.payoutAtto;
    groups.set(key, g);
  }
  const bytes = (s: string | undefined) => Buffer.from(s ?? '');
  return [...groups.values()]
    .sort((a, b) => (a.day ?? '').localeCompare(b.day ?? '') || Buffer.compare(bytes(a.model), bytes(b.model)))
    .map(({ official, earned, ...rest }) => ({ ...rest, official_usd: formatAttoAsUsd(official), earned_usd: formatAttoAsUsd(earned), ...NO_REFUNDS(earned) }));
}

/** The refund columns of a day without refunds (test/refunds covers days with them). */
const NO_REFUNDS = (earned: bigint) => ({ refunds: 0, refunded_usd: '0', clawed_back_usd: '0', net_earned_usd: formatAttoAsUsd(earned) });

describe('contributor earnings from the daily rollup', () => {
  let t: TestApp;
  let events: WrittenEvent[];
  const earnings = (id: string, query: string) => t.admin(t.http.get(`/v1/contributors/${id}/earnings?${query}`));

  beforeAll(async () => {
    t = await startTestApp('earnings');
    const factory = new UsageFactory(t);
    const since = new Date('2026-01-01T00:00:00Z');
    await factory.price({ model: MODELS[0], inputUsdPerMtok: '2.5', outputUsdPerMtok: '10', cachedInputUsdPerMtok: '1.25', effectiveFrom: since });
    // A new price version mid-range: each event must use the one in force when it occurred.
    await factory.price({ model: MODELS[0], inputUsdPerMtok: '2', outputUsdPerMtok: '8', cachedInputUsdPerMtok: '0.5', effectiveFrom: new Date('2026-11-04T00:00:00Z') });
    await factory.price({ model: MODELS[1], inputUsdPerMtok: '3', outputUsdPerMtok: '15', effectiveFrom: since });
    await factory.price({ model: MODELS[2], inputUsdPerMtok: '0.15', outputUsdPerMtok: '0.6', cachedInputUsdPerMtok: '0.075', effectiveFrom: since });
    await factory.contributor({ id: 'c-std', tiers: [{ tier: 'standard', effectiveFrom: since }] });
    await factory.contributor({ id: 'c-prem', tiers: [{ tier: 'premium', effectiveFrom: since }] });
    await factory.contributor({ id: 'c-switch', tiers: [{ tier: 'standard', effectiveFrom: since }, { tier: 'premium', effectiveFrom: SWITCH_AT }] });
    await factory.contributor({ id: 'c-empty', tiers: [{ tier: 'standard', effectiveFrom: since }] });
    const random = seededRandom(SEED);
    const seeds = randomEvents(random, { count: 600, prefix: 'ev', contributors: CONTRIBUTORS, models: MODELS, users: ['u1', 'u2', 'u3'], days: DAYS });
    // Unpriced events (no price for the model) are stored but never earn.
    const unpriced = randomEvents(random, { count: 7, prefix: 'unpriced', contributors: CONTRIBUTORS, models: ['x/no-price'], users: ['u1'], days: DAYS });
    events = [];
    for (let i = 0; i < seeds.length; i += 200) events.push(...(await factory.events(seeds.slice(i, i + 200))));
    events.push(...(await factory.events(unpriced)));
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it(`earnings by day, model and day,model equal the sums over the raw events (seed ${SEED})`, async () => {
    const from = DAYS[0]!;
    const to = new Date(DAYS.at(-1)!.getTime() + DAY_MS);
    for (const id of CONTRIBUTORS) {
      for (const groupBy of ['day', 'model', 'day,model'] as const) {
        const res = await earnings(id, `from=${utcDay(from)}&to=${utcDay(to)}&group_by=${encodeURIComponent(groupBy)}`).expect(200);
        expect(res.body.rows).toEqual(expectedRows(events, id, from, to, groupBy));
        expect(res.body).toMatchObject({ contributor_id: id, from: '2026-11-01T00:00:00Z', to: '2026-11-07T00:00:00Z', group_by: groupBy });
      }
    }
  });

  it('totals are the exact sum of the rows, and a tier change shows in earned/official per day', async () => {
    const res = await earnings('c-switch', 'from=2026-11-01&to=2026-11-07&group_by=day').expect(200);
    const rows = res.body.rows as Array<{ day: string; events: number; prompt_tokens: number; official_usd: string; earned_usd: string }>;
    const atto = (usd: string) => parseUsdToAtto(usd);
    expect(res.body.totals.events).toBe(rows.reduce((n, r) => n + r.events, 0));
    expect(res.body.totals.prompt_tokens).toBe(rows.reduce((n, r) => n + r.prompt_tokens, 0));
    expect(formatAttoAsUsd(rows.reduce((n, r) => n + atto(r.earned_usd), 0n))).toBe(res.body.totals.earned_usd);
    expect(formatAttoAsUsd(rows.reduce((n, r) => n + atto(r.official_usd), 0n))).toBe(res.body.totals.official_usd);
    // Whole days before the switch earn 1.1x official, whole days after 1.2x.
    const ratio = (r: { official_usd: string; earned_usd: string }) => Number((atto(r.earned_usd) * 1000n) / atto(r.official_usd)) / 1000;
    expect(ratio(rows.find((r) => r.day === '2026-11-02')!)).toBe(1.1);
    expect(ratio(rows.find((r) => r.day === '2026-11-05')!)).toBe(1.2);
    const switchDay = ratio(rows.find((r) => r.day === '2026-11-03')!);
    expect(switchDay).toBeGreaterThan(1.1);
    expect(switchDay).toBeLessThan(1.2);
  });

  it('counts from inclusive and to exclusive, in whole UTC days (timestamps at midnight accepted)', async () => {
    const res = await earnings('c-std', 'from=2026-11-02T00:00:00Z&to=2026-11-04T00:00:00%2B00:00&group_by=day').expect(200);
    expect(res.body.rows.map((r: { day: string }) => r.day)).toEqual(['2026-11-02', '2026-11-03']);
    expect(res.body.rows).toEqual(expectedRows(events, 'c-std', DAYS[1]!, DAYS[3]!, 'day'));
    const empty = await earnings('c-std', 'from=2026-11-03&to=2026-11-03').expect(200);
    expect(empty.body).toMatchObject({ rows: [], totals: { events: 0, prompt_tokens: 0, completion_tokens: 0, cached_tokens: 0, cache_write_tokens: 0, audio_tokens: 0, official_usd: '0', earned_usd: '0' } });
  });

  it('defaults to group_by=day over the last 30 days (today included)', async () => {
    const res = await earnings('c-std', '').expect(200);
    const today = utcDay(new Date());
    const tomorrow = utcDay(new Date(Date.now() + DAY_MS));
    expect(res.body.group_by).toBe('day');
    expect(res.body.to).toBe(`${tomorrow}T00:00:00Z`);
    expect(Date.parse(res.body.to) - Date.parse(res.body.from)).toBe(30 * DAY_MS);
    expect(today < tomorrow).toBe(true);
  });

  it('a contributor without usage has empty earnings and zero balances', async () => {
    const res = await earnings('c-empty', 'from=2026-11-01&to=2026-11-07').expect(200);
    expect(res.body.rows).toEqual([]);
    const balance = await t.admin(t.http.get('/v1/contributors/c-empty/balance')).expect(200);
    expect(balance.body).toEqual({ contributor_id: 'c-empty', tier: 'standard', accrued_usd: '0', pending_usd: '0', payable_usd: '0', in_settlement_usd: '0', paid_usd: '0' });
  });

  it('serves the same rows as CSV (header, decimal money, text/csv)', async () => {
    for (const groupBy of ['day', 'model', 'day,model'] as const) {
      const query = `from=2026-11-01&to=2026-11-07&group_by=${encodeURIComponent(groupBy)}`;
      const json = await earnings('c-prem', query).expect(200);
      const csvRes = await t.admin(t.http.get(`/v1/contributors/c-prem/earnings.csv?${query}`)).buffer(true).parse(readText as never).expect(200);
      expect(csvRes.headers['content-type']).toMatch(/^text\/csv/);
      expect(csvRes.headers['content-disposition']).toMatch(/attachment; filename="earnings-c-prem-2026-11-01-2026-11-07\.csv"/);
      const [header, ...lines] = parseCsv(csvRes.body as string);
      const columns = [...(groupBy === 'model' ? [] : ['day']), ...(groupBy === 'day' ? [] : ['model']), 'events', 'prompt_tokens', 'completion_tokens', 'official_usd', 'earned_usd', 'cached_tokens', 'cache_write_tokens', 'audio_tokens', 'refunds', 'refunded_usd', 'clawed_back_usd', 'net_earned_usd'];
      expect(header).toEqual(columns);
      const fromCsv = lines.map((line) =>
        Object.fromEntries(line.map((value, i) => [columns[i]!, ['events', 'prompt_tokens', 'completion_tokens', 'cached_tokens', 'cache_write_tokens', 'audio_tokens', 'refunds'].includes(columns[i]!) ? Number(value) : value])),
      );
      expect(fromCsv).toEqual(json.body.rows);
    }
  });

  it('balance: payable is everything earned (no settlement yet) and accrued = payable + in_settlement + paid', async () => {
    for (const id of CONTRIBUTORS) {
      const earned = events.filter((e) => e.contributorId === id && e.amounts).reduce((n, e) => n + e.amounts!.payoutAtto, 0n);
      const res = await t.admin(t.http.get(`/v1/contributors/${id}/balance`)).expect(200);
      expect(res.body).toEqual({
        contributor_id: id,
        tier: id === 'c-std' ? 'standard' : 'premium',
        accrued_usd: formatAttoAsUsd(earned),
        pending_usd: '0',
        payable_usd: formatAttoAsUsd(earned),
        in_settlement_usd: '0',
        paid_usd: '0',
      });
    }
  });

  it('overview totals agree with the events and the stored balances', async () => {
    const priced = events.filter((e) => e.amounts);
    const sum = (pick: (e: WrittenEvent) => bigint) => priced.reduce((n, e) => n + pick(e), 0n);
    const res = await t.admin(t.http.get('/v1/admin/overview')).expect(200);
    expect(res.body).toMatchObject({
      charged_usd: formatAttoAsUsd(sum((e) => e.amounts!.chargeAtto)),
      revenue_usd: formatAttoAsUsd(sum((e) => e.amounts!.marginAtto)),
      users_balance_usd: formatAttoAsUsd(-sum((e) => e.amounts!.chargeAtto)),
      held_usd: '0',
      contributors_payable_usd: formatAttoAsUsd(sum((e) => e.amounts!.payoutAtto)),
      in_settlement_usd: '0',
      paid_usd: '0',
      unpriced_events: 7,
      last_settlement: null,
    });
    expect(res.body).toHaveProperty('hot_wallet');
  });

  it('the ledger check passes with the rollups check, and the rollups check catches a drifted row', async () => {
    const ok = await t.admin(t.http.get('/v1/admin/ledger/check')).expect(200);
    expect(ok.body.ok).toBe(true);
    expect(ok.body.rollups).toMatchObject({ ok: true, mismatched: [] });
    const client = new pg.Client({ connectionString: t.databaseUrl });
    await client.connect();
    try {
      await client.query(`UPDATE contributor_usage_daily SET events = events + 1 WHERE contributor_id = 'c-std' AND day = '2026-11-02' AND model = $1`, [MODELS[0]]);
      const drifted = await t.admin(t.http.get('/v1/admin/ledger/check')).expect(200);
      expect(drifted.body.ok).toBe(false);
      expect(drifted.body.rollups.mismatched).toHaveLength(1);
      expect(drifted.body.rollups.mismatched[0]).toMatchObject({ contributor_id: 'c-std', day: '2026-11-02', model: MODELS[0] });
      expect(Number(drifted.body.rollups.mismatched[0].rollup.events)).toBe(Number(drifted.body.rollups.mismatched[0].events.events) + 1);
    } finally {
      await client.query(`UPDATE contributor_usage_daily SET events = events - 1 WHERE contributor_id = 'c-std' AND day = '2026-11-02' AND model = $1`, [MODELS[0]]);
      await client.end();
    }
    const restored = await t.admin(t.http.get('/v1/admin/ledger/check')).expect(200);
    expect(restored.body.rollups.ok).toBe(true);
  });
});
