// The first budget's backfill reads the user's history outside the user's account lock
// (docs/spend-controls.md "The backfill"), on real Postgres: the user's writes (single events,
// batches on the transaction path, refunds) go on while it reads, and the rollup is exact after
// it (the ledger check's spend_rollup, full, and each budget's spent against the events); a
// replayed PUT and a backfill left half done are exact too. The history is read in chunks.
import pg from 'pg';
import { parseUsdToAtto } from '../../src/common/money/index.js';
import { SpendRollupRepository } from '../../src/modules/spend/spend-rollup.repository.js';
import { GPT4O, seedBilling } from '../support/billing-fixtures.js';
import { testAppForSuite } from '../support/test-app.js';

const USER = 'u_bf';
/** Stored history of the user: enough that reading it takes a while. */
const HISTORY_EVENTS = Number(process.env.BACKFILL_TEST_EVENTS ?? 60_000);
const atto = (usd: string) => parseUsdToAtto(usd, { allowNegative: true });

describe('first budget backfill outside the account lock', () => {
  const t = testAppForSuite('budget_backfill');
  let db: pg.Pool;
  let n = 0;

  const event = (user: string, extra: Record<string, unknown> = {}) => {
    n += 1;
    return {
      event_id: `bf-${n}`,
      user_id: user,
      contributor_id: 'c_std',
      model: GPT4O,
      occurred_at: `2026-11-${String(1 + (n % 28)).padStart(2, '0')}T10:00:00Z`,
      usage: { prompt_tokens: 100 + n, completion_tokens: 10, cached_tokens: 0, reasoning_tokens: 0 },
      ...(n % 3 === 0 ? {} : { key_id: `k${n % 3}` }),
      ...extra,
    };
  };
  const single = async (user: string) => {
    const e = event(user);
    await t.admin(t.http.post('/v1/usage-events')).send(e).expect(201);
    return e.event_id;
  };
  const batch = (user: string, size: number) => t.admin(t.http.post('/v1/usage-events/batch')).send({ events: Array.from({ length: size }, () => event(user)) }).expect(200);
  const refund = (eventId: string, i: number) =>
    t.admin(t.http.post(`/v1/admin/usage-events/${eventId}/refunds`)).send({ refund_id: `bf-r-${i}`, amount_usd: '0.00001', reason: 'backfill test' }).expect(201);

  /** The user's spend in the budget's scope, from usage_events and refunds (independent of the rollup). */
  async function spentFromEvents(user: string, keyId: string | null): Promise<bigint> {
    const r = await db.query<{ spent: string }>(
      `SELECT (SELECT coalesce(sum(charge_atto), 0) FROM usage_events WHERE user_id = $1 AND charge_atto IS NOT NULL AND ($2::text IS NULL OR key_id = $2))
            - (SELECT coalesce(sum(r.amount_atto), 0) FROM refunds r JOIN usage_events e ON e.event_id = r.event_id WHERE r.user_id = $1 AND ($2::text IS NULL OR e.key_id = $2)) AS spent`,
      [user, keyId],
    );
    return BigInt(r.rows[0]!.spent);
  }
  const budgets = async (user: string) => new Map<string, string>((await t.admin(t.http.get(`/v1/users/${user}/budgets`)).expect(200)).body.data.map((b: { budget_id: string; spent_usd: string }) => [b.budget_id, b.spent_usd]));
  const spendCheck = async () => (await t.admin(t.http.get('/v1/admin/ledger/check?full=true')).expect(200)).body.spend_rollup;

  beforeAll(async () => {
    await seedBilling(t);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    db.on('error', () => undefined); // the suite's database is dropped with its connections
    for (const user of [USER, 'u_bf2']) await t.admin(t.http.post(`/v1/admin/users/${user}/credits`)).send({ amount_usd: '100000', reference: `seed-${user}` }).expect(201);
    // Stored history written straight into usage_events (the backfill reads only these columns).
    await db.query(
      `INSERT INTO usage_events (event_id, request_hash, user_id, contributor_id, model, occurred_at, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, status, official_atto, charge_atto, payout_atto, margin_atto, key_id)
       SELECT 'bf-hist-' || g, 'h', $2, 'c_std', CASE WHEN g % 3 = 0 THEN 'm2' ELSE 'm1' END,
         timestamptz '2026-11-29T00:00:00Z' - (g % 90) * interval '1 day' - (g % 86000) * interval '1 second', 1, 1, 0, 0, 'priced', 1000, 1000 + g % 7, 800, 200 + g % 7, 'k' || (g % 4)
       FROM generate_series(1, $1::int) AS g`,
      [HISTORY_EVENTS, USER],
    );
    await db.query('ANALYZE usage_events');
    // The history read in chunks of an odd size: many statements, a last chunk of the rest.
    t.app.get(SpendRollupRepository).backfillChunkEvents = 7001;
  });
  afterAll(async () => {
    await db.end();
  });

  it("the user's writes go on during the backfill, and the rollup is exact after it", async () => {
    const refundable: string[] = [];
    for (let i = 0; i < 12; i += 1) refundable.push(await single(USER));
    let putDone = false;
    const finishedDuringPut: string[] = [];
    const track = (label: string) => () => {
      if (!putDone) finishedDuringPut.push(label);
    };
    const put = t.admin(t.http.put(`/v1/admin/users/${USER}/budgets/all`)).send({ limit_usd: '100000', period: 'total', action: 'notify' }).then((res) => {
      putDone = true;
      return res;
    });
    // Writes of the user while the PUT runs: single events (the one-statement write), batches of
    // 80 (the transaction path) and refunds, each started a little later than the one before.
    const work: Array<Promise<unknown>> = [];
    for (let i = 0; i < 20; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 15));
      work.push(single(USER).then(track(`single ${i}`)));
      if (i % 4 === 0) work.push(batch(USER, 80).then(track(`batch ${i}`)));
      if (i < refundable.length) work.push(refund(refundable[i]!, i).then(track(`refund ${i}`)));
    }
    const res = await put;
    expect(res.status).toBe(201);
    await Promise.all(work);
    // Writes completed while the first budget was being made: the history was read without the lock.
    expect(finishedDuringPut.length).toBeGreaterThan(0);
    // A second budget (scoped) after: the rollup is complete, no backfill.
    await t.admin(t.http.put(`/v1/admin/users/${USER}/budgets/k1`)).send({ limit_usd: '100000', period: 'total', key_id: 'k1', action: 'notify' }).expect(201);
    const check = await spendCheck();
    expect(check).toMatchObject({ ok: true, mismatched: [] });
    const spent = await budgets(USER);
    expect(atto(spent.get('all')!)).toBe(await spentFromEvents(USER, null));
    expect(atto(spent.get('k1')!)).toBe(await spentFromEvents(USER, 'k1'));
    expect(atto(spent.get('all')!)).toBeGreaterThan(BigInt(HISTORY_EVENTS) * 1000n);
  }, 120_000);

  it('a replayed first budget and a backfill left half done (flag set, no budget) are exact', async () => {
    for (let i = 0; i < 5; i += 1) await single('u_bf2');
    // As a crash between the backfill's first and last steps leaves it: flagged, rows partial, no budget.
    await db.query(`UPDATE accounts SET spend_rollup = true WHERE code = 'user:u_bf2'`);
    await db.query(`INSERT INTO user_spend_daily (user_id, day, key_id, model, charge_atto, refunded_atto) VALUES ('u_bf2', '2026-11-02', '', $1, 12345, 0)`, [GPT4O]);
    await single('u_bf2'); // added to the partial rollup by the write path
    const body = { limit_usd: '1000', period: 'total', action: 'block' };
    await t.admin(t.http.put('/v1/admin/users/u_bf2/budgets/all')).send(body).expect(201);
    await t.admin(t.http.put('/v1/admin/users/u_bf2/budgets/all')).send(body).expect(200);
    await single('u_bf2');
    expect(await spendCheck()).toMatchObject({ ok: true, mismatched: [] });
    expect(atto((await budgets('u_bf2')).get('all')!)).toBe(await spentFromEvents('u_bf2', null));
  });
});
