// Admin: contributor list with balances and stable cursors, idempotent adjustments, audit log,
// overview consistency.
import pg from 'pg';
import { formatAttoAsUsd, parseUsdToAtto } from '../../src/common/money/index.js';
import { UsageFactory } from '../factories/usage-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SINCE = new Date('2026-01-01T00:00:00Z');
// Payables chosen with ties (c-03 = c-05) so the payable sort needs its id tie-break.
const PAYABLES: Record<string, string> = { 'c-01': '5', 'c-02': '0.000000000000000001', 'c-03': '12.5', 'c-04': '0', 'c-05': '12.5', 'c-06': '7.25', 'c-07': '100' };
const IDS = Object.keys(PAYABLES);

describe('admin: contributors, adjustments, audit log, overview', () => {
  let t: TestApp;
  const adjust = (id: string, body: Record<string, unknown>) => t.admin(t.http.post(`/v1/admin/contributors/${id}/adjustments`)).send(body);

  beforeAll(async () => {
    t = await startTestApp('admin_earnings');
    const factory = new UsageFactory(t);
    for (const id of IDS) {
      await factory.contributor({ id, tiers: [{ tier: id === 'c-07' ? 'premium' : 'standard', effectiveFrom: SINCE }], payoutAddress: '0x52908400098527886e0f7030069857d2e4169ee7' });
      if (PAYABLES[id] !== '0') await adjust(id, { amount_usd: PAYABLES[id], reason: 'opening balance', reference: `open-${id}` }).expect(201);
    }
  });

  afterAll(async () => {
    await t?.close();
  });

  async function collect(query: string, limit: number) {
    const seen: Array<{ id: string; balances: { payable_usd: string } }> = [];
    let cursor: string | null = null;
    for (let page = 0; page < 20; page += 1) {
      const res: { body: { data: Array<{ id: string; balances: { payable_usd: string } }>; next_cursor: string | null } } = await t.admin(t.http.get(`/v1/admin/contributors?limit=${limit}&${query}${cursor ? `&cursor=${cursor}` : ''}`)).expect(200);
      expect(res.body.data.length).toBeLessThanOrEqual(limit);
      seen.push(...res.body.data);
      cursor = res.body.next_cursor;
      if (!cursor) return seen;
    }
    throw new Error('pagination did not end');
  }

  it('lists contributors with balances by id, page by page, each exactly once', async () => {
    const all = await collect('sort=id', 3);
    expect(all.map((c) => c.id)).toEqual(IDS);
    expect(all[0]).toEqual({
      id: 'c-01',
      tier: 'standard',
      status: 'active',
      payout_address: '0x52908400098527886E0F7030069857D2E4169EE7',
      balances: { accrued_usd: '5', pending_usd: '0', payable_usd: '5', in_settlement_usd: '0', paid_usd: '0' },
      debt_usd: '0',
    });
    const defaults = await t.admin(t.http.get('/v1/admin/contributors')).expect(200);
    expect(defaults.body.data.map((c: { id: string }) => c.id)).toEqual(IDS);
    expect(defaults.body.next_cursor).toBeNull();
  });

  it('sorts by payable descending with ties broken by id, across pages', async () => {
    const all = await collect('sort=payable_desc', 2);
    const expected = [...IDS].sort((a, b) => {
      const diff = parseUsdToAtto(PAYABLES[b]!) - parseUsdToAtto(PAYABLES[a]!);
      return diff > 0n ? 1 : diff < 0n ? -1 : a < b ? -1 : 1;
    });
    expect(all.map((c) => c.id)).toEqual(expected);
    expect(all.map((c) => c.balances.payable_usd)).toEqual(expected.map((id) => PAYABLES[id]));
  });

  it('adjusts payable idempotently: 201, 200 replay, 409 on a different payload, negative allowed', async () => {
    const first = await adjust('c-01', { amount_usd: '2.000000000000000001', reason: 'bonus', reference: 'adj-1' }).expect(201);
    expect(first.body).toMatchObject({ contributor_id: 'c-01', reference: 'adj-1', amount_usd: '2.000000000000000001', reason: 'bonus', payable_usd: '7.000000000000000001' });
    const replay = await adjust('c-01', { amount_usd: '2.000000000000000001', reason: 'bonus', reference: 'adj-1' }).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
    for (const different of [
      { amount_usd: '2', reason: 'bonus', reference: 'adj-1' },
      { amount_usd: '2.000000000000000001', reason: 'other', reference: 'adj-1' },
    ]) {
      expect((await adjust('c-01', different).expect(409)).body.error.code).toBe('idempotency_conflict');
    }
    expect((await adjust('c-02', { amount_usd: '2.000000000000000001', reason: 'bonus', reference: 'adj-1' }).expect(409)).body.error.code).toBe('idempotency_conflict');
    const clawback = await adjust('c-01', { amount_usd: '-10', reason: 'clawback', reference: 'adj-2' }).expect(201);
    expect(clawback.body.payable_usd).toBe('-2.999999999999999999');
    const balance = await t.admin(t.http.get('/v1/contributors/c-01/balance')).expect(200);
    expect(balance.body).toMatchObject({ payable_usd: '-2.999999999999999999', accrued_usd: '-2.999999999999999999' });
    await adjust('c-01', { amount_usd: '10', reason: 'undo clawback', reference: 'adj-3' }).expect(201);
    const check = await t.admin(t.http.get('/v1/admin/ledger/check')).expect(200);
    expect(check.body).toMatchObject({ ok: true, mismatched_accounts: [] });
  });

  it('applies concurrent replays of one reference exactly once', async () => {
    const body = { amount_usd: '1.5', reason: 'race', reference: 'adj-race' };
    const results = await Promise.all(Array.from({ length: 8 }, () => adjust('c-06', body)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
    expect(new Set(results.map((r) => r.body.payable_usd))).toEqual(new Set(['8.75']));
    const balance = await t.admin(t.http.get('/v1/contributors/c-06/balance')).expect(200);
    expect(balance.body.payable_usd).toBe('8.75');
    await adjust('c-06', { amount_usd: '-1.5', reason: 'race undone', reference: 'adj-race-undo' }).expect(201);
  });

  it('refuses bad adjustments with the field, and unknown contributors with 404', async () => {
    const field = async (body: Record<string, unknown>) => (await adjust('c-01', body).expect(400)).body.error.details.map((d: { field: string }) => d.field);
    expect(await field({ amount_usd: 5, reason: 'r', reference: 'x1' })).toContain('amount_usd');
    expect(await field({ amount_usd: '0', reason: 'r', reference: 'x1' })).toContain('amount_usd');
    expect(await field({ amount_usd: '1e3', reason: 'r', reference: 'x1' })).toContain('amount_usd');
    expect(await field({ amount_usd: '0.0000000000000000001', reason: 'r', reference: 'x1' })).toContain('amount_usd');
    expect(await field({ amount_usd: '1', reference: 'x1' })).toContain('reason');
    expect(await field({ amount_usd: '1', reason: '   ', reference: 'x1' })).toContain('reason');
    expect(await field({ amount_usd: '1', reason: 'r' })).toContain('reference');
    expect(await field({ amount_usd: '1', reason: 'r', reference: 'has\ttab' })).toContain('reference');
    expect(await field({ amount_usd: '1', reason: 'r', reference: 'x1', extra: true })).toContain('extra');
    const unknown = await adjust('c-nobody', { amount_usd: '1', reason: 'r', reference: 'x2' }).expect(404);
    expect(unknown.body.error.code).toBe('not_found');
    // Nothing was claimed: the reference is still free.
    await adjust('c-01', { amount_usd: '1', reason: 'r', reference: 'x2' }).expect(201);
    await adjust('c-01', { amount_usd: '-1', reason: 'r', reference: 'x2-undo' }).expect(201);
  });

  it('lists admin writes in the audit log, newest first, with before/after and stable cursors', async () => {
    await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', name: 'audit-probe' }).expect(201);
    const newest = await t.admin(t.http.get('/v1/admin/audit-log?limit=2')).expect(200);
    expect(newest.body.data[0]).toMatchObject({ actor_id: 'bootstrap-admin', actor_role: 'admin', action: 'api_key.create' });
    expect(newest.body.data[1]).toMatchObject({
      action: 'contributor.adjust',
      target: 'contributor:c-01',
      before: { payable_usd: '8.000000000000000001' },
      after: { payable_usd: '7.000000000000000001', amount_usd: '-1', reason: 'r', reference: 'x2-undo' },
    });
    expect(Date.parse(newest.body.data[0].created_at)).not.toBeNaN();
    const all: Array<{ id: string; action: string }> = [];
    let cursor: string | null = null;
    do {
      const res: { body: { data: Array<{ id: string; action: string }>; next_cursor: string | null } } = await t.admin(t.http.get(`/v1/admin/audit-log?limit=4${cursor ? `&cursor=${cursor}` : ''}`)).expect(200);
      all.push(...res.body.data);
      cursor = res.body.next_cursor;
    } while (cursor);
    const ids = all.map((e) => BigInt(e.id));
    expect(ids).toEqual([...ids].sort((a, b) => (a > b ? -1 : 1)));
    expect(new Set(ids).size).toBe(ids.length);
    const adjustments = all.filter((e) => e.action === 'contributor.adjust');
    // 6 opening balances + adj-1, adj-2, adj-3, adj-race, adj-race-undo, x2, x2-undo; replays and refusals write nothing.
    expect(adjustments).toHaveLength(13);
  });

  it('overview: contributor totals equal the sum of the listed balances', async () => {
    const all = await collect('sort=id', 500);
    const payableAtto = all.reduce((n, c) => n + parseUsdToAtto(c.balances.payable_usd, { allowNegative: true }), 0n);
    const res = await t.admin(t.http.get('/v1/admin/overview')).expect(200);
    expect(res.body).toEqual({
      charged_usd: '0',
      revenue_usd: '0',
      breakage_usd: '0',
      refunded_usd: '0',
      users_balance_usd: '0',
      granted_usd: '0',
      held_usd: '0',
      contributors_pending_usd: '0',
      contributors_payable_usd: formatAttoAsUsd(payableAtto),
      in_settlement_usd: '0',
      paid_usd: '0',
      unpriced_events: 0,
      // No chain is configured in tests: settlement is disabled and has no wallet to show.
      hot_wallet: null,
      last_settlement: null,
    });
  });

  it('overview: shows the newest settlement', async () => {
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      await db.query(
        `INSERT INTO settlements (id, status, trigger, payout_count, total_micro_usdc, requires_approval, created_at, completed_at)
         VALUES ('00000000-0000-4000-8000-000000000001', 'confirmed', 'schedule', 2, 12500001, false, '2026-11-28T00:00:00Z', '2026-11-28T00:05:00Z'),
                ('00000000-0000-4000-8000-000000000002', 'failed', 'admin', 1, 3000000, false, '2026-11-29T00:00:00Z', NULL)`,
      );
    } finally {
      await db.end();
    }
    const res = await t.admin(t.http.get('/v1/admin/overview')).expect(200);
    expect(res.body.last_settlement).toMatchObject({
      settlement_id: '00000000-0000-4000-8000-000000000002',
      status: 'failed',
      payout_count: 1,
      total_usdc: '3',
      completed_at: null,
    });
  });
});
