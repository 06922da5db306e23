// Payouts booked after one confirmation, then reorganised on Anvil (anvil_reorg): dropped (the same
// bytes are sent again and pay once), re-included in another block (nothing paid twice), the nonce
// taken by another transaction (the booking is reversed to payable and paid by the next settlement),
// a reorg noticed by the next send before it signs a new nonce, and a reverted payout the reorg
// re-executes successfully (a conflict: payouts stop until an operator looks).
import { createWalletClient, http, keccak256, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvilReorg, devChain } from '../../scripts/lib/devchain.js';
import { PayoutFinalityService } from '../../src/modules/settlement/payout/payout-finality.service.js';
import { anvil, balancesOf, creditPayable, MICRO_ATTO, registerContributors, sqlRows, startSettlementHarness, usdcBalance, usdcAdmin, USD_ATTO, waitFor, type SettlementHarness } from './support/settlement-harness.js';

const FINALITY_BLOCKS = 4;
const PAID_MICRO_USDC = 3_000_000n;

interface TxRow extends Record<string, unknown> {
  id: string;
  tx_hash: Hex;
  signed_raw: Hex;
  status: string;
  nonce: number;
  block_number: string | null;
  block_hash: string | null;
  reorg_count: number;
  final_at: Date | null;
}

let h: SettlementHarness;
let finality: PayoutFinalityService;
beforeAll(async () => {
  h = await startSettlementHarness('payout_reorg', { SETTLEMENT_FINALITY_BLOCKS: String(FINALITY_BLOCKS) });
  finality = h.t.app.get(PayoutFinalityService);
});
afterAll(async () => {
  await h?.close();
});

async function paidSettlement(ids: string[]): Promise<{ settlementId: string; addresses: Map<string, `0x${string}`>; tx: TxRow }> {
  const addresses = await registerContributors(h, ids);
  await creditPayable(h, ids.map((contributorId) => ({ contributorId, payoutAtto: 3n * USD_ATTO + 5n })));
  const created = await h.settlements.createSettlement({ trigger: 'admin', dryRun: false });
  if (created.kind !== 'created') throw new Error('expected a settlement');
  expect(await h.sender.sendSettlement(created.settlement.id)).toEqual({ kind: 'finished', status: 'confirmed' });
  const [tx] = await txRows(created.settlement.id);
  return { settlementId: created.settlement.id, addresses, tx: tx! };
}

const txRows = (settlementId: string) =>
  sqlRows<TxRow>(h, 'SELECT id, tx_hash, signed_raw, status, nonce, block_number, block_hash, reorg_count, final_at FROM settlement_txs WHERE settlement_id = $1 ORDER BY nonce, attempt', [settlementId]);

async function expectPaidOnce(ids: string[], addresses: Map<string, `0x${string}`>): Promise<void> {
  for (const id of ids) {
    expect(await usdcBalance(h, addresses.get(id)!)).toBe(PAID_MICRO_USDC);
    expect(await balancesOf(h, id)).toEqual({ payableAtto: 5n, inSettlementAtto: 0n, paidAtto: PAID_MICRO_USDC * MICRO_ATTO });
  }
}

async function expectLedgerCheckOk(): Promise<void> {
  const check = await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200);
  expect(check.body.settlement).toMatchObject({ ok: true, reorg_conflicts: 0 });
  expect(check.body.ok).toBe(true);
}

describe('payouts reorganised after one confirmation', () => {
  it('dropped by the reorg: the same bytes are sent again, paid once, final once deep enough', async () => {
    const ids = ['drop-a', 'drop-b'];
    const { settlementId, addresses, tx } = await paidSettlement(ids);
    expect(tx).toMatchObject({ status: 'confirmed', reorg_count: 0, final_at: null });
    expect(tx.block_hash).toMatch(/^0x[0-9a-f]{64}$/);

    await anvilReorg(h.devchain.rpcUrl, 1);
    expect(await usdcBalance(h, addresses.get('drop-a')!)).toBe(0n);
    expect(await finality.runScheduled()).toMatchObject({ rebroadcast: 1 });
    // Automine mined the rebroadcast: the next pass books the new block.
    expect(await finality.runScheduled()).toMatchObject({ moved: 1 });
    const [after] = await txRows(settlementId);
    expect(after).toMatchObject({ id: tx.id, tx_hash: tx.tx_hash, status: 'confirmed', reorg_count: 1 });
    expect(after!.block_hash).not.toBe(tx.block_hash);
    await expectPaidOnce(ids, addresses);

    await anvil(h).mine({ blocks: FINALITY_BLOCKS });
    expect(await finality.runScheduled()).toMatchObject({ final: 1 });
    expect((await txRows(settlementId))[0]!.final_at).not.toBeNull();
    await expectLedgerCheckOk();
  });

  it('re-included in a later block by the reorg: the booking follows it, nothing paid twice', async () => {
    const ids = ['moved-a', 'moved-b'];
    const { settlementId, addresses, tx } = await paidSettlement(ids);
    await anvil(h).mine({ blocks: 1 });
    await anvilReorg(h.devchain.rpcUrl, 3, [{ signedRaw: tx.signed_raw, blockIndex: 2 }]);
    expect(await finality.runScheduled()).toMatchObject({ moved: 1, rebroadcast: 0 });
    const [after] = await txRows(settlementId);
    expect(after).toMatchObject({ status: 'confirmed', reorg_count: 1 });
    expect(BigInt(after!.block_number!)).toBe(BigInt(tx.block_number!) + 1n);
    await expectPaidOnce(ids, addresses);
    await expectLedgerCheckOk();
  });

  it('its nonce taken by another transaction in the reorg: booking reversed, paid by the next settlement', async () => {
    const ids = ['lost-a', 'lost-b'];
    const { settlementId, addresses, tx } = await paidSettlement(ids);
    const hotWallet = createWalletClient({ chain: devChain(h.devchain.rpcUrl), transport: http(h.devchain.rpcUrl), account: privateKeyToAccount(h.devchain.payoutPrivateKey) });
    const other = await hotWallet.signTransaction({ to: hotWallet.account.address, value: 0n, nonce: tx.nonce, gas: 21_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n });
    await anvilReorg(h.devchain.rpcUrl, 1, [{ signedRaw: other, blockIndex: 0 }]);
    expect(await h.chain.getTransactionReceipt({ hash: keccak256(other) })).toMatchObject({ status: 'success' });
    // The transaction that took the nonce may itself be reorganised away until it is final.
    expect(await finality.runScheduled()).toMatchObject({ lost: 0, waiting: 1 });
    expect((await txRows(settlementId))[0]).toMatchObject({ status: 'confirmed' });
    await anvil(h).mine({ blocks: FINALITY_BLOCKS - 1 });

    expect(await finality.runScheduled()).toMatchObject({ lost: 1 });
    expect((await txRows(settlementId))[0]).toMatchObject({ status: 'dropped', block_hash: null });
    const lines = await sqlRows<{ status: string; failure_reason: string }>(h, 'SELECT status, failure_reason FROM settlement_lines WHERE settlement_id = $1', [settlementId]);
    expect(lines).toEqual(ids.map(() => ({ status: 'failed', failure_reason: 'reorged_out' })));
    expect((await sqlRows<{ status: string }>(h, 'SELECT status FROM settlements WHERE id = $1', [settlementId]))[0]!.status).toBe('failed');
    for (const id of ids) {
      expect(await usdcBalance(h, addresses.get(id)!)).toBe(0n);
      expect(await balancesOf(h, id)).toEqual({ payableAtto: PAID_MICRO_USDC * MICRO_ATTO + 5n, inSettlementAtto: 0n, paidAtto: 0n });
    }
    await expectLedgerCheckOk();

    const next = await h.settlements.createSettlement({ trigger: 'admin', dryRun: false });
    if (next.kind !== 'created') throw new Error('expected a settlement');
    expect(await h.sender.sendSettlement(next.settlement.id)).toEqual({ kind: 'finished', status: 'confirmed' });
    await expectPaidOnce(ids, addresses);
    await expectLedgerCheckOk();
  });

  it('the next send re-sends a reorganised payout before it signs, and never reuses its nonce', async () => {
    const first = await paidSettlement(['resend-a']);
    await anvilReorg(h.devchain.rpcUrl, 1);
    const second = await paidSettlement(['resend-b']);
    expect(second.tx.nonce).toBe(first.tx.nonce + 1);
    expect((await txRows(first.settlementId))[0]).toMatchObject({ status: 'confirmed', reorg_count: 1 });
    expect(await finality.runScheduled()).toMatchObject({ lost: 0, rebroadcast: 0 });
    await expectPaidOnce(['resend-a'], first.addresses);
    await expectPaidOnce(['resend-b'], second.addresses);
    await expectLedgerCheckOk();
  });

  // Last: it leaves the wallet held until the conflict is cleared.
  it('a reverted payout the reorg re-executes successfully: a conflict, and payouts stop until an operator looks', async () => {
    const ids = ['conflict-a'];
    const addresses = await registerContributors(h, ids);
    await creditPayable(h, ids.map((contributorId) => ({ contributorId, payoutAtto: 3n * USD_ATTO + 5n })));
    const created = await h.settlements.createSettlement({ trigger: 'admin', dryRun: false });
    if (created.kind !== 'created') throw new Error('expected a settlement');
    await anvil(h).setAutomine(false);
    try {
      const sending = h.sender.sendSettlement(created.settlement.id);
      await waitFor(() => txRows(created.settlement.id).then((r) => r[0]?.status === 'broadcast'));
      await usdcAdmin(h, 'pause', [], { wait: false, tipWei: 10n ** 11n }); // mined before the batch: it reverts
      await anvil(h).mine({ blocks: 1 });
      expect(await sending).toMatchObject({ kind: 'hold', reason: 'USDC is paused' });
    } finally {
      await anvil(h).setAutomine(true);
    }
    const [reverted] = await txRows(created.settlement.id);
    expect(reverted!.status).toBe('reverted');
    // The same block again without the pause: the batch now pays, though its lines went back to queued.
    await anvilReorg(h.devchain.rpcUrl, 1, [{ signedRaw: reverted!.signed_raw, blockIndex: 0 }]);
    expect(await usdcBalance(h, addresses.get('conflict-a')!)).toBe(PAID_MICRO_USDC);

    expect(await finality.runScheduled()).toMatchObject({ moved: 1 });
    const [after] = await sqlRows<{ status: string; reorg_conflict: string | null }>(h, 'SELECT status, reorg_conflict FROM settlement_txs WHERE id = $1', [reverted!.id]);
    expect(after!.status).toBe('confirmed');
    expect(after!.reorg_conflict).toMatch(/paid 1 line\(s\) the ledger did not book/);
    const check = await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200);
    expect(check.body.ok).toBe(false);
    expect(check.body.settlement).toMatchObject({ ok: false, reorg_conflicts: 1 });
    // Sending again would pay the queued line a second time: held instead, nothing signed.
    expect(await h.sender.sendSettlement(created.settlement.id)).toMatchObject({ kind: 'hold', reason: expect.stringMatching(/reorganisation/) });
    expect(await txRows(created.settlement.id)).toHaveLength(1);
    expect(await usdcBalance(h, addresses.get('conflict-a')!)).toBe(PAID_MICRO_USDC);
  });
});
