// Refunds and clawbacks on the real app and Postgres (api.md "Refunds and clawbacks"): parts of a
// full refund restore the user exactly and claw back exactly the payout; idempotency, 409, 422,
// 404, 400; concurrency; the list with filters and cursors; audit and webhook rows; top-up
// chargebacks. The ledger check is clean after every test.
import { formatAttoAsUsd, parseUsdToAtto } from '../../src/common/money/index.js';
import { Pool } from 'pg';
import { WEBHOOK_EVENT_SCHEMAS } from '../../src/modules/webhooks/webhook-event-types.js';
import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const fmt = formatAttoAsUsd;
const atto = (usd: string) => parseUsdToAtto(usd, { allowNegative: true });

let t: TestApp;
let pool: Pool;

async function balanceOf(code: string): Promise<bigint> {
  const r = await pool.query<{ balance_atto: string }>('SELECT balance_atto FROM accounts WHERE code = $1', [code]);
  return r.rows[0] ? BigInt(r.rows[0].balance_atto) : 0n;
}
async function postedTo(code: string, kinds: string[]): Promise<bigint> {
  const r = await pool.query<{ s: string | null }>('SELECT sum(amount_atto) AS s FROM ledger_postings WHERE account_code = $1 AND kind = ANY($2)', [code, kinds]);
  return BigInt(r.rows[0]!.s ?? '0');
}
const refundsOf = (eventId: string) => t.admin(t.http.post(`/v1/admin/usage-events/${eventId}/refunds`));

beforeAll(async () => {
  t = await startTestApp('refunds', { WEBHOOK_ALLOW_PRIVATE: 'true' });
  pool = new Pool({ connectionString: t.databaseUrl, max: 2 });
  await seedBilling(t, { userCreditUsd: '100' });
  // An admin endpoint subscribed to refund.created, so the outbox keeps the event (no worker here).
  await t.admin(t.http.post('/v1/admin/webhooks')).send({ url: 'http://127.0.0.1:9/hook', events: ['refund.created'] }).expect(201);
});
afterAll(async () => {
  await pool?.end();
  await t?.close();
});
afterEach(async () => {
  await expectLedgerClean(t);
});

describe('refunds', () => {
  it('a full refund in three parts restores the user exactly, claws back exactly the payout, reverses exactly the margin', async () => {
    const userBefore = await balanceOf('user:u_42');
    const priced = await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'rf-ev-1', contributor_id: 'c_prem' })).expect(201);
    const charge = atto(priced.body.charge_usd);
    const payout = atto(priced.body.payout_usd);
    const margin = atto(priced.body.margin_usd);
    const payableBefore = await balanceOf('contributor:c_prem:payable');

    // Awkward parts: 1/3 + 1 atto, 1/3, the rest (default amount).
    const first = charge / 3n + 1n;
    const second = charge / 3n;
    const a = await refundsOf('rf-ev-1').send({ refund_id: 'rf-1a', amount_usd: fmt(first), reason: 'garbage output' }).expect(201);
    const b = await refundsOf('rf-ev-1').send({ refund_id: 'rf-1b', amount_usd: fmt(second), reason: 'garbage output' }).expect(201);
    const c = await refundsOf('rf-ev-1').send({ refund_id: 'rf-1c', reason: 'garbage output' }).expect(201);
    expect(atto(c.body.amount_usd)).toBe(charge - first - second);
    expect(c.body.refunded_total_usd).toBe(priced.body.charge_usd);
    expect(c.body.clawed_back_total_usd).toBe(priced.body.payout_usd);
    // Each part: the cumulative floor rule.
    let refunded = 0n;
    let clawed = 0n;
    for (const part of [a.body, b.body, c.body]) {
      refunded += atto(part.amount_usd);
      clawed += atto(part.contributor_clawback_usd);
      expect(clawed).toBe((refunded * payout) / charge);
      expect(atto(part.amount_usd)).toBe(atto(part.contributor_clawback_usd) + atto(part.margin_reversed_usd));
    }
    const marginReversed = [a, b, c].reduce((s, r) => s + atto(r.body.margin_reversed_usd), 0n);
    expect(marginReversed).toBe(margin);
    expect(await balanceOf('user:u_42')).toBe(userBefore);
    expect(await balanceOf('contributor:c_prem:payable')).toBe(payableBefore - payout);
    expect(await postedTo('platform:revenue', ['refund'])).toBe(-margin);
    // Nothing left: another part is refused and changes nothing.
    const over = await refundsOf('rf-ev-1').send({ refund_id: 'rf-1d', amount_usd: '0.000000000000000001', reason: 'again' }).expect(422);
    expect(over.body.error).toMatchObject({ code: 'refund_exceeds_charge', details: { refundable_usd: '0' } });
    const journal = await pool.query(`SELECT kind, ref, account_codes, amounts_atto, memo FROM journal_entries WHERE kind = 'refund' AND ref LIKE 'refund:rf-1%' ORDER BY id`);
    expect(journal.rows.map((r) => r.ref)).toEqual(['refund:rf-1a', 'refund:rf-1b', 'refund:rf-1c']);
    expect(journal.rows[0].account_codes).toEqual(['user:u_42', 'contributor:c_prem:payable', 'platform:revenue']);
  });

  it('is idempotent by refund_id: the same payload is replayed (200), a changed one is 409 and changes nothing', async () => {
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'rf-ev-2' })).expect(201);
    const first = await refundsOf('rf-ev-2').send({ refund_id: 'rf-2', amount_usd: '0.001', reason: 'double billed' }).expect(201);
    const again = await refundsOf('rf-ev-2').send({ refund_id: 'rf-2', amount_usd: '0.001', reason: 'double billed' }).expect(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'rf-ev-2b' })).expect(201);
    const user = await balanceOf('user:u_42');
    for (const changed of [{ amount_usd: '0.002', reason: 'double billed' }, { amount_usd: '0.001', reason: 'other' }, { reason: 'double billed' }]) {
      const res = await refundsOf('rf-ev-2').send({ refund_id: 'rf-2', ...changed }).expect(409);
      expect(res.body.error.code).toBe('idempotency_conflict');
    }
    await refundsOf('rf-ev-2b').send({ refund_id: 'rf-2', amount_usd: '0.001', reason: 'double billed' }).expect(409);
    expect(await balanceOf('user:u_42')).toBe(user);
    expect((await pool.query(`SELECT count(*)::int AS n FROM refunds WHERE refund_id = 'rf-2'`)).rows[0].n).toBe(1);
  });

  it('refuses 422 not_priced, 404 for an unknown event, 400 for bad input; nothing changes', async () => {
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'rf-ev-unpriced', model: 'acme/no-price' })).expect(202);
    const before = (await pool.query('SELECT count(*)::int AS n FROM journal_entries')).rows[0].n;
    const unpriced = await refundsOf('rf-ev-unpriced').send({ refund_id: 'rf-3a', reason: 'x' }).expect(422);
    expect(unpriced.body.error.code).toBe('not_priced');
    expect((await refundsOf('nope').send({ refund_id: 'rf-3b', reason: 'x' }).expect(404)).body.error.code).toBe('not_found');
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'rf-ev-3' })).expect(201);
    for (const body of [
      { refund_id: 'rf-3c', amount_usd: 0.001, reason: 'number' },
      { refund_id: 'rf-3c', amount_usd: '-0.001', reason: 'negative' },
      { refund_id: 'rf-3c', amount_usd: '0', reason: 'zero' },
      { refund_id: 'rf-3c', amount_usd: '0.0000000000000000001', reason: 'below one atto' },
      { refund_id: 'rf-3c', amount_usd: '0.001' },
      { refund_id: 'rf-3c', amount_usd: '0.001', reason: '   ' },
      { amount_usd: '0.001', reason: 'no id' },
      { refund_id: 'rf-3c', reason: 'extra', extra: true },
    ]) {
      const res = await refundsOf('rf-ev-3').send(body);
      expect([res.status, res.body.error?.code]).toEqual([400, 'validation_failed']);
    }
    const past = await refundsOf('rf-ev-3').send({ refund_id: 'rf-3d', amount_usd: '1000', reason: 'too much' }).expect(422);
    expect(past.body.error.code).toBe('refund_exceeds_charge');
    // The 202 + 404 + 400s + 422 wrote nothing but the priced event of rf-ev-3.
    expect((await pool.query('SELECT count(*)::int AS n FROM journal_entries')).rows[0].n).toBe(before + 1);
    expect((await pool.query(`SELECT count(*)::int AS n FROM refunds WHERE refund_id LIKE 'rf-3%'`)).rows[0].n).toBe(0);
  });

  it('the same refund_id 50 times at once is one refund', async () => {
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'rf-ev-4' })).expect(201);
    const user = await balanceOf('user:u_42');
    const responses = await Promise.all(Array.from({ length: 50 }, () => refundsOf('rf-ev-4').send({ refund_id: 'rf-4', amount_usd: '0.002', reason: 'storm' })));
    expect(responses.filter((r) => r.status === 201)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 200)).toHaveLength(49);
    for (const r of responses) expect(r.body.refund_id).toBe('rf-4');
    expect(await balanceOf('user:u_42')).toBe(user + atto('0.002'));
    expect((await pool.query(`SELECT count(*)::int AS n FROM journal_entries WHERE kind = 'refund' AND ref = 'refund:rf-4'`)).rows[0].n).toBe(1);
  });

  it('two different refunds racing past the charge: one succeeds, the other gets 422', async () => {
    const priced = await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'rf-ev-5' })).expect(201);
    const charge = atto(priced.body.charge_usd);
    const part = fmt((charge * 6n) / 10n);
    for (let round = 0; round < 5; round += 1) {
      const eventId = `rf-ev-5-${round}`;
      await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: eventId })).expect(201);
      const [x, y] = await Promise.all([
        refundsOf(eventId).send({ refund_id: `rf-5x-${round}`, amount_usd: part, reason: 'race' }),
        refundsOf(eventId).send({ refund_id: `rf-5y-${round}`, amount_usd: part, reason: 'race' }),
      ]);
      expect([x.status, y.status].sort()).toEqual([201, 422]);
      expect([x, y].find((r) => r.status === 422)!.body.error.code).toBe('refund_exceeds_charge');
      const sum = await pool.query<{ s: string }>('SELECT sum(amount_atto) AS s FROM refunds WHERE event_id = $1', [eventId]);
      expect(BigInt(sum.rows[0]!.s)).toBe(atto(part));
    }
  });

  it('writes an audit entry with the reason and a refund.created webhook event in the same transaction', async () => {
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'rf-ev-6', contributor_id: 'c_prem' })).expect(201);
    const res = await refundsOf('rf-ev-6').send({ refund_id: 'rf-6', reason: 'model returned garbage' }).expect(201);
    const audit = await t.admin(t.http.get('/v1/admin/audit-log?limit=5')).expect(200);
    const entry = audit.body.data.find((a: { action: string; target: string }) => a.action === 'usage_event.refund' && a.target === 'usage_event:rf-ev-6');
    expect(entry.after).toMatchObject({ refund_id: 'rf-6', reason: 'model returned garbage', amount_usd: res.body.amount_usd });
    const events = await pool.query(`SELECT type, data, contributor_id FROM webhook_events WHERE type = 'refund.created' AND data->>'refund_id' = 'rf-6'`);
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0].contributor_id).toBe('c_prem');
    expect(WEBHOOK_EVENT_SCHEMAS['refund.created'].parse(events.rows[0].data)).toEqual({
      refund_id: 'rf-6',
      event_id: 'rf-ev-6',
      user_id: 'u_42',
      contributor_id: 'c_prem',
      amount_usd: res.body.amount_usd,
      contributor_clawback_usd: res.body.contributor_clawback_usd,
      margin_reversed_usd: res.body.margin_reversed_usd,
      refunded_total_usd: res.body.refunded_total_usd,
      reason: 'model returned garbage',
    });
  });

  it('lists refunds newest first with filters and cursors', async () => {
    const all = await t.admin(t.http.get('/v1/admin/refunds?limit=500')).expect(200);
    const ids: string[] = all.body.data.map((r: { refund_id: string }) => r.refund_id);
    expect(ids.slice(-3)).toEqual(['rf-1c', 'rf-1b', 'rf-1a']);
    const collected: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: Array<{ refund_id: string }>; next_cursor: string | null } } = await t.admin(t.http.get(`/v1/admin/refunds?limit=2${cursor ? `&cursor=${cursor}` : ''}`)).expect(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      collected.push(...page.body.data.map((r) => r.refund_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(collected).toEqual(ids);
    const byEvent = await t.admin(t.http.get('/v1/admin/refunds?event_id=rf-ev-1')).expect(200);
    expect(byEvent.body.data.map((r: { refund_id: string }) => r.refund_id)).toEqual(['rf-1c', 'rf-1b', 'rf-1a']);
    const byContributor = await t.admin(t.http.get('/v1/admin/refunds?contributor_id=c_prem&user_id=u_42')).expect(200);
    expect(new Set(byContributor.body.data.map((r: { contributor_id: string }) => r.contributor_id))).toEqual(new Set(['c_prem']));
    expect(byContributor.body.data.map((r: { refund_id: string }) => r.refund_id).sort()).toEqual(['rf-1a', 'rf-1b', 'rf-1c', 'rf-6']);
    expect((await t.admin(t.http.get('/v1/admin/refunds?user_id=nobody')).expect(200)).body).toEqual({ data: [], next_cursor: null });
    await t.admin(t.http.get('/v1/admin/refunds?cursor=nope')).expect(400);
    await t.admin(t.http.get('/v1/admin/refunds?limit=0')).expect(400);
    await t.admin(t.http.get('/v1/admin/refunds?color=red')).expect(400);
    const gateway = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway' }).expect(201);
    await t.http.get('/v1/admin/refunds').set('Authorization', `Bearer ${gateway.body.key}`).expect(403);
    await t.http.post('/v1/admin/usage-events/rf-ev-3/refunds').set('Authorization', `Bearer ${gateway.body.key}`).send({ refund_id: 'g', reason: 'x' }).expect(403);
  });

  it('earnings and their CSV show refunds on the day they were made, never on the event day', async () => {
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const refunds = (await pool.query(`SELECT count(*)::int AS n, sum(amount_atto) AS refunded, sum(clawback_atto) AS clawed FROM refunds WHERE contributor_id = 'c_prem'`)).rows[0];
    const usage = (await pool.query(`SELECT count(*)::int AS n, sum(payout_atto) AS earned FROM usage_events WHERE contributor_id = 'c_prem' AND status = 'priced'`)).rows[0];
    const res = await t.admin(t.http.get(`/v1/contributors/c_prem/earnings?from=2026-11-29&to=${tomorrow}&group_by=day`)).expect(200);
    const eventDay = res.body.rows.find((r: { day: string }) => r.day === '2026-11-29');
    const refundDay = res.body.rows.find((r: { day: string }) => r.day === today);
    expect(eventDay).toMatchObject({ events: usage.n, earned_usd: fmt(BigInt(usage.earned)), refunds: 0, clawed_back_usd: '0' });
    expect(refundDay).toMatchObject({ events: 0, earned_usd: '0', refunds: refunds.n, refunded_usd: fmt(BigInt(refunds.refunded)), clawed_back_usd: fmt(BigInt(refunds.clawed)) });
    expect(refundDay.net_earned_usd).toBe(`-${fmt(BigInt(refunds.clawed))}`);
    expect(res.body.totals).toMatchObject({ refunds: refunds.n, net_earned_usd: fmt(BigInt(usage.earned) - BigInt(refunds.clawed)) });
    const csv = await t.admin(t.http.get(`/v1/contributors/c_prem/earnings.csv?from=2026-11-29&to=${tomorrow}&group_by=day`)).buffer(true).parse((r, cb) => {
      let text = '';
      r.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      r.on('end', () => cb(null, text));
    }).expect(200);
    const lines = (csv.body as string).trim().split('\r\n');
    expect(lines[0]).toBe('day,events,prompt_tokens,completion_tokens,official_usd,earned_usd,cached_tokens,cache_write_tokens,audio_tokens,refunds,refunded_usd,clawed_back_usd,net_earned_usd');
    expect(lines).toContain(`${today},0,0,0,0,0,0,0,0,${refunds.n},${fmt(BigInt(refunds.refunded))},${fmt(BigInt(refunds.clawed))},-${fmt(BigInt(refunds.clawed))}`);
  });

  it("shows every refund's clawback on the contributor's statement of the month it was made, and the statement ties out", async () => {
    const month = new Date().toISOString().slice(0, 7);
    for (const contributor of ['c_std', 'c_prem']) {
      const r = await pool.query<{ s: string | null }>(
        `SELECT sum(clawback_atto) AS s FROM refunds WHERE contributor_id = $1 AND created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`,
        [contributor],
      );
      const clawedAtto = BigInt(r.rows[0]!.s ?? '0');
      const statement = await t.admin(t.http.get(`/v1/contributors/${contributor}/statements/${month}`)).expect(200);
      expect(statement.body.clawed_back_usd).toBe(fmt(clawedAtto));
      const owed = (await balanceOf(`contributor:${contributor}:payable`)) + (await balanceOf(`contributor:${contributor}:pending`)) + (await balanceOf(`contributor:${contributor}:in_settlement`));
      expect(statement.body.closing_usd).toBe(fmt(owed));
    }
  });

  it('the admin overview counts refunds: revenue is the margin kept, refunded_usd what went back to users', async () => {
    const events = await pool.query<{ margin: string | null }>(`SELECT sum(margin_atto) AS margin FROM usage_events WHERE status = 'priced'`);
    const refunds = await pool.query<{ amount: string | null; margin: string | null }>('SELECT sum(amount_atto) AS amount, sum(margin_reversed_atto) AS margin FROM refunds');
    const overview = await t.admin(t.http.get('/v1/admin/overview')).expect(200);
    expect(BigInt(refunds.rows[0]!.amount ?? '0')).toBeGreaterThan(0n);
    expect(overview.body.refunded_usd).toBe(fmt(BigInt(refunds.rows[0]!.amount ?? '0')));
    expect(overview.body.revenue_usd).toBe(fmt(BigInt(events.rows[0]!.margin ?? '0') - BigInt(refunds.rows[0]!.margin ?? '0')));
    expect(overview.body.contributors_pending_usd).toBe('0');
  });

  it('documents the refund endpoints in the OpenAPI document', async () => {
    const docs = await t.http.get('/docs-json').expect(200);
    expect(docs.body.paths['/v1/admin/usage-events/{event_id}/refunds']?.post).toBeDefined();
    expect(docs.body.paths['/v1/admin/refunds']?.get).toBeDefined();
  });
});

describe('top-up chargebacks', () => {
  it('a negative adjustment with a reason may take a user negative: holds then get 402, events are still billed', async () => {
    await t.admin(t.http.post('/v1/admin/users/u_cb/credits')).send({ amount_usd: '5', reference: 'cb-topup' }).expect(201);
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'cb-ev-1', user_id: 'u_cb' })).expect(201);
    const noReason = await t.admin(t.http.post('/v1/admin/users/u_cb/credits')).send({ amount_usd: '-5', reference: 'cb-chargeback' }).expect(400);
    expect(noReason.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'reason' })]));
    const chargeback = await t.admin(t.http.post('/v1/admin/users/u_cb/credits')).send({ amount_usd: '-5', reference: 'cb-chargeback', reason: 'card chargeback' }).expect(201);
    expect(atto(chargeback.body.balance_usd)).toBeLessThan(0n);
    const hold = await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'cb-hold', user_id: 'u_cb', amount_usd: '0.01' }).expect(402);
    expect(hold.body.error.code).toBe('insufficient_funds');
    const billed = await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'cb-ev-2', user_id: 'u_cb' })).expect(201);
    const after = await t.admin(t.http.get('/v1/users/u_cb/balance')).expect(200);
    expect(atto(after.body.balance_usd)).toBe(atto(chargeback.body.balance_usd) - atto(billed.body.charge_usd));
    const audit = await t.admin(t.http.get('/v1/admin/audit-log?limit=10')).expect(200);
    expect(audit.body.data.find((a: { action: string; target: string }) => a.action === 'user.adjustment' && a.target === 'user:u_cb').after.reason).toBe('card chargeback');
  });
});

