// Refunds of events whose month was archived (issue 24 item 3; api.md "Refunds and clawbacks":
// "An event in an archived month is refunded like any other ... 410 is never an answer to a
// refund"). A month is archived with npm run archive's own code, then an archived event is
// refunded fully in two parts: amounts exact to the atto (user restored by the charge, the payout
// clawed back, the margin reversed), a replayed refund_id is idempotent, 409 on another payload,
// 422 refund_exceeds_charge past the charge, the model kept by the archive, the archived month's
// statement unchanged and the current one showing the clawback, the full ledger check (refunds
// section included) ok. A late event of the archived month stays in the default partition and is
// refunded from its row.
import pg from 'pg';
import { archiveUsage } from '../../scripts/lib/usage-archive.js';
import { formatAttoAsUsd, parseUsdToAtto } from '../../src/common/money/index.js';
import { DatabaseService } from '../../src/database/database.service.js';
import { UsagePartitionsRepository } from '../../src/modules/history/usage-partitions.repository.js';
import { archiveSuite } from '../support/archive-fixtures.js';
import { exampleEvent, GPT4O } from '../support/billing-fixtures.js';

const OTHER_MODEL = 'acme/other-model';
const atto = (usd: string) => parseUsdToAtto(usd, { allowNegative: true });
const fmt = formatAttoAsUsd;

describe('refunds of archived events', () => {
  const archiveApp = archiveSuite('refunds_archived', { userCreditUsd: '1000' });
  const { t, db } = archiveApp;

  beforeAll(async () => {
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: OTHER_MODEL, input_usd_per_mtok: '3', output_usd_per_mtok: '15', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
  });

  const balance = async (code: string) => BigInt((await db.query<{ b: string }>(`SELECT coalesce((SELECT balance_atto FROM accounts WHERE code = $1), 0) AS b`, [code])).rows[0]!.b);
  const statement = async (contributor: string, month: string) => (await t.admin(t.http.get(`/v1/contributors/${contributor}/statements/${month}`)).expect(200)).body;
  const checkFull = async () => (await t.admin(t.http.get('/v1/admin/ledger/check?full=true')).expect(200)).body;
  const refundsOf = (eventId: string) => t.admin(t.http.post(`/v1/admin/usage-events/${eventId}/refunds`));

  it('refunds an archived event in two parts exactly, idempotently, and keeps statements and the ledger check right', async () => {
    // 2026-08: events of two contributors and two models, then the month settled and archived.
    const one = (await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'ra-1', contributor_id: 'c_prem', occurred_at: '2026-08-12T10:00:00Z' })).expect(201)).body;
    const two = (await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'ra-2', model: OTHER_MODEL, occurred_at: '2026-08-12T11:00:00Z' })).expect(201)).body;
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'ra-3', occurred_at: '2026-08-12T12:00:00Z' })).expect(201);
    const partitions = new UsagePartitionsRepository(t.app.get(DatabaseService));
    expect(await partitions.ensureMonth(new Date('2026-08-01T00:00:00Z'))).toBe(true);
    await db.query(`INSERT INTO settlements (id, status, trigger, payout_count, total_micro_usdc, requires_approval, created_at, completed_at)
                    VALUES (gen_random_uuid(), 'confirmed', 'admin', 0, 0, false, now(), now())`);
    const archived = await archiveUsage({ databaseUrl: t.databaseUrl, before: '2026-09', outDir: archiveApp.outDir, maturityDays: 0 });
    expect(archived.map((m) => [m.month, m.rows])).toEqual([['2026-08', 3n]]);
    await t.admin(t.http.get('/v1/usage-events/ra-1')).expect(410);

    const currentMonth = new Date().toISOString().slice(0, 7);
    const augustBefore = await statement('c_prem', '2026-08');
    const nowBefore = await statement('c_prem', currentMonth);
    const userBefore = await balance('user:u_42');
    const payableBefore = await balance('contributor:c_prem:payable');
    const charge = atto(one.charge_usd);
    const payout = atto(one.payout_usd);
    const margin = atto(one.margin_usd);

    // Two parts: a third plus one atto, then everything left (no amount).
    const first = charge / 3n + 1n;
    const a = await refundsOf('ra-1').send({ refund_id: 'ra-1a', amount_usd: fmt(first), reason: 'archived, refunded anyway' }).expect(201);
    const b = await refundsOf('ra-1').send({ refund_id: 'ra-1b', reason: 'archived, refunded anyway' }).expect(201);
    expect(a.body).toMatchObject({ event_id: 'ra-1', user_id: 'u_42', contributor_id: 'c_prem', model: GPT4O, amount_usd: fmt(first) });
    expect(a.body.clawed_back_total_usd).toBe(fmt((first * payout) / charge));
    expect(atto(b.body.amount_usd)).toBe(charge - first);
    expect(b.body.refunded_total_usd).toBe(one.charge_usd);
    expect(b.body.clawed_back_total_usd).toBe(one.payout_usd);
    expect(atto(a.body.margin_reversed_usd) + atto(b.body.margin_reversed_usd)).toBe(margin);
    expect(atto(a.body.contributor_clawback_usd) + atto(b.body.contributor_clawback_usd)).toBe(payout);
    expect(await balance('user:u_42')).toBe(userBefore + charge);
    expect(await balance('contributor:c_prem:payable')).toBe(payableBefore - payout);

    // Idempotent by refund_id; 409 on another payload; nothing more to refund: 422.
    const replay = await refundsOf('ra-1').send({ refund_id: 'ra-1b', reason: 'archived, refunded anyway' }).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(b.body);
    await refundsOf('ra-1').send({ refund_id: 'ra-1b', amount_usd: '0.000001', reason: 'archived, refunded anyway' }).expect(409);
    const exceeds = await refundsOf('ra-1').send({ refund_id: 'ra-1c', amount_usd: '0.000001', reason: 'once more' }).expect(422);
    expect(exceeds.body.error).toMatchObject({ code: 'refund_exceeds_charge', details: { charge_usd: one.charge_usd, refunded_usd: one.charge_usd, refundable_usd: '0' } });
    expect(await balance('user:u_42')).toBe(userBefore + charge);

    // The archive kept each event's model: the refund of the other model's event is summed under it.
    const other = await refundsOf('ra-2').send({ refund_id: 'ra-2a', reason: 'other model' }).expect(201);
    expect(other.body).toMatchObject({ contributor_id: 'c_std', model: OTHER_MODEL, refunded_total_usd: two.charge_usd, clawed_back_total_usd: two.payout_usd });
    await refundsOf('never-ingested').send({ refund_id: 'ra-x', reason: 'nothing' }).expect(404);

    // The archived month's statement is history (refunds are booked on their own day); this
    // month's shows the clawback, and closes on the balance.
    expect(await statement('c_prem', '2026-08')).toEqual(augustBefore);
    const nowAfter = await statement('c_prem', currentMonth);
    expect(atto(nowAfter.clawed_back_usd) - atto(nowBefore.clawed_back_usd)).toBe(payout);
    expect(atto(nowAfter.closing_usd)).toBe(atto(nowBefore.closing_usd) - payout);

    const full = await checkFull();
    expect(full).toMatchObject({ ok: true, rollups: { ok: true }, refunds: { ok: true, rollup_mismatches: [], journal_mismatches: [] } });
    const listed = (await t.admin(t.http.get('/v1/admin/refunds?event_id=ra-1')).expect(200)).body.data;
    expect(listed.map((r: { refund_id: string }) => r.refund_id)).toEqual(['ra-1b', 'ra-1a']);
  }, 120_000);

  it('a late event of an archived month stays in the default partition, readable and refundable', async () => {
    const late = (await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'ra-late', occurred_at: '2026-08-20T10:00:00Z' })).expect(201)).body;
    const partitions = new UsagePartitionsRepository(t.app.get(DatabaseService));
    // Not given a partition again: the archive already used the month's name.
    expect(await partitions.ensureAhead(new Date(), 3)).toEqual([]);
    expect(await partitions.ensureMonth(new Date('2026-08-01T00:00:00Z'))).toBe(false);
    expect((await db.query(`SELECT 1 FROM usage_events_default WHERE event_id = 'ra-late'`)).rowCount).toBe(1);
    await t.admin(t.http.get('/v1/usage-events/ra-late')).expect(200);
    const refund = await refundsOf('ra-late').send({ refund_id: 'ra-late-a', reason: 'late' }).expect(201);
    expect(refund.body).toMatchObject({ refunded_total_usd: late.charge_usd, clawed_back_total_usd: late.payout_usd, model: GPT4O });
    expect(await checkFull()).toMatchObject({ ok: true, refunds: { ok: true } });
  }, 60_000);
});

// An event priced while its day was maturing credited contributor:<id>:pending, not payable. The
// archived-event reader counted only payable postings as the payout, so a refund after archive
// clawed back nothing (and the 410 details said payout 0).
describe('refunds of archived events priced while maturing', () => {
  const archiveApp = archiveSuite('refunds_archived_maturing', { userCreditUsd: '100', env: { PAYOUT_MATURITY_DAYS: '3650' } });
  const { t } = archiveApp;

  it('claws back the payout the usage entry credited to pending', async () => {
    const event = exampleEvent({ event_id: 'ram-1', occurred_at: '2026-08-12T10:00:00Z' });
    const priced = (await t.admin(t.http.post('/v1/usage-events')).send(event).expect(201)).body;
    const db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
    try {
      const entry = await db.query<{ account_codes: string[] }>(`SELECT account_codes FROM journal_entries WHERE kind = 'usage' AND ref = 'ram-1'`);
      expect(entry.rows[0]!.account_codes).toContain('contributor:c_std:pending');
      expect(await new UsagePartitionsRepository(t.app.get(DatabaseService)).ensureMonth(new Date('2026-08-01T00:00:00Z'))).toBe(true);
      await db.query(`INSERT INTO settlements (id, status, trigger, payout_count, total_micro_usdc, requires_approval, created_at, completed_at)
                      VALUES (gen_random_uuid(), 'confirmed', 'admin', 0, 0, false, now(), now())`);
    } finally {
      await db.end();
    }
    await archiveUsage({ databaseUrl: t.databaseUrl, before: '2026-09', outDir: archiveApp.outDir, maturityDays: 0 });
    const replay = await t.admin(t.http.post('/v1/usage-events')).send(event).expect(410);
    expect(replay.body.error.details).toMatchObject({ charge_usd: priced.charge_usd, payout_usd: priced.payout_usd, margin_usd: priced.margin_usd });

    const refund = await t.admin(t.http.post('/v1/admin/usage-events/ram-1/refunds')).send({ refund_id: 'ram-1a', reason: 'maturing' }).expect(201);
    expect(refund.body).toMatchObject({ refunded_total_usd: priced.charge_usd, clawed_back_total_usd: priced.payout_usd, margin_reversed_usd: priced.margin_usd });
    expect((await t.admin(t.http.get('/v1/admin/ledger/check?full=true')).expect(200)).body).toMatchObject({ ok: true, refunds: { ok: true } });
  }, 60_000);
});
