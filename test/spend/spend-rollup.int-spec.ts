// Budgets' spend rollup (docs/spend-controls.md "Spend rollup"): user_spend_daily equals the
// user's events and refunds after concurrent ingestion on every write path (single, one-statement
// batch, transaction-path batch, hold captures, a user with a grant), refunds, a reprice of
// unpriced events, and budgets created while all that is in flight; each budget's spent equals
// the sum over the events; the ledger check's `spend_rollup` finds a tampered row.
import pg from 'pg';
import { expectLedgerClean, GPT4O, seedBilling } from '../support/billing-fixtures.js';
import { testAppForSuite } from '../support/test-app.js';

const LATER_MODEL = 'acme/priced-later';
const USERS = ['u_sr_mid', 'u_sr_first', 'u_sr_grant', 'u_sr_none'] as const;
const DAYS = ['2026-12-01', '2026-12-02', '2026-12-03'];

type Spent = { spent_usd: string; budget_id: string };

const atto = (usd: string) => {
  const negative = usd.startsWith('-');
  const [whole, fraction = ''] = (negative ? usd.slice(1) : usd).split('.');
  const value = BigInt(whole! + fraction.padEnd(18, '0'));
  return negative ? -value : value;
};

describe('spend rollup (real Postgres)', () => {
  const t = testAppForSuite('spend_rollup');
  let db: pg.Pool;

  beforeAll(async () => {
    await seedBilling(t);
    db = new pg.Pool({ connectionString: t.databaseUrl, max: 2 });
    db.on('error', () => undefined); // the suite's database is dropped with its connections
    for (const user of USERS) await t.admin(t.http.post(`/v1/admin/users/${user}/credits`)).send({ amount_usd: '1000', reference: `seed-${user}` }).expect(201);
    await t.admin(t.http.post('/v1/admin/users/u_sr_grant/credits')).send({ amount_usd: '0.05', reference: 'grant-sr', grant: { expires_at: '2027-06-01T00:00:00Z' } }).expect(201);
    // u_sr_first has a budget before any event; u_sr_mid gets its first one while events are written.
    await t.admin(t.http.put('/v1/admin/users/u_sr_first/budgets/all')).send({ limit_usd: '1000', period: 'total', action: 'block' }).expect(201);
  });
  afterAll(async () => {
    await db.end();
  });

  let n = 0;
  const event = (user: string, extra: Record<string, unknown> = {}) => {
    n += 1;
    return {
      event_id: `sr-${n}`,
      user_id: user,
      contributor_id: n % 2 === 0 ? 'c_std' : 'c_prem',
      model: n % 5 === 0 ? LATER_MODEL : GPT4O,
      occurred_at: `${DAYS[n % DAYS.length]}T${String(n % 24).padStart(2, '0')}:30:00Z`,
      usage: { prompt_tokens: 100 + n, completion_tokens: 10 + (n % 7), cached_tokens: 0, reasoning_tokens: 0 },
      ...(n % 3 === 0 ? {} : { key_id: `k${n % 3}` }),
      ...extra,
    };
  };

  /** Spent per budget recomputed from usage_events and refunds, independently of the rollup. */
  async function spentFromEvents(user: string, keyId: string | null, model: string | null): Promise<bigint> {
    const r = await db.query<{ spent: string }>(
      `SELECT (SELECT coalesce(sum(charge_atto), 0) FROM usage_events WHERE user_id = $1 AND charge_atto IS NOT NULL AND ($2::text IS NULL OR key_id = $2) AND ($3::text IS NULL OR model = $3))
            - (SELECT coalesce(sum(r.amount_atto), 0) FROM refunds r JOIN usage_events e ON e.event_id = r.event_id
               WHERE r.user_id = $1 AND ($2::text IS NULL OR e.key_id = $2) AND ($3::text IS NULL OR e.model = $3)) AS spent`,
      [user, keyId, model],
    );
    return BigInt(r.rows[0]!.spent);
  }

  it('equals the events after concurrent writes on every path, refunds, a reprice and budgets created mid-stream', async () => {
    const work: Array<Promise<unknown>> = [];
    const refundable: string[] = [];
    const single = (user: string, extra: Record<string, unknown> = {}) => {
      const e = event(user, extra);
      return t.admin(t.http.post('/v1/usage-events')).send(e).then((res) => {
        // 202: stored unpriced (the later model, until its price is added).
        expect(e.model === GPT4O ? [201] : [201, 202]).toContain(res.status);
        // Written: refundable from now on.
        if (e.model === GPT4O) refundable.push(e.event_id);
      });
    };
    const batch = (user: string, size: number) =>
      t.admin(t.http.post('/v1/usage-events/batch')).send({ events: Array.from({ length: size }, () => event(user)) }).then((res) => expect(res.status).toBe(200));
    const held = async (user: string, i: number) => {
      const hold = await t.admin(t.http.post('/v1/holds')).send({ hold_id: `sr-h-${user}-${i}`, user_id: user, amount_usd: '0.01', key_id: 'k1' });
      expect(hold.status).toBe(201);
      return single(user, { hold_id: `sr-h-${user}-${i}`, key_id: 'k1', model: GPT4O });
    };
    // Some events first, so the mid-stream budget's backfill has history to read.
    for (const user of USERS) await batch(user, 10);
    for (let round = 0; round < 8; round += 1) {
      for (const user of USERS) {
        work.push(single(user), single(user), batch(user, 8), held(user, round));
        if (round % 2 === 0) work.push(batch(user, 80)); // more than 64: the transaction path
      }
      if (round === 2 || round === 3) {
        // The first budget of u_sr_mid (and a second of u_sr_first) while the writes above are in flight.
        if (round === 2) work.push(t.admin(t.http.put('/v1/admin/users/u_sr_mid/budgets/k1')).send({ limit_usd: '1000', period: 'total', key_id: 'k1', action: 'notify' }).then((res) => expect(res.status).toBe(201)));
        else work.push(t.admin(t.http.put('/v1/admin/users/u_sr_first/budgets/gpt')).send({ limit_usd: '1000', period: 'total', model: GPT4O, action: 'block' }).then((res) => expect(res.status).toBe(201)));
      }
      if (round >= 3) {
        // Refunds of events already written, concurrent with the writes.
        for (const eventId of refundable.splice(0, 6)) {
          work.push(
            t.admin(t.http.post(`/v1/admin/usage-events/${eventId}/refunds`)).send({ refund_id: `${eventId}-r`, amount_usd: '0.00001', reason: 'rollup test' }).then((res) => expect(res.status).toBe(201)),
          );
        }
      }
      if (round === 4) {
        // A price for the unpriced model, and a reprice racing the writes.
        await t.admin(t.http.post('/v1/admin/prices')).send({ model: LATER_MODEL, input_usd_per_mtok: '3', output_usd_per_mtok: '7', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
        work.push(t.admin(t.http.post('/v1/admin/usage-events/reprice')).then((res) => expect(res.status).toBe(200)));
      }
      // Two rounds at a time in flight; then the events written so far can be refunded.
      if (round % 2 === 1) await Promise.all(work.splice(0));
    }
    await Promise.all(work);
    await t.admin(t.http.put('/v1/admin/users/u_sr_grant/budgets/all')).send({ limit_usd: '1000', period: 'total', action: 'notify' }).expect(201);
    await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200);
    for (const user of USERS) await batch(user, 5);

    const refunds = await db.query<{ n: string }>(`SELECT count(*) AS n FROM refunds WHERE user_id LIKE 'u_sr_%'`);
    expect(Number(refunds.rows[0]!.n)).toBeGreaterThan(10);
    const repriced = await db.query<{ n: string }>(`SELECT count(*) AS n FROM usage_events WHERE model = $1 AND status = 'priced'`, [LATER_MODEL]);
    expect(Number(repriced.rows[0]!.n)).toBeGreaterThan(0);

    // The rollup, row by row, against the events (the ledger check's spend_rollup, full).
    const check = await t.admin(t.http.get('/v1/admin/ledger/check?full=true')).expect(200);
    expect(check.body.spend_rollup).toMatchObject({ ok: true, mismatched: [] });
    expect(Number(check.body.spend_rollup.rollup_rows)).toBeGreaterThan(20);
    // Only users with budgets have rows.
    const rollupUsers = await db.query<{ user_id: string }>(`SELECT DISTINCT user_id FROM user_spend_daily ORDER BY 1`);
    expect(rollupUsers.rows.map((r) => r.user_id)).toEqual(['u_sr_first', 'u_sr_grant', 'u_sr_mid']);

    // Each budget's spent, as the API shows it, against the events.
    const scopes: Record<string, { keyId: string | null; model: string | null }> = { all: { keyId: null, model: null }, gpt: { keyId: null, model: GPT4O }, k1: { keyId: 'k1', model: null } };
    for (const user of ['u_sr_first', 'u_sr_mid', 'u_sr_grant']) {
      const listed = (await t.admin(t.http.get(`/v1/users/${user}/budgets`)).expect(200)).body.data as Spent[];
      expect(listed.length).toBeGreaterThan(0);
      for (const b of listed) {
        const scope = scopes[b.budget_id]!;
        const expected = await spentFromEvents(user, scope.keyId, scope.model);
        expect(expected).toBeGreaterThan(0n);
        expect(atto(b.spent_usd)).toBe(expected);
      }
    }
    await expectLedgerClean(t);
  }, 180_000);

  it('the ledger check reports a rollup row that differs from the events, and a missing one', async () => {
    const row = await db.query<{ user_id: string; day: string; key_id: string; model: string }>(
      `SELECT user_id, to_char(day, 'YYYY-MM-DD') AS day, key_id, model FROM user_spend_daily WHERE charge_atto > 0 ORDER BY 1, 2, 3, 4 LIMIT 1`,
    );
    const { user_id, day, key_id, model } = row.rows[0]!;
    const where = 'user_id = $1 AND day = $2 AND key_id = $3 AND model = $4';
    await db.query(`UPDATE user_spend_daily SET charge_atto = charge_atto + 1 WHERE ${where}`, [user_id, day, key_id, model]);
    const tampered = await t.admin(t.http.get('/v1/admin/ledger/check')).expect(200);
    expect(tampered.body.spend_rollup.ok).toBe(false);
    expect(tampered.body.spend_rollup.mismatched).toEqual([expect.objectContaining({ user_id, day, key_id: key_id === '' ? null : key_id, model })]);
    expect(atto(tampered.body.spend_rollup.mismatched[0].rollup.charge_usd) - atto(tampered.body.spend_rollup.mismatched[0].events.charge_usd)).toBe(1n);
    await db.query(`UPDATE user_spend_daily SET charge_atto = charge_atto - 1 WHERE ${where}`, [user_id, day, key_id, model]);

    const saved = await db.query(`DELETE FROM user_spend_daily WHERE ${where} RETURNING *`, [user_id, day, key_id, model]);
    const missing = await t.admin(t.http.get('/v1/admin/ledger/check?full=true')).expect(200);
    expect(missing.body.spend_rollup.ok).toBe(false);
    expect(missing.body.spend_rollup.mismatched).toEqual([expect.objectContaining({ user_id, day, model, rollup: { charge_usd: '0', refunded_usd: '0' } })]);
    const s = saved.rows[0] as { charge_atto: string; refunded_atto: string };
    await db.query(`INSERT INTO user_spend_daily (user_id, day, key_id, model, charge_atto, refunded_atto) VALUES ($1, $2, $3, $4, $5, $6)`, [user_id, day, key_id, model, s.charge_atto, s.refunded_atto]);
    await expectLedgerClean(t);
  });

  it('is switched off and dropped with the last budget, and backfilled again by a new first budget', async () => {
    const user = 'u_sr_first';
    const flag = async () => (await db.query<{ spend_rollup: boolean }>('SELECT spend_rollup FROM accounts WHERE code = $1', [`user:${user}`])).rows[0]!.spend_rollup;
    const rows = async () => Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM user_spend_daily WHERE user_id = $1', [user])).rows[0]!.n);
    expect(await flag()).toBe(true);
    await t.admin(t.http.delete(`/v1/admin/users/${user}/budgets/gpt`)).expect(204);
    // One budget left: the rollup stays.
    expect(await flag()).toBe(true);
    expect(await rows()).toBeGreaterThan(0);
    await t.admin(t.http.delete(`/v1/admin/users/${user}/budgets/all`)).expect(204);
    expect(await flag()).toBe(false);
    expect(await rows()).toBe(0);
    await t.admin(t.http.delete(`/v1/admin/users/${user}/budgets/all`)).expect(404);
    // Written without a budget: no rollup row.
    await t.admin(t.http.post('/v1/usage-events/batch')).send({ events: [event(user), event(user)] }).expect(200);
    expect(await rows()).toBe(0);
    // A new first budget backfills everything, the events written meanwhile included.
    const put = await t.admin(t.http.put(`/v1/admin/users/${user}/budgets/all`)).send({ limit_usd: '1000', period: 'total', action: 'block' }).expect(201);
    expect(atto((put.body as Spent).spent_usd)).toBe(await spentFromEvents(user, null, null));
    expect(await flag()).toBe(true);
    const check = await t.admin(t.http.get('/v1/admin/ledger/check?full=true')).expect(200);
    expect(check.body.spend_rollup).toMatchObject({ ok: true, mismatched: [] });
    await expectLedgerClean(t);
  });
});
