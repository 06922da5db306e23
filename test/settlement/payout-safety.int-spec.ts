// Payout safety (api.md "Payout safety", issue 14 items 1-2) on real Postgres + Anvil: a line is
// paid to its contributor's address and status as they are when it is sent; infrastructure,
// deny-listed and contract addresses are refused on create and update; a reconciliation failure
// can be resolved by an operator, audited, without rewriting history.
import { jest } from '@jest/globals';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { privateKeyToAccount } from 'viem/accounts';
import type { Address, Hex } from 'viem';
import { PayoutAddressPolicy } from '../../src/modules/payout-safety/payout-address-policy.service.js';
import { PayoutChainClient } from '../../src/modules/chain/payout-chain.client.js';
import { anvil, balancesOf, creditPayable, MICRO_ATTO, randomAddress, sqlRows, startSettlementHarness, usdcAdmin, usdcBalance, USD_ATTO, type SettlementHarness } from './support/settlement-harness.js';
import { expectDeclaredAnswer } from '../support/declared-answer.js';
import { reconciliationResolutionResponseSchema } from '../../src/modules/settlement/settlement.schemas.js';

let h: SettlementHarness;
let dir: string;
let denylistPath: string;
const listedAtStart = randomAddress();
const accruedAtto = new Map<string, bigint>();
/** A settlement whose reconciliation is ok (set by the first test). */
let reconciledOkId: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payout-safety-'));
  denylistPath = join(dir, 'denylist.txt');
  // Lower case, a comment line and a trailing comment: the documented format.
  writeFileSync(denylistPath, `# sanctions list\n${listedAtStart.toLowerCase()}  # listed at start\n\n`);
  // Above 5 USD a settlement waits for approval: the window the attacks use.
  h = await startSettlementHarness('payout_safety', { PAYOUT_DENYLIST_FILE: denylistPath, SETTLEMENT_APPROVAL_THRESHOLD_USD: '5' });
});
afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const hotWallet = () => privateKeyToAccount(h.devchain.payoutPrivateKey as Hex).address;
const put = (id: string, body: Record<string, unknown>) => h.t.admin(h.t.http.put(`/v1/admin/contributors/${id}`)).send({ tier: 'standard', ...body });

async function register(id: string, address: Address = randomAddress(), payoutAtto = 20n * USD_ATTO + 123_456n): Promise<Address> {
  await put(id, { payout_address: address }).expect(201);
  await creditPayable(h, [{ contributorId: id, payoutAtto }]);
  accruedAtto.set(id, (accruedAtto.get(id) ?? 0n) + payoutAtto);
  return address;
}

async function createPending(): Promise<string> {
  const res = await h.t.admin(h.t.http.post('/v1/admin/settlements')).send({}).expect(201);
  expect(res.body.status).toBe('pending_approval');
  return res.body.settlement_id ?? res.body.id;
}

async function approveAndSend(settlementId: string) {
  await h.t.admin(h.t.http.post(`/v1/admin/settlements/${settlementId}/approve`)).expect(200);
  return h.sender.sendSettlement(settlementId);
}

async function lineOf(settlementId: string, contributorId: string) {
  const detail = await h.t.admin(h.t.http.get(`/v1/admin/settlements/${settlementId}`)).expect(200);
  return detail.body.lines.find((l: { contributor_id: string }) => l.contributor_id === contributorId);
}

/** Nothing moved: the whole accrual is payable again, exactly. */
async function expectAllPayable(id: string): Promise<void> {
  expect(await balancesOf(h, id)).toEqual({ payableAtto: accruedAtto.get(id), inSettlementAtto: 0n, paidAtto: 0n });
}

async function expectLedgerClean(): Promise<void> {
  for (const [id, accrued] of accruedAtto) {
    const b = await balancesOf(h, id);
    expect(b.payableAtto + b.inSettlementAtto + b.paidAtto).toBe(accrued);
  }
  const check = await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200);
  expect(check.body.ok).toBe(true);
}

async function flagOf(id: string): Promise<string | null> {
  const [row] = await sqlRows<{ flagged_reason: string | null }>(h, 'SELECT flagged_reason FROM contributors WHERE id = $1', [id]);
  return row!.flagged_reason;
}

describe('a line is paid to the payee as it is when the line is sent', () => {
  it('fails a line whose address changed after creation (old address unpaid); the next settlement pays the new address', async () => {
    const oldAddress = await register('stale-a');
    const settlementId = await createPending();
    const newAddress = randomAddress();
    await put('stale-a', { payout_address: newAddress }).expect(200);

    expect(await approveAndSend(settlementId)).toEqual({ kind: 'finished', status: 'failed' });
    expect(await lineOf(settlementId, 'stale-a')).toMatchObject({ status: 'failed', failure_reason: 'payout_address_changed', tx_hash: null });
    expect(await usdcBalance(h, oldAddress)).toBe(0n);
    await expectAllPayable('stale-a');
    expect(await flagOf('stale-a')).toBeNull();
    await expectLedgerClean();

    // The change is not lost: the amount went back to payable and the next run pays the new address.
    const next = await createPending();
    expect(await approveAndSend(next)).toEqual({ kind: 'finished', status: 'confirmed' });
    expect(await usdcBalance(h, newAddress)).toBe(accruedAtto.get('stale-a')! / MICRO_ATTO);
    expect(await usdcBalance(h, oldAddress)).toBe(0n);
    expect((await balancesOf(h, 'stale-a')).payableAtto).toBe(accruedAtto.get('stale-a')! % MICRO_ATTO);
    expect((await h.reconciliation.reconcileSettlement(next)).ok).toBe(true);
    reconciledOkId = next;
    await expectLedgerClean();
  });

  it('fails the line of a contributor suspended after creation; paid once it is active again', async () => {
    const address = await register('susp-a');
    const settlementId = await createPending();
    await put('susp-a', { payout_address: address, status: 'suspended' }).expect(200);

    expect(await approveAndSend(settlementId)).toEqual({ kind: 'finished', status: 'failed' });
    expect(await lineOf(settlementId, 'susp-a')).toMatchObject({ status: 'failed', failure_reason: 'contributor_suspended' });
    expect(await usdcBalance(h, address)).toBe(0n);
    await expectAllPayable('susp-a');
    await expectLedgerClean();

    await put('susp-a', { payout_address: address, status: 'active' }).expect(200);
    const next = await createPending();
    expect(await approveAndSend(next)).toEqual({ kind: 'finished', status: 'confirmed' });
    expect(await usdcBalance(h, address)).toBe(accruedAtto.get('susp-a')! / MICRO_ATTO);
    await expectLedgerClean();
  });

  it('fails the line of an address added to the deny list after creation (list re-read in place) and flags it', async () => {
    const address = await register('deny-late');
    const settlementId = await createPending();
    appendFileSync(denylistPath, `${address}\n`);

    expect(await approveAndSend(settlementId)).toEqual({ kind: 'finished', status: 'failed' });
    expect(await lineOf(settlementId, 'deny-late')).toMatchObject({ status: 'failed', failure_reason: 'payout_address_denylisted' });
    expect(await usdcBalance(h, address)).toBe(0n);
    await expectAllPayable('deny-late');
    expect(await flagOf('deny-late')).toBe('payout_address_denylisted');
    await expectLedgerClean();
  });

  it('fails the line of an address USDC blacklists after creation (isBlacklisted at send time)', async () => {
    const address = await register('bl-late');
    const settlementId = await createPending();
    await usdcAdmin(h, 'blacklist', [address]);

    expect(await approveAndSend(settlementId)).toEqual({ kind: 'finished', status: 'failed' });
    expect(await lineOf(settlementId, 'bl-late')).toMatchObject({ status: 'failed', failure_reason: 'recipient_blacklisted', tx_hash: null });
    expect(await usdcBalance(h, address)).toBe(0n);
    await expectAllPayable('bl-late');
    await expectLedgerClean();
  });

  it('never pays the hot wallet from a line made before the address policy (the reconciliation stays ok)', async () => {
    await register('legacy-hot');
    const settlementId = await createPending();
    // A registration and a line written before this fix: the stored address is the hot wallet.
    await h.db.pool.query('UPDATE contributors SET payout_address = $2 WHERE id = $1', ['legacy-hot', hotWallet()]);
    await h.db.pool.query('UPDATE settlement_lines SET payout_address = $2 WHERE contributor_id = $1 AND settlement_id = $3', ['legacy-hot', hotWallet(), settlementId]);

    expect(await approveAndSend(settlementId)).toEqual({ kind: 'finished', status: 'failed' });
    expect(await lineOf(settlementId, 'legacy-hot')).toMatchObject({ status: 'failed', failure_reason: 'payout_address_refused' });
    await expectAllPayable('legacy-hot');
    expect(await flagOf('legacy-hot')).toBe('payout_address_refused');
    expect((await h.reconciliation.reconcileSettlement(settlementId)).ok).toBe(true);
    // And the next settlement leaves it out altogether.
    const dry = await h.settlements.createSettlement({ trigger: 'admin', dryRun: true });
    expect(dry.kind === 'dry_run' ? dry.plan.lines.map((l) => l.contributorId) : []).not.toContain('legacy-hot');
    await expectLedgerClean();
  });

  it('re-checks in the transaction that persists the signed batch: a change made while signing fails only that line, the bytes are never sent', async () => {
    const keep = await register('race-keep');
    const moved = await register('race-move');
    const settlementId = await createPending();
    await h.t.admin(h.t.http.post(`/v1/admin/settlements/${settlementId}/approve`)).expect(200);
    const original = PayoutChainClient.prototype.prepareSignedBatch;
    const newAddress = randomAddress();
    const signedHashes: Hex[] = [];
    const spy = jest.spyOn(PayoutChainClient.prototype, 'prepareSignedBatch').mockImplementation(async function (this: PayoutChainClient, input) {
      const signed = await original.call(this, input);
      signedHashes.push(signed.txHash);
      // Between signing and persisting, the first time only: the contributor moves its address.
      if (signedHashes.length === 1) await put('race-move', { payout_address: newAddress }).expect(200);
      return signed;
    });
    try {
      expect(await h.sender.sendSettlement(settlementId)).toEqual({ kind: 'finished', status: 'partially_failed' });
    } finally {
      spy.mockRestore();
    }
    expect(signedHashes).toHaveLength(2);
    expect(await lineOf(settlementId, 'race-move')).toMatchObject({ status: 'failed', failure_reason: 'payout_address_changed' });
    expect(await lineOf(settlementId, 'race-keep')).toMatchObject({ status: 'paid' });
    expect(await usdcBalance(h, moved)).toBe(0n);
    expect(await usdcBalance(h, keep)).toBe(accruedAtto.get('race-keep')! / MICRO_ATTO);
    // The first signature was discarded unsent: no row, and the chain never saw it.
    const txs = await sqlRows<{ tx_hash: string }>(h, 'SELECT tx_hash FROM settlement_txs WHERE settlement_id = $1', [settlementId]);
    expect(txs.map((t) => t.tx_hash)).toEqual([signedHashes[1]]);
    await expect(h.chain.getTransaction({ hash: signedHashes[0]! })).rejects.toThrow();
    await expectAllPayable('race-move');
    expect((await sqlRows<{ payout_address: string }>(h, 'SELECT payout_address FROM contributors WHERE id = $1', ['race-move']))[0]!.payout_address).toBe(newAddress);
    expect((await h.reconciliation.reconcileSettlement(settlementId)).ok).toBe(true);
    await expectLedgerClean();
  });
});

describe('payout addresses refused on create and update (422 payout_address_refused)', () => {
  const refusedCases: Array<[string, () => Address, RegExp]> = [
    ['the zero address', () => '0x0000000000000000000000000000000000000000', /zero address/],
    ['the USDC token', () => h.devchain.usdcAddress, /USDC token/],
    ['the payout contract', () => h.devchain.payoutContractAddress, /batch contract/],
    ['the hot wallet', hotWallet, /hot wallet/],
    ['a deny-listed address (listed in lower case)', () => listedAtStart, /deny list/],
  ];

  it.each(refusedCases)('refuses %s on create and on update, and changes nothing', async (_name, address, reason) => {
    const id = `refuse-${reason.source.replace(/\W/g, '').slice(0, 12)}`;
    const created = await put(id, { payout_address: address() }).expect(422);
    expect(created.body.error).toMatchObject({ code: 'payout_address_refused', message: expect.stringMatching(reason) });
    expect(created.body.error.details).toMatchObject({ reason: expect.stringMatching(reason) });
    await h.t.admin(h.t.http.get(`/v1/admin/contributors/${id}`)).expect(404);

    const fine = randomAddress();
    await put(id, { payout_address: fine }).expect(201);
    const updated = await put(id, { payout_address: address(), tier: 'premium' }).expect(422);
    expect(updated.body.error.code).toBe('payout_address_refused');
    const after = await h.t.admin(h.t.http.get(`/v1/admin/contributors/${id}`)).expect(200);
    expect(after.body).toMatchObject({ payout_address: fine, tier: 'standard' });
    // Even allow_contract does not let the token or the batch contract through.
    await put(id, { payout_address: address(), allow_contract: true }).expect(422);
  });

  it('refuses an address with contract code unless allow_contract: true (audited)', async () => {
    const contract = randomAddress();
    await anvil(h).setCode({ address: contract, bytecode: '0x6001600055' });
    const refused = await put('contract-wallet', { payout_address: contract }).expect(422);
    expect(refused.body.error).toMatchObject({ code: 'payout_address_refused', details: { reason: expect.stringMatching(/contract code/) } });
    const accepted = await put('contract-wallet', { payout_address: contract, allow_contract: true }).expect(201);
    expect(accepted.body.payout_address).toBe(contract);
    // Unchanged address: a tier change needs no allow_contract again.
    await put('contract-wallet', { payout_address: contract, tier: 'premium' }).expect(200);
    const audit = await h.t.admin(h.t.http.get('/v1/admin/audit-log?limit=20')).expect(200);
    const create = audit.body.data.find((a: { action: string; target: string }) => a.action === 'contributor.create' && a.target === 'contributor:contract-wallet');
    expect(create.after).toMatchObject({ payout_address: contract, allow_contract: true });
  });

  it('refuses a change to a deny-listed address of an existing contributor but still lets its status change', async () => {
    const address = randomAddress();
    await put('deny-edit', { payout_address: address }).expect(201);
    appendFileSync(denylistPath, `${address.toLowerCase()}\n`);
    // Same (now listed) address: suspending it must stay possible.
    await put('deny-edit', { payout_address: address, status: 'suspended' }).expect(200);
    const other = randomAddress();
    appendFileSync(denylistPath, `${other}\n`);
    expect((await put('deny-edit', { payout_address: other }).expect(422)).body.error.code).toBe('payout_address_refused');
  });
});

describe('an operator resolves a reconciliation failure (audited, history kept)', () => {
  const resolve = (id: string, body: unknown) => h.t.admin(h.t.http.post(`/v1/admin/settlements/${id}/reconciliation/resolve`)).send(body as object);
  const ledgerCheck = async () => (await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200)).body;

  it('clears a hot-wallet self-payment made before payout addresses were screened; new findings fail the check again', async () => {
    // The sender as it was before this fix (no screen), and a registration made then.
    const spy = jest.spyOn(PayoutAddressPolicy.prototype, 'screener').mockReturnValue(() => null);
    let settlementId: string;
    try {
      await register('self-pay');
      await h.db.pool.query('UPDATE contributors SET payout_address = $2 WHERE id = $1', ['self-pay', hotWallet()]);
      settlementId = await createPending();
      expect(await approveAndSend(settlementId)).toEqual({ kind: 'finished', status: 'confirmed' });
    } finally {
      spy.mockRestore();
    }
    await h.db.pool.query('UPDATE contributors SET payout_address = $2 WHERE id = $1', ['self-pay', randomAddress()]);
    // The batch contract paid the hot wallet: on chain that is a refund, so the paid line is missing.
    const { stored: foundStored, ...found } = (await h.t.admin(h.t.http.post(`/v1/admin/settlements/${settlementId}/reconcile`)).expect(200)).body;
    expect(foundStored).toBe(true);
    expect(found).toMatchObject({ ok: false, missing_on_chain: 1 });
    expect(await ledgerCheck()).toMatchObject({ ok: false, settlement: { ok: false, reconciliation_failures: 1 } });

    // Bad requests change nothing.
    for (const body of [{}, { reason: '   ' }, { reason: 'x', extra: 1 }, { reason: 7 }]) {
      expect((await resolve(settlementId, body).expect(400)).body.error.code).toBe('validation_failed');
    }
    await resolve('00000000-0000-4000-8000-00000000abcd', { reason: 'x' }).expect(404);
    expect((await resolve(reconciledOkId, { reason: 'nothing wrong' }).expect(409)).body.error.code).toBe('conflict');
    expect(await ledgerCheck()).toMatchObject({ ok: false });

    const reason = 'hot wallet paid itself (pre-screening registration); USDC stayed in the wallet, contributor re-paid by hand';
    const resolved = (await resolve(settlementId, { reason }).expect(201)).body;
    expect(resolved).toMatchObject({ settlement_id: settlementId, reason, resolved_by: expect.any(String), reconciliation: found });
    expectDeclaredAnswer(reconciliationResolutionResponseSchema, resolved);
    expect(await ledgerCheck()).toMatchObject({ ok: true, settlement: { ok: true, reconciliation_failures: 0, reconciliation_failures_resolved: 1 } });

    // History is kept: the stored reconciliation still says what was found; the resolution is append-only.
    const [stored] = await sqlRows<{ reconciliation: unknown }>(h, 'SELECT reconciliation FROM settlements WHERE id = $1', [settlementId]);
    expect(stored!.reconciliation).toEqual(found);
    await expect(h.db.pool.query('UPDATE reconciliation_resolutions SET reason = $1', ['rewritten'])).rejects.toThrow(/append-only/);
    await expect(h.db.pool.query('DELETE FROM reconciliation_resolutions')).rejects.toThrow(/append-only/);
    const audit = (await h.t.admin(h.t.http.get('/v1/admin/audit-log?limit=50')).expect(200)).body.data.filter((a: { action: string }) => a.action === 'settlement.reconciliation_resolve');
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ target: settlementId, after: { reason, resolution_id: resolved.resolution_id }, before: { reconciliation: { ok: false } } });

    // A replay answers the same resolution and audits nothing; the same findings found again stay resolved.
    expect((await resolve(settlementId, { reason: 'again' }).expect(200)).body).toMatchObject({ resolution_id: resolved.resolution_id, reason });
    expect((await h.reconciliation.reconcileSettlement(settlementId)).ok).toBe(false);
    expect(await ledgerCheck()).toMatchObject({ ok: true });

    // Anything new is a new failure: the booked recipient no longer matches the chain's at all.
    await h.db.pool.query('UPDATE settlement_lines SET payout_address = $2 WHERE settlement_id = $1', [settlementId, randomAddress()]);
    expect(await h.reconciliation.reconcileSettlement(settlementId)).toMatchObject({ ok: false, unexpected_on_chain: 1 });
    expect(await ledgerCheck()).toMatchObject({ ok: false, settlement: { reconciliation_failures: 1, reconciliation_failures_resolved: 0 } });
    await resolve(settlementId, { reason: 'line address corrected in a test' }).expect(201);
    expect(await ledgerCheck()).toMatchObject({ ok: true });
  });
});
