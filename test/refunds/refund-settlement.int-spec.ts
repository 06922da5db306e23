// A refund after settlement on Anvil: the clawback takes the contributor's payable below zero
// (a debt the admin list shows), settlements skip it while it is below the minimum (carried
// forward, never a line <= 0), and the next settlement pays earnings minus the debt: the
// on-chain amount equals the net. The ledger check is clean after every step.
import { parseUsdToAtto } from '../../src/common/money/index.js';
import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { balancesOf, registerContributors, startSettlementHarness, usdcBalance, type SettlementHarness } from '../settlement/support/settlement-harness.js';

const ATTO_PER_MICRO = 10n ** 12n;
const atto = (usd: string) => parseUsdToAtto(usd, { allowNegative: true });

let h: SettlementHarness;
const C = 'rs-a';

async function ingest(from: number, count: number): Promise<bigint> {
  let payout = 0n;
  for (let i = from; i < from + count; i += 1) {
    const res = await h.t.admin(h.t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: `rs-ev-${i}`, contributor_id: C })).expect(201);
    payout += atto(res.body.payout_usd);
  }
  return payout;
}

async function settle(): Promise<{ status: number; body: { settlement_id: string | null; status: string; total_usdc: string; payout_count: number } }> {
  const res = await h.t.admin(h.t.http.post('/v1/admin/settlements')).send({});
  if (res.status === 201) expect(await h.sender.sendSettlement(res.body.settlement_id)).toEqual({ kind: 'finished', status: 'confirmed' });
  return res;
}

async function debtOf(id: string): Promise<string> {
  const list = await h.t.admin(h.t.http.get('/v1/admin/contributors?limit=500')).expect(200);
  return list.body.data.find((c: { id: string }) => c.id === id).debt_usd;
}

beforeAll(async () => {
  h = await startSettlementHarness('refund_settlement', { SETTLEMENT_MIN_PAYOUT_USD: '0.05' });
  await seedBilling(h.t, { userCreditUsd: '100' });
}, 120_000);
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  await expectLedgerClean(h.t);
});

describe('refund after settlement -> negative payable -> netted by the next settlement', () => {
  let address: `0x${string}`;
  let eventPayout: bigint;

  it('pays the first earnings', async () => {
    address = (await registerContributors(h, [C])).get(C)!;
    const earned = await ingest(0, 10);
    eventPayout = earned / 10n;
    const first = await settle();
    expect(first.status).toBe(201);
    expect(BigInt(atto(first.body.total_usdc))).toBe(earned);
    expect(await usdcBalance(h, address)).toBe(earned / ATTO_PER_MICRO);
    expect(await balancesOf(h, C)).toEqual({ payableAtto: 0n, inSettlementAtto: 0n, paidAtto: earned });
  });

  it('a full refund in three parts of a paid event leaves payable exactly minus the payout (a debt), and no settlement pays it', async () => {
    const user = await h.t.admin(h.t.http.get('/v1/users/u_42/balance')).expect(200);
    const parts = [{ amount_usd: '0.003' }, { amount_usd: '0.000000000000000007' }, {}];
    for (const [i, part] of parts.entries()) {
      await h.t.admin(h.t.http.post('/v1/admin/usage-events/rs-ev-0/refunds')).send({ refund_id: `rs-rf-${i}`, reason: 'disputed', ...part }).expect(201);
    }
    const after = await h.t.admin(h.t.http.get('/v1/users/u_42/balance')).expect(200);
    const event = await h.t.admin(h.t.http.get('/v1/usage-events/rs-ev-0')).expect(200);
    expect(atto(after.body.balance_usd) - atto(user.body.balance_usd)).toBe(atto(event.body.charge_usd));
    expect((await balancesOf(h, C)).payableAtto).toBe(-eventPayout);
    expect(atto(await debtOf(C))).toBe(eventPayout);
    const balance = await h.t.admin(h.t.http.get(`/v1/contributors/${C}/balance`)).expect(200);
    expect(atto(balance.body.payable_usd)).toBe(-eventPayout);
    expect(atto(balance.body.accrued_usd)).toBe(atto(balance.body.paid_usd) - eventPayout);

    const dry = await h.t.admin(h.t.http.post('/v1/admin/settlements')).send({ dry_run: true }).expect(201);
    expect(dry.body.lines).toEqual([]);
    expect((await settle()).body).toMatchObject({ status: 'empty', payout_count: 0 });
  });

  it('earnings below the minimum after netting are carried forward, not paid', async () => {
    const earned = await ingest(10, 5);
    expect(earned - eventPayout).toBeLessThan(atto('0.05'));
    expect((await settle()).body).toMatchObject({ status: 'empty' });
    expect((await balancesOf(h, C)).payableAtto).toBe(earned - eventPayout);
    expect(await debtOf(C)).toBe('0');
  });

  it('the next settlement pays earnings minus the debt: the on-chain amount equals the net', async () => {
    const before = await usdcBalance(h, address);
    const paidBefore = (await balancesOf(h, C)).paidAtto;
    const earned = (await ingest(15, 5)) + 5n * eventPayout; // events 10..19 in all
    const net = earned - eventPayout;
    const second = await settle();
    expect(second.status).toBe(201);
    expect(atto(second.body.total_usdc)).toBe((net / ATTO_PER_MICRO) * ATTO_PER_MICRO);
    expect((await usdcBalance(h, address)) - before).toBe(net / ATTO_PER_MICRO);
    const balances = await balancesOf(h, C);
    expect(balances).toEqual({ payableAtto: net % ATTO_PER_MICRO, inSettlementAtto: 0n, paidAtto: paidBefore + (net / ATTO_PER_MICRO) * ATTO_PER_MICRO });
    const reconciled = await h.t.admin(h.t.http.post(`/v1/admin/settlements/${second.body.settlement_id}/reconcile`)).expect(200);
    expect(reconciled.body.ok).toBe(true);
  });
});
