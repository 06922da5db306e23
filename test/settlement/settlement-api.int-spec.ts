// The settlement REST contract on a real app: disabled without a chain, dry run, one open
// settlement at a time under concurrent requests, approval above the threshold, payouts per contributor.
import type { Address } from 'viem';
import { testAppForSuite } from '../support/test-app.js';
import { balancesOf, creditPayable, registerContributors, sqlRows, startSettlementHarness, USD_ATTO, type SettlementHarness } from './support/settlement-harness.js';
import { expectDeclaredAnswer } from '../support/declared-answer.js';
import { apiKeyCreatedSchema } from '../../src/modules/auth/auth.schemas.js';
import { ledgerCheckResponseSchema } from '../../src/modules/ledger/ledger.schemas.js';
import { createdSettlementResponseSchema, payoutListResponseSchema, settlementDetailResponseSchema, settlementListResponseSchema, settlementResponseSchema } from '../../src/modules/settlement/settlement.schemas.js';

describe('settlement API without a chain', () => {
  const t = testAppForSuite('settlement_disabled', { RPC_URL: '', USDC_ADDRESS: '', PAYOUT_CONTRACT_ADDRESS: '', PAYOUT_PRIVATE_KEY: '' });

  it('refuses to create with 422 settlement_disabled, still answers a dry run, and reports no wallet', async () => {
    const res = await t.admin(t.http.post('/v1/admin/settlements')).send({}).expect(422);
    expect(res.body.error.code).toBe('settlement_disabled');
    expect(res.body.error.message).toMatch(/RPC_URL/);
    const dry = await t.admin(t.http.post('/v1/admin/settlements')).send({ dry_run: true }).expect(201);
    expect(dry.body).toMatchObject({ settlement_id: null, status: 'dry_run', payout_count: 0, total_usdc: '0', lines: [] });
    expectDeclaredAnswer(createdSettlementResponseSchema, dry.body);
    await t.admin(t.http.post('/v1/admin/settlements')).expect(422); // no body at all: same as {}
    await t.admin(t.http.post('/v1/admin/settlements')).send({ dry_run: 'yes' }).expect(400);
    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body.checks.rpc).toEqual({ status: 'disabled' });
  });

  it('documents the settlement endpoints in the OpenAPI document', async () => {
    const docs = await t.http.get('/docs-json').expect(200);
    for (const path of ['/v1/admin/settlements', '/v1/admin/settlements/{id}', '/v1/admin/settlements/{id}/approve', '/v1/contributors/{id}/payouts']) {
      expect(docs.body.paths[path]).toBeDefined();
    }
    const body = JSON.stringify(docs.body.paths['/v1/admin/settlements'].post.requestBody);
    const ref = /"#\/components\/schemas\/([^"]+)"/.exec(body)?.[1];
    expect(JSON.stringify(ref ? docs.body.components.schemas[ref] : body)).toContain('dry_run');
  });
});

describe('settlement API on Anvil', () => {
  let h: SettlementHarness;
  let addresses: Map<string, Address>;
  beforeAll(async () => {
    h = await startSettlementHarness('settlement_api', { SETTLEMENT_MIN_PAYOUT_USD: '10', SETTLEMENT_APPROVAL_THRESHOLD_USD: '100' });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('answers 200 "empty" when nobody qualifies, and probes the RPC in /health/ready', async () => {
    const res = await h.t.admin(h.t.http.post('/v1/admin/settlements')).send({}).expect(200);
    expect(res.body).toEqual({ settlement_id: null, status: 'empty', payout_count: 0, total_usdc: '0' });
    expectDeclaredAnswer(createdSettlementResponseSchema, res.body);
    const ready = await h.t.http.get('/health/ready').expect(200);
    expect(ready.body.checks.rpc.status).toBe('up');
    const wallet = await h.settlements.hotWalletStatus();
    expect(wallet).toMatchObject({ address: h.devchain.hotWalletAddress, usdc: '10000000', native: expect.stringMatching(/^\d+(\.\d+)?$/) });
  });

  it('dry run lists who would be paid and moves nothing; suspended and below-minimum contributors are left out', async () => {
    addresses = await registerContributors(h, ['api-a', 'api-b', 'api-low', 'api-sus']);
    await h.t.admin(h.t.http.put('/v1/admin/contributors/api-sus')).send({ tier: 'standard', payout_address: addresses.get('api-sus'), status: 'suspended' }).expect(200);
    await creditPayable(h, [
      { contributorId: 'api-a', payoutAtto: 12n * USD_ATTO + 123n },
      { contributorId: 'api-b', payoutAtto: 30_999_999n * 10n ** 12n + 999_999_999_999n },
      { contributorId: 'api-low', payoutAtto: 10n * USD_ATTO - 1n },
      { contributorId: 'api-sus', payoutAtto: 50n * USD_ATTO },
    ]);
    const dry = await h.t.admin(h.t.http.post('/v1/admin/settlements')).send({ dry_run: true }).expect(201);
    expect(dry.body).toMatchObject({ settlement_id: null, status: 'dry_run', payout_count: 2, total_usdc: '42.999999', requires_approval: false });
    expect(dry.body.lines).toEqual([
      { contributor_id: 'api-a', payout_address: addresses.get('api-a'), amount_usdc: '12' },
      { contributor_id: 'api-b', payout_address: addresses.get('api-b'), amount_usdc: '30.999999' },
    ]);
    expect(await sqlRows(h, 'SELECT id FROM settlements')).toEqual([]);
    expect((await balancesOf(h, 'api-a')).inSettlementAtto).toBe(0n);
  });

  it('creates exactly one settlement under concurrent requests (the others get 409 conflict)', async () => {
    const responses = await Promise.all(Array.from({ length: 5 }, () => h.t.admin(h.t.http.post('/v1/admin/settlements')).send({})));
    const created = responses.filter((r) => r.status === 201);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(created).toHaveLength(1);
    expect(conflicts).toHaveLength(4);
    for (const c of conflicts) expect(c.body.error.code).toBe('conflict');
    expect(created[0]!.body).toMatchObject({ status: 'queued', payout_count: 2, total_usdc: '42.999999', trigger: 'admin' });
    expectDeclaredAnswer(createdSettlementResponseSchema, created[0]!.body);
    expect(await sqlRows(h, 'SELECT id FROM settlements')).toHaveLength(1);
    // Reserved: payable -> in_settlement, the sub-micro remainder stays payable.
    expect(await balancesOf(h, 'api-b')).toEqual({ payableAtto: 999_999_999_999n, inSettlementAtto: 30_999_999n * 10n ** 12n, paidAtto: 0n });
    const settlementId: string = created[0]!.body.settlement_id;
    await h.t.admin(h.t.http.post(`/v1/admin/settlements/${settlementId}/approve`)).expect(409);

    expect(await h.sender.sendSettlement(settlementId)).toEqual({ kind: 'finished', status: 'confirmed' });
    const detail = await h.t.admin(h.t.http.get(`/v1/admin/settlements/${settlementId}`)).expect(200);
    expect(detail.body).toMatchObject({ settlement_id: settlementId, status: 'confirmed', payout_count: 2, total_usdc: '42.999999' });
    expect(detail.body.lines).toEqual([
      expect.objectContaining({ contributor_id: 'api-a', payout_address: addresses.get('api-a'), amount_usdc: '12', status: 'paid', failure_reason: null, tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) }),
      expect.objectContaining({ contributor_id: 'api-b', amount_usdc: '30.999999', status: 'paid' }),
    ]);
    expect(detail.body.transactions).toEqual([expect.objectContaining({ status: 'confirmed', line_count: 2, nonce: expect.any(Number), gas_used: expect.stringMatching(/^\d+$/), block_number: expect.stringMatching(/^\d+$/) })]);
    // api.md names the field `hash` (and `block`); `tx_hash` and `block_number` stay as aliases (issue 14 item 11).
    const [tx] = detail.body.transactions;
    expect(tx).toMatchObject({ hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), block: tx.block_number });
    expect(tx.hash).toBe(tx.tx_hash);
    expectDeclaredAnswer(settlementDetailResponseSchema, detail.body);
    const reconciled = await h.t.admin(h.t.http.post(`/v1/admin/settlements/${settlementId}/reconcile`)).expect(200);
    expect(reconciled.body).toMatchObject({ ok: true, paid_lines: 2, chain_payouts: 2 });
  });

  it('holds a settlement above the threshold for approval, then queues it once (audited)', async () => {
    await creditPayable(h, [{ contributorId: 'api-a', payoutAtto: 150n * USD_ATTO }]);
    const created = await h.t.admin(h.t.http.post('/v1/admin/settlements')).send({ dry_run: false }).expect(201);
    expect(created.body).toMatchObject({ status: 'pending_approval', requires_approval: true, payout_count: 1, total_usdc: '150' });
    const id: string = created.body.settlement_id;
    expect(await h.sender.sendSettlement(id)).toEqual({ kind: 'skipped', reason: 'waiting for approval' });
    await h.t.admin(h.t.http.post('/v1/admin/settlements/00000000-0000-4000-8000-000000000000/approve')).expect(404);
    const approved = await h.t.admin(h.t.http.post(`/v1/admin/settlements/${id}/approve`)).expect(200);
    expect(approved.body).toMatchObject({ settlement_id: id, status: 'queued', approved_by: expect.any(String), approved_at: expect.any(String) });
    expectDeclaredAnswer(settlementResponseSchema, approved.body);
    const again = await h.t.admin(h.t.http.post(`/v1/admin/settlements/${id}/approve`)).expect(409);
    expect(again.body.error.code).toBe('conflict');
    const audit = await sqlRows<{ action: string; target: string }>(h, `SELECT action, target FROM audit_log WHERE action LIKE 'settlement.%' ORDER BY id`);
    expect(audit.filter((a) => a.target === id).map((a) => a.action)).toEqual(['settlement.create', 'settlement.approve']);
    expect(await h.sender.sendSettlement(id)).toEqual({ kind: 'finished', status: 'confirmed' });
    expect(await h.settlements.lastSettlementSummary()).toMatchObject({ settlement_id: id, status: 'confirmed', payout_count: 1, total_usdc: '150' });
  });

  it('lists settlements with a cursor and serves contributor payouts to that contributor only', async () => {
    const first = await h.t.admin(h.t.http.get('/v1/admin/settlements?limit=1')).expect(200);
    expect(first.body.data).toHaveLength(1);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    expectDeclaredAnswer(settlementListResponseSchema, first.body);
    const second = await h.t.admin(h.t.http.get(`/v1/admin/settlements?limit=1&cursor=${first.body.next_cursor}`)).expect(200);
    expect(second.body.data).toHaveLength(1);
    expect(second.body.data[0].settlement_id).not.toBe(first.body.data[0].settlement_id);
    await h.t.admin(h.t.http.get('/v1/admin/settlements?cursor=nope')).expect(400);

    const key = await h.t.admin(h.t.http.post('/v1/admin/api-keys')).send({ role: 'contributor', contributor_id: 'api-a' }).expect(201);
    expectDeclaredAnswer(apiKeyCreatedSchema, key.body);
    const own = await h.t.http.get('/v1/contributors/api-a/payouts').set('Authorization', `Bearer ${key.body.key}`).expect(200);
    expect(own.body.data).toEqual([
      expect.objectContaining({ amount_usdc: '150', status: 'paid', tx_hash: expect.stringMatching(/^0x/), confirmed_at: expect.any(String) }),
      expect.objectContaining({ amount_usdc: '12', status: 'paid' }),
    ]);
    expect(own.body.data[0]).toEqual(expect.objectContaining({ payout_id: expect.any(String), settlement_id: expect.any(String) }));
    expectDeclaredAnswer(payoutListResponseSchema, own.body);
    const paged = await h.t.http.get('/v1/contributors/api-a/payouts?limit=1').set('Authorization', `Bearer ${key.body.key}`).expect(200);
    expect(paged.body.next_cursor).toEqual(expect.any(String));
    const rest = await h.t.http.get(`/v1/contributors/api-a/payouts?limit=1&cursor=${paged.body.next_cursor}`).set('Authorization', `Bearer ${key.body.key}`).expect(200);
    expect(rest.body.data.map((p: { amount_usdc: string }) => p.amount_usdc)).toEqual(['12']);
    await h.t.http.get('/v1/contributors/api-b/payouts').set('Authorization', `Bearer ${key.body.key}`).expect(403);
    await h.t.admin(h.t.http.get('/v1/contributors/api-b/payouts')).expect(200);
    await h.t.admin(h.t.http.get('/v1/contributors/nobody/payouts')).expect(404);

    const check = await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200);
    expect(check.body.ok).toBe(true);
    expect(check.body.settlement).toMatchObject({ ok: true, reconciliation_failures: 0 });
    expectDeclaredAnswer(ledgerCheckResponseSchema, check.body);
  });
});
