// Contributor trust (api.md "Contributor trust", issue 27 items 1-2) on real Postgres + Anvil: real
// EIP-191 signatures from viem accounts and an ERC-1271 wallet deployed on the devchain prove
// payout addresses; a settlement pays a proven address, and fails (back to payable) the lines of
// an unproven and of a cooling-down address, checked on chain.
import { randomBytes } from 'node:crypto';
import { createWalletClient, getAddress, http, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { testWallet1271Abi, testWallet1271Bytecode, testWalletAcceptAllAbi, testWalletAcceptAllBytecode } from '../../contracts/test-contracts.js';
import { devChain } from '../../scripts/lib/devchain.js';
import { balancesOf, creditPayable, MICRO_ATTO, randomAddress, sqlRows, startSettlementHarness, usdcBalance, USD_ATTO, type SettlementHarness } from './support/settlement-harness.js';

let h: SettlementHarness;
let ownKey: string;
const COOLDOWN_HOURS = 24;

beforeAll(async () => {
  h = await startSettlementHarness('contributor_trust', {
    PAYOUT_ADDRESS_PROOF: 'required',
    PAYOUT_ADDRESS_COOLDOWN_HOURS: String(COOLDOWN_HOURS),
    SETTLEMENT_APPROVAL_THRESHOLD_USD: '100000',
    USAGE_AUDIT_HOLD: 'true',
    WEBHOOK_ALLOW_PRIVATE: 'true',
  });
  await put('own', randomAddress()).expect(201);
  ownKey = (await h.t.admin(h.t.http.post('/v1/admin/api-keys')).send({ role: 'contributor', contributor_id: 'own' }).expect(201)).body.key;
  // Subscribed endpoints (never reached here: no relay runs), so the outbox keeps the events.
  await h.t.admin(h.t.http.post('/v1/admin/webhooks')).send({ url: 'http://127.0.0.1:9/admin', events: ['contributor.payout_address_changed'] }).expect(201);
  await h.t.http
    .post('/v1/contributors/own/webhooks')
    .set('Authorization', `Bearer ${ownKey}`)
    .send({ url: 'http://127.0.0.1:9/own', events: ['contributor.payout_address_changed', 'payout.paid'] })
    .expect(201);
});
afterAll(async () => {
  await h?.close();
});

const put = (id: string, address: Address) => h.t.admin(h.t.http.put(`/v1/admin/contributors/${id}`)).send({ tier: 'standard', payout_address: address });
const asAdmin = (req: ReturnType<typeof h.t.http.get>) => h.t.admin(req);

async function challenge(id: string, address: Address, auth = asAdmin) {
  const res = await auth(h.t.http.get(`/v1/contributors/${id}/payout-address/challenge`).query({ address })).expect(200);
  return res.body as { message: string; nonce: string; expires_at: string };
}

function prove(id: string, body: Record<string, unknown>, auth = asAdmin) {
  return auth(h.t.http.post(`/v1/contributors/${id}/payout-address`)).send(body);
}

async function contributor(id: string) {
  return (await h.t.admin(h.t.http.get(`/v1/admin/contributors/${id}`)).expect(200)).body;
}

async function provenWith(id: string, account: PrivateKeyAccount, auth = asAdmin) {
  const c = await challenge(id, account.address, auth);
  const signature = await account.signMessage({ message: c.message });
  return prove(id, { address: account.address, signature, nonce: c.nonce }, auth).expect(200);
}

describe('payout address ownership proof', () => {
  it('a challenge names the contributor, the address, the chain id and a nonce, valid 10 minutes', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    await put('ch', account.address).expect(201);
    const before = Date.now();
    const c = await challenge('ch', account.address);
    expect(c.message).toContain('Contributor: ch');
    expect(c.message).toContain(`Address: ${account.address}`);
    expect(c.message).toContain(`Chain ID: ${h.devchain.env.CHAIN_ID}`);
    expect(c.message).toContain(`Nonce: ${c.nonce}`);
    const ttl = new Date(c.expires_at).getTime() - before;
    expect(ttl).toBeGreaterThan(10 * 60_000 - 5_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000 + 1_000);
  });

  it('proves an EOA address with its personal_sign; the nonce is used up; the audit log names the key', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    await put('eoa', account.address).expect(201);
    expect((await contributor('eoa')).payout_address_proven).toBe(false);
    const c = await challenge('eoa', account.address);
    const signature = await account.signMessage({ message: c.message });
    const res = await prove('eoa', { address: account.address, signature, nonce: c.nonce }).expect(200);
    expect(res.body).toMatchObject({ id: 'eoa', payout_address: account.address, payout_address_proven: true, payout_address_payable_from: null });
    expect(res.body.payout_address_proven_at).toEqual(expect.any(String));
    // Replayed: the same body again.
    const replay = await prove('eoa', { address: account.address, signature, nonce: c.nonce }).expect(422);
    expect(replay.body.error.code).toBe('address_proof_invalid');
    const [entry] = await sqlRows<{ actor_role: string; action: string; after: Record<string, unknown> }>(
      h,
      `SELECT actor_role, action, after FROM audit_log WHERE target = 'contributor:eoa' AND action = 'contributor.payout_address_proven'`,
    );
    expect(entry).toMatchObject({ actor_role: 'admin', after: { payout_address: account.address, nonce: c.nonce } });
  });

  it('refuses a wrong key, a foreign contributor, an expired or tampered proof with 422 and changes nothing; a malformed body is 400', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const other = privateKeyToAccount(generatePrivateKey());
    const registered = randomAddress();
    await put('bad', registered).expect(201);
    await put('bad-other', randomAddress()).expect(201);
    const before = await contributor('bad');

    const c1 = await challenge('bad', account.address);
    const wrongKey = await other.signMessage({ message: c1.message });
    expect((await prove('bad', { address: account.address, signature: wrongKey, nonce: c1.nonce }).expect(422)).body.error.code).toBe('address_proof_invalid');

    // A challenge of another contributor, correctly signed, used for this one.
    const foreign = await challenge('bad-other', account.address);
    const foreignSig = await account.signMessage({ message: foreign.message });
    expect((await prove('bad', { address: account.address, signature: foreignSig, nonce: foreign.nonce }).expect(422)).body.error.code).toBe('address_proof_invalid');

    // Tampered: the signer signed a message naming another contributor id.
    const c2 = await challenge('bad', account.address);
    const tampered = await account.signMessage({ message: c2.message.replace('Contributor: bad', 'Contributor: bad-other') });
    expect((await prove('bad', { address: account.address, signature: tampered, nonce: c2.nonce }).expect(422)).body.error.code).toBe('address_proof_invalid');

    // Another address than the challenge's.
    const c3 = await challenge('bad', account.address);
    const otherSig = await other.signMessage({ message: c3.message });
    expect((await prove('bad', { address: other.address, signature: otherSig, nonce: c3.nonce }).expect(422)).body.error.code).toBe('address_proof_invalid');

    // Expired (the clock moved past expires_at).
    const c4 = await challenge('bad', account.address);
    await h.db.pool.query(`UPDATE payout_address_challenges SET expires_at = now() - interval '1 second' WHERE nonce = $1`, [c4.nonce]);
    const expiredSig = await account.signMessage({ message: c4.message });
    expect((await prove('bad', { address: account.address, signature: expiredSig, nonce: c4.nonce }).expect(422)).body.error.code).toBe('address_proof_invalid');

    // Malformed: 400, before anything is looked at.
    expect((await prove('bad', { address: 'nope', signature: expiredSig, nonce: c4.nonce }).expect(400)).body.error.code).toBe('validation_failed');
    expect((await prove('bad', { address: account.address, signature: 'xyz', nonce: c4.nonce }).expect(400)).body.error.code).toBe('validation_failed');
    expect((await prove('bad', { address: account.address, signature: expiredSig }).expect(400)).body.error.code).toBe('validation_failed');
    await h.t.admin(h.t.http.get('/v1/contributors/bad/payout-address/challenge')).expect(400);

    const after = await contributor('bad');
    expect(after).toMatchObject({ payout_address: registered, payout_address_proven: false, updated_at: before.updated_at });
    // Every unused nonce is still unused except none was consumed by a refused proof.
    const used = await sqlRows<{ n: string }>(h, `SELECT count(*)::text AS n FROM payout_address_challenges WHERE contributor_id = 'bad' AND used_at IS NOT NULL`);
    expect(used[0]!.n).toBe('0');
  });

  it('a contributor key proves for itself (audited with its key id), and gets 403 for another contributor', async () => {
    const account = privateKeyToAccount(generatePrivateKey());
    const auth = (req: ReturnType<typeof h.t.http.get>) => req.set('Authorization', `Bearer ${ownKey}`);
    const res = await provenWith('own', account, auth);
    expect(res.body).toMatchObject({ payout_address: account.address, payout_address_proven: true });
    const [entry] = await sqlRows<{ actor_role: string; actor_id: string | null }>(h, `SELECT actor_role, actor_id FROM audit_log WHERE target = 'contributor:own' AND action = 'contributor.payout_address_proven'`);
    expect(entry).toMatchObject({ actor_role: 'contributor', actor_id: expect.any(String) });
    await auth(h.t.http.get('/v1/contributors/eoa/payout-address/challenge').query({ address: account.address })).expect(403);
    await auth(h.t.http.post('/v1/contributors/eoa/payout-address')).send({ address: account.address, signature: '0x00', nonce: '0'.repeat(32) }).expect(403);
    // The portal's read: its own address state, with when it becomes payable (it changed: cool-down).
    const state = await auth(h.t.http.get('/v1/contributors/own/payout-address')).expect(200);
    expect(state.body).toMatchObject({ contributor_id: 'own', payout_address: account.address, payout_address_proven: true });
    expect(new Date(state.body.payout_address_payable_from).getTime() - new Date(state.body.payout_address_changed_at).getTime()).toBe(COOLDOWN_HOURS * 3600_000);
    // Announced once, to the admin's endpoints and to the contributor's own (one event, both audiences).
    const events = await sqlRows<{ data: Record<string, unknown>; contributor_id: string; for_admin: boolean }>(
      h,
      `SELECT data, contributor_id, for_admin FROM webhook_events WHERE type = 'contributor.payout_address_changed' AND contributor_id = 'own'`,
    );
    expect(events).toEqual([
      {
        contributor_id: 'own',
        for_admin: true,
        data: { contributor_id: 'own', old_address: expect.any(String), new_address: account.address, proven: true, payable_from: state.body.payout_address_payable_from },
      },
    ]);
  });

  it('proves an ERC-1271 contract wallet deployed on the chain, without allow_contract', async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const deployer = createWalletClient({ chain: devChain(h.devchain.rpcUrl), transport: http(h.devchain.rpcUrl), account: privateKeyToAccount(h.devchain.usdcAdminPrivateKey as Hex) });
    const hash = await deployer.deployContract({ abi: testWallet1271Abi, bytecode: testWallet1271Bytecode, args: [owner.address] });
    const receipt = await h.chain.waitForTransactionReceipt({ hash });
    const wallet = getAddress(receipt.contractAddress!);
    await put('wallet', randomAddress()).expect(201);
    // PUT refuses contract code without allow_contract; a proof does not need it.
    expect((await put('wallet', wallet).expect(422)).body.error.code).toBe('payout_address_refused');
    const c = await challenge('wallet', wallet);
    // A stranger's signature is not the wallet's.
    const stranger = await privateKeyToAccount(generatePrivateKey()).signMessage({ message: c.message });
    expect((await prove('wallet', { address: wallet, signature: stranger, nonce: c.nonce }).expect(422)).body.error.code).toBe('address_proof_invalid');
    const signature = await owner.signMessage({ message: c.message });
    const res = await prove('wallet', { address: wallet, signature, nonce: c.nonce }).expect(200);
    expect(res.body).toMatchObject({ payout_address: wallet, payout_address_proven: true });
  });

  // Issue 34 item 15: a wallet whose isValidSignature says yes to everything was proven with 65
  // random bytes. The service now asks it about a random signature too, in the same proof.
  it('refuses a contract wallet that accepts any signature: address_proof_invalid with reason contract_accepts_any_signature, nothing changes', async () => {
    const deployer = createWalletClient({ chain: devChain(h.devchain.rpcUrl), transport: http(h.devchain.rpcUrl), account: privateKeyToAccount(h.devchain.usdcAdminPrivateKey as Hex) });
    const hash = await deployer.deployContract({ abi: testWalletAcceptAllAbi, bytecode: testWalletAcceptAllBytecode });
    const wallet = getAddress((await h.chain.waitForTransactionReceipt({ hash })).contractAddress!);
    const before = randomAddress();
    await put('accept-all', before).expect(201);
    const c = await challenge('accept-all', wallet);
    for (const signature of [`0x${randomBytes(65).toString('hex')}`, await privateKeyToAccount(generatePrivateKey()).signMessage({ message: c.message })]) {
      const res = await prove('accept-all', { address: wallet, signature, nonce: c.nonce }).expect(422);
      expect(res.body.error).toMatchObject({ code: 'address_proof_invalid', details: { reason: 'contract_accepts_any_signature' } });
    }
    expect(await contributor('accept-all')).toMatchObject({ payout_address: before, payout_address_proven: false });
    expect(await sqlRows(h, `SELECT used_at FROM payout_address_challenges WHERE nonce = $1`, [c.nonce])).toEqual([{ used_at: null }]);
  });
});

describe('a settlement pays only proven, cooled-down, unflagged contributors', () => {
  it('pays the proven one, fails the unproven, cooling-down and under-review lines (back to payable), checked on chain', async () => {
    const provenAccount = privateKeyToAccount(generatePrivateKey());
    const unprovenAddress = randomAddress();
    const coolingAccount = privateKeyToAccount(generatePrivateKey());
    const reviewedAccount = privateKeyToAccount(generatePrivateKey());
    await put('s-proven', provenAccount.address).expect(201);
    await provenWith('s-proven', provenAccount);
    await put('s-unproven', unprovenAddress).expect(201);
    // First set to one address, then moved to a proven new one: the cool-down applies.
    await put('s-cooling', randomAddress()).expect(201);
    await provenWith('s-cooling', coolingAccount);
    await put('s-review', reviewedAccount.address).expect(201);
    await provenWith('s-review', reviewedAccount);
    await h.db.pool.query(`UPDATE contributors SET under_review_since = now() WHERE id = 's-review'`);
    const amounts = new Map([
      ['s-proven', 12n * USD_ATTO + 345_678n],
      ['s-unproven', 13n * USD_ATTO],
      ['s-cooling', 14n * USD_ATTO + 7n],
      ['s-review', 15n * USD_ATTO],
    ]);
    await creditPayable(h, [...amounts].map(([contributorId, payoutAtto]) => ({ contributorId, payoutAtto })));

    const created = await h.t.admin(h.t.http.post('/v1/admin/settlements')).send({}).expect(201);
    expect(await h.sender.sendSettlement(created.body.settlement_id)).toEqual({ kind: 'finished', status: 'partially_failed' });
    const detail = await h.t.admin(h.t.http.get(`/v1/admin/settlements/${created.body.settlement_id}`)).expect(200);
    const line = (id: string) => detail.body.lines.find((l: { contributor_id: string }) => l.contributor_id === id);
    expect(line('s-proven')).toMatchObject({ status: 'paid' });
    expect(line('s-unproven')).toMatchObject({ status: 'failed', failure_reason: 'address_unproven' });
    expect(line('s-cooling')).toMatchObject({ status: 'failed', failure_reason: 'address_cooling_down' });
    expect(line('s-review')).toMatchObject({ status: 'failed', failure_reason: 'under_review' });

    expect(await usdcBalance(h, provenAccount.address)).toBe(amounts.get('s-proven')! / MICRO_ATTO);
    expect(await usdcBalance(h, unprovenAddress)).toBe(0n);
    expect(await usdcBalance(h, coolingAccount.address)).toBe(0n);
    expect(await usdcBalance(h, reviewedAccount.address)).toBe(0n);
    for (const id of ['s-unproven', 's-cooling', 's-review']) {
      expect(await balancesOf(h, id)).toEqual({ payableAtto: amounts.get(id), inSettlementAtto: 0n, paidAtto: 0n });
    }
    // Not a flag on the contributor: nothing is wrong with the address itself.
    const flags = await sqlRows<{ flagged_reason: string | null }>(h, `SELECT flagged_reason FROM contributors WHERE id IN ('s-unproven', 's-cooling', 's-review')`);
    expect(flags.every((f) => f.flagged_reason === null)).toBe(true);

    // The cool-down ends (the change moved back past it), and the next settlement pays that address.
    await h.db.pool.query(`UPDATE contributors SET payout_address_changed_at = now() - interval '${COOLDOWN_HOURS} hours 1 minute' WHERE id = 's-cooling'`);
    const next = await h.t.admin(h.t.http.post('/v1/admin/settlements')).send({}).expect(201);
    await h.sender.sendSettlement(next.body.settlement_id);
    expect(await usdcBalance(h, coolingAccount.address)).toBe(amounts.get('s-cooling')! / MICRO_ATTO);
    expect(await usdcBalance(h, unprovenAddress)).toBe(0n);
    expect((await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200)).body.ok).toBe(true);
  });
});
