// How the sender recovers on a real chain: a stuck transaction is fee-bumped (same nonce, same
// lines), a batch reverted by a pause is re-signed only after the revert is mined, and lines of a
// transaction whose nonce another transaction took are re-signed with a new nonce.
import { createWalletClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { devChain } from '../../scripts/lib/devchain.js';
import { DEFAULT_PAYOUT_SENDER_OPTIONS } from '../../src/modules/settlement/payout/payout-sender.options.js';
import { anvil, balancesOf, creditPayable, MICRO_ATTO, registerContributors, sqlRows, startSettlementHarness, usdcAdmin, usdcBalance, USD_ATTO, waitFor, type SettlementHarness } from './support/settlement-harness.js';

interface TxRow {
  tx_hash: Hex;
  status: string;
  nonce: number;
  attempt: number;
  batch_id: string;
  max_fee_per_gas_wei: string;
  [key: string]: unknown;
}

let h: SettlementHarness;
beforeAll(async () => {
  h = await startSettlementHarness('payout_recovery');
});
afterAll(async () => {
  await h?.close();
});
afterEach(async () => {
  Object.assign(h.senderOptions, DEFAULT_PAYOUT_SENDER_OPTIONS);
  await anvil(h).setAutomine(true);
});

async function newSettlement(ids: string[]): Promise<{ settlementId: string; addresses: Awaited<ReturnType<typeof registerContributors>> }> {
  const addresses = await registerContributors(h, ids);
  await creditPayable(h, ids.map((contributorId) => ({ contributorId, payoutAtto: 3n * USD_ATTO + 5n })));
  const created = await h.settlements.createSettlement({ trigger: 'admin', dryRun: false });
  if (created.kind !== 'created') throw new Error('expected a settlement');
  return { settlementId: created.settlement.id, addresses };
}

const txRows = (settlementId: string) => sqlRows<TxRow>(h, 'SELECT tx_hash, status, nonce, attempt, batch_id, max_fee_per_gas_wei FROM settlement_txs WHERE settlement_id = $1 ORDER BY created_at', [settlementId]);

async function expectPaidOnce(ids: string[], addresses: Map<string, `0x${string}`>): Promise<void> {
  for (const id of ids) {
    expect(await usdcBalance(h, addresses.get(id)!)).toBe(3_000_000n);
    expect(await balancesOf(h, id)).toEqual({ payableAtto: 5n, inSettlementAtto: 0n, paidAtto: 3_000_000n * MICRO_ATTO });
  }
}

describe('payout sender recovery on Anvil', () => {
  it('replaces a stuck transaction with +12.5% fees, same nonce and lines; only one attempt pays', async () => {
    const ids = ['bump-a', 'bump-b'];
    const { settlementId, addresses } = await newSettlement(ids);
    Object.assign(h.senderOptions, { replaceAfterMs: 1_000, pollIntervalMs: 100 });
    await anvil(h).setAutomine(false);
    const sending = h.sender.sendSettlement(settlementId);
    const rows = await waitFor(() => txRows(settlementId).then((r) => r.length >= 2 && r), 20_000);
    await waitFor(() => h.chain.getTransaction({ hash: rows[1]!.tx_hash }).then(() => true, () => false));
    await anvil(h).mine({ blocks: 1 });
    expect(await sending).toEqual({ kind: 'finished', status: 'confirmed' });

    const final = await txRows(settlementId);
    expect(final.filter((r) => r.status === 'confirmed')).toHaveLength(1);
    expect(final.filter((r) => r.status !== 'confirmed').every((r) => r.status === 'replaced')).toBe(true);
    expect(new Set(final.map((r) => r.nonce)).size).toBe(1);
    expect(new Set(final.map((r) => r.batch_id)).size).toBe(1);
    expect(BigInt(final[1]!.max_fee_per_gas_wei) * 1000n).toBeGreaterThanOrEqual(BigInt(final[0]!.max_fee_per_gas_wei) * 1125n);
    await expectPaidOnce(ids, addresses);
  });

  it('re-signs the lines of a batch a pause reverted, only after the revert is mined and the token is unpaused', async () => {
    const ids = ['rev-a', 'rev-b'];
    const { settlementId, addresses } = await newSettlement(ids);
    await anvil(h).setAutomine(false);
    const sending = h.sender.sendSettlement(settlementId);
    await waitFor(() => txRows(settlementId).then((r) => r.some((row) => row.status === 'broadcast')));
    await usdcAdmin(h, 'pause', [], { wait: false, tipWei: 10n ** 11n }); // mined before the batch
    await anvil(h).mine({ blocks: 1 });
    expect(await sending).toEqual({ kind: 'hold', reason: 'USDC is paused', retryAfterMs: DEFAULT_PAYOUT_SENDER_OPTIONS.holdRetryMs });
    expect((await txRows(settlementId)).map((r) => r.status)).toEqual(['reverted']);
    expect((await sqlRows(h, 'SELECT DISTINCT status FROM settlement_lines WHERE settlement_id = $1', [settlementId])).map((r) => r.status)).toEqual(['queued']);
    expect((await balancesOf(h, 'rev-a')).inSettlementAtto).toBe(3_000_000n * MICRO_ATTO);

    await anvil(h).setAutomine(true);
    await usdcAdmin(h, 'unpause', []);
    expect(await h.sender.sendSettlement(settlementId)).toEqual({ kind: 'finished', status: 'confirmed' });
    const final = await txRows(settlementId);
    expect(final.map((r) => [r.status, r.attempt])).toEqual([['reverted', 1], ['confirmed', 2]]);
    expect(final[1]!.batch_id).toBe(final[0]!.batch_id);
    await expectPaidOnce(ids, addresses);
  });

  it('re-signs with a new nonce only when another transaction took the nonce of a dropped one', async () => {
    const ids = ['nonce-a'];
    const { settlementId, addresses } = await newSettlement(ids);
    await anvil(h).setAutomine(false);
    const sending = h.sender.sendSettlement(settlementId);
    const [first] = await waitFor(() => txRows(settlementId).then((r) => r.some((row) => row.status === 'broadcast') && r));
    await anvil(h).dropTransaction({ hash: first!.tx_hash });
    // Someone else uses the hot wallet's nonce (higher fees, so it wins even against a rebroadcast).
    const hotWallet = createWalletClient({ chain: devChain(h.devchain.rpcUrl), transport: http(h.devchain.rpcUrl), account: privateKeyToAccount(h.devchain.payoutPrivateKey) });
    await hotWallet.sendTransaction({ to: hotWallet.account.address, value: 0n, nonce: first!.nonce, gas: 21_000n, maxFeePerGas: 10n ** 12n, maxPriorityFeePerGas: 10n ** 11n });
    await anvil(h).mine({ blocks: 1 });
    const rows = await waitFor(() => txRows(settlementId).then((r) => r.length === 2 && r[1]!.status === 'broadcast' && r), 20_000);
    await anvil(h).mine({ blocks: 1 });
    expect(await sending).toEqual({ kind: 'finished', status: 'confirmed' });

    const final = await txRows(settlementId);
    expect(final.map((r) => r.status)).toEqual(['dropped', 'confirmed']);
    expect(final[1]!.nonce).toBeGreaterThan(first!.nonce);
    expect(final[1]!.tx_hash).toBe(rows[1]!.tx_hash);
    await expectPaidOnce(ids, addresses);
  });
});
