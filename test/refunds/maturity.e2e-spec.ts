// Payout maturity with a fixed clock (PAYOUT_MATURITY_DAYS=3): earnings sit in pending until the
// day they mature, move to payable exactly once per contributor and day (safe to run twice, and
// after downtime), refunds during maturity come out of pending first, /balance shows pending_usd.
import { parseUsdToAtto } from '../../src/common/money/index.js';
import { MaturityService } from '../../src/modules/maturity/maturity.service.js';
import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const DAY_MS = 86_400_000;
const atto = (usd: string) => parseUsdToAtto(usd, { allowNegative: true });
const today = Math.floor(Date.now() / DAY_MS) * DAY_MS;
const dayStart = (offset: number) => new Date(today + offset * DAY_MS);
const at = (offset: number, hour: number) => new Date(today + offset * DAY_MS + hour * 3_600_000).toISOString();

let t: TestApp;
let maturity: MaturityService;

async function balance(id: string) {
  const res = await t.admin(t.http.get(`/v1/contributors/${id}/balance`)).expect(200);
  return { pending: atto(res.body.pending_usd), payable: atto(res.body.payable_usd), accrued: atto(res.body.accrued_usd), inSettlement: atto(res.body.in_settlement_usd), paid: atto(res.body.paid_usd) };
}
async function ingest(eventId: string, occurredAt: string, contributorId = 'c_std'): Promise<bigint> {
  const res = await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: eventId, occurred_at: occurredAt, contributor_id: contributorId })).expect(201);
  return atto(res.body.payout_usd);
}
async function maturedEntries(): Promise<string[]> {
  const db = (t.app.get(MaturityService) as unknown as { db: { pool: { query: (s: string) => Promise<{ rows: Array<{ ref: string }> }> } } }).db;
  return (await db.pool.query(`SELECT ref FROM journal_entries WHERE kind = 'earnings_matured' ORDER BY id`)).rows.map((r) => r.ref);
}

beforeAll(async () => {
  t = await startTestApp('maturity', { PAYOUT_MATURITY_DAYS: '3' });
  maturity = t.app.get(MaturityService);
  await seedBilling(t, { userCreditUsd: '100' });
});
afterAll(async () => {
  await t?.close();
});
afterEach(async () => {
  await expectLedgerClean(t);
});

describe('payout maturity (PAYOUT_MATURITY_DAYS=3, fixed clock)', () => {
  let old = 0n; // earnings of day -10
  let recent = 0n; // earnings of day -2
  let payout = 0n;

  it('earnings are pending, not payable, and accrued = pending + payable + in_settlement + paid', async () => {
    for (let i = 0; i < 2; i += 1) old += await ingest(`mt-old-${i}`, at(-10, 10 + i));
    for (let i = 0; i < 3; i += 1) recent += await ingest(`mt-new-${i}`, at(-2, 23));
    payout = old / 2n;
    const b = await balance('c_std');
    expect(b).toEqual({ pending: old + recent, payable: 0n, accrued: old + recent, inSettlement: 0n, paid: 0n });
    const dry = await t.admin(t.http.post('/v1/admin/settlements')).send({ dry_run: true }).expect(201);
    expect(dry.body.lines).toEqual([]);
  });

  it('a day matures at 00:00 UTC of day + 4, not a moment earlier, and exactly once', async () => {
    expect(await maturity.matureDue(new Date(dayStart(-6).getTime() - 1))).toMatchObject({ contributors: 0, maturedAtto: 0n });
    expect((await balance('c_std')).payable).toBe(0n);
    expect(await maturity.matureDue(dayStart(-6))).toMatchObject({ contributors: 1, maturedAtto: old });
    expect(await balance('c_std')).toMatchObject({ pending: recent, payable: old });
    // Twice the same day, and later the same day: nothing more.
    expect(await maturity.matureDue(dayStart(-6))).toMatchObject({ contributors: 0, maturedAtto: 0n });
    expect(await maturity.matureDue(new Date(dayStart(-6).getTime() + 20 * 3_600_000))).toMatchObject({ contributors: 0 });
    // The next days have nothing new until day -2 matures.
    expect(await maturity.matureDue(dayStart(1))).toMatchObject({ contributors: 0 });
    expect(await balance('c_std')).toMatchObject({ pending: recent, payable: old });
  });

  it('a refund of a maturing event comes out of pending; one of a matured event out of payable', async () => {
    const before = await balance('c_std');
    const r1 = await t.admin(t.http.post('/v1/admin/usage-events/mt-new-0/refunds')).send({ refund_id: 'mt-rf-1', reason: 'disputed' }).expect(201);
    expect(atto(r1.body.contributor_clawback_usd)).toBe(recent / 3n);
    expect(await balance('c_std')).toMatchObject({ pending: before.pending - recent / 3n, payable: before.payable });
    const r2 = await t.admin(t.http.post('/v1/admin/usage-events/mt-old-0/refunds')).send({ refund_id: 'mt-rf-2', reason: 'disputed' }).expect(201);
    expect(atto(r2.body.contributor_clawback_usd)).toBe(payout);
    expect(await balance('c_std')).toMatchObject({ pending: before.pending - recent / 3n, payable: before.payable - payout });
  });

  it('the maturing day then moves its earnings minus the pending clawback, leaving pending exactly 0', async () => {
    const run = await maturity.matureDue(dayStart(2));
    expect(run).toMatchObject({ contributors: 1, maturedAtto: recent - recent / 3n });
    expect(await balance('c_std')).toEqual({ pending: 0n, payable: old - payout + recent - recent / 3n, accrued: old - payout + recent - recent / 3n, inSettlement: 0n, paid: 0n });
  });

  it('a late event for an old day waits for the next run day; after downtime one run catches up every day', async () => {
    const late = await ingest('mt-late', at(-9, 8));
    expect((await balance('c_std')).pending).toBe(late);
    expect(await maturity.matureDue(new Date(dayStart(2).getTime() + 3_600_000))).toMatchObject({ contributors: 0 }); // same run day
    expect(await maturity.matureDue(dayStart(3))).toMatchObject({ contributors: 1, maturedAtto: late });
    // c_prem: three days of earnings, never matured (downtime): one run, one entry.
    let prem = 0n;
    for (const d of [-9, -8, -7]) prem += await ingest(`mt-prem-${d}`, at(d, 12), 'c_prem');
    expect(await maturity.matureDue(dayStart(3))).toMatchObject({ contributors: 1, maturedAtto: prem });
    expect(await balance('c_prem')).toMatchObject({ pending: 0n, payable: prem });
    const day = (offset: number) => dayStart(offset).toISOString().slice(0, 10);
    expect(await maturedEntries()).toEqual([`c_std:${day(-10)}`, `c_std:${day(-2)}`, `c_std:${day(-1)}`, `c_prem:${day(-1)}`]);
  });

  it('the admin contributor list shows pending beside payable', async () => {
    const list = await t.admin(t.http.get('/v1/admin/contributors')).expect(200);
    const std = list.body.data.find((c: { id: string }) => c.id === 'c_std');
    expect(std.balances).toMatchObject({ pending_usd: '0' });
    expect(atto(std.balances.accrued_usd)).toBe(atto(std.balances.pending_usd) + atto(std.balances.payable_usd) + atto(std.balances.in_settlement_usd) + atto(std.balances.paid_usd));
  });
});
