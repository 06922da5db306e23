// Scenario 5d: chain reorganisations after confirmation depth 1 (anvil_reorg). The worker books
// payouts after one confirmation (SETTLEMENT_CONFIRMATIONS=1) and keeps re-verifying them until
// they are SETTLEMENT_FINALITY_BLOCKS deep (its finality job, every 15 s). Then: (a) a reorg drops
// both payout transactions of a settlement -> the worker sends the SAME signed bytes again, paid
// once; (b) a reorg re-includes the payout in a later block -> the booking follows, nothing paid
// twice; (c) a reorg puts another transaction of the hot wallet on the payout's nonce -> the
// booking is reversed to payable and the next settlement pays it once. After each: on-chain USDC
// == ledger paid for every payee, Transfer events == paid lines, reconciliation and ledger check ok.
import { createWalletClient, http, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { anvilReorg, devChain } from '../../scripts/lib/devchain.js';
import { postJson } from './support/http-client.js';
import { withClient } from './support/ledger-probe.js';
import { ScenarioRun } from './support/scenario-run.js';
import { addPayees, createSettlement, getSettlement, isFinal, payoutFigures, startSettlementStack, waitSettlement, type SettlementStack } from './support/settlement-stack.js';

const FINALITY_BLOCKS = 6;
/** The finality job runs every 15 s; a busy machine may need a few rounds. */
const RECOVERY_TIMEOUT_MS = 90_000;
const FINAL_TIMEOUT_MS = 90_000;

describe('reliability 5d: payouts reorganised after one confirmation (anvil_reorg)', () => {
  const run = new ScenarioRun('05d-settlement-reorg');
  let s: SettlementStack;

  beforeAll(async () => {
    s = await startSettlementStack(run);
    await s.startWorker({ SETTLEMENT_FINALITY_BLOCKS: String(FINALITY_BLOCKS) });
  }, 150_000);
  afterAll(() => run.cleanup(), 60_000);

  async function reconcile(settlementId: string): Promise<boolean> {
    const res = await postJson(s.admin, `/v1/admin/settlements/${settlementId}/reconcile`, {});
    return res.status === 200 && res.json.ok === true;
  }

  async function paidSettlement(label: string, amountsUsd: string[]): Promise<{ id: string; payees: Awaited<ReturnType<typeof addPayees>>; body: any }> {
    const payees = await addPayees(s, label, amountsUsd);
    const settlement = await createSettlement(s);
    const body = await waitSettlement(s, settlement.id, isFinal, FINAL_TIMEOUT_MS);
    expect(body.status).toBe('confirmed');
    // The worker reconciles right after sending: let it finish before the chain changes under it.
    return { id: settlement.id, payees, body: await waitSettlement(s, settlement.id, (b) => b.reconciliation !== null, FINAL_TIMEOUT_MS) };
  }

  /** On-chain USDC == ledger paid for every payee, one Transfer per paid line, both checks clean. */
  function expectPaidOnceEverywhere(figures: Awaited<ReturnType<typeof payoutFigures>>, reconciled: boolean): void {
    expect(figures.mismatches).toEqual([]);
    expect(figures.paidLines).toBe(figures.transfers);
    expect(figures.ledgerCheck).toBe(true);
    expect(reconciled).toBe(true);
  }

  const txSummary = (body: any) => body.transactions.map((t: any) => ({ hash: t.tx_hash, nonce: t.nonce, attempt: t.attempt, status: t.status, block: t.block_number, reorgs: t.reorg_count, final: t.final }));

  it('(a) both payout transactions dropped by a reorg: the same bytes are sent again and pay once', async () => {
    const { id, payees, body: before } = await paidSettlement('drop', ['10.5', '2.000003', '99.99', '4.25', '18', '3.141592653589']);
    expect(before.transactions).toHaveLength(2);
    const blocks = before.transactions.map((t: any) => BigInt(t.block_number));
    const headBefore = await s.chain.getBlockNumber();
    const depth = Number(headBefore - blocks.reduce((a: bigint, b: bigint) => (a < b ? a : b)) + 1n);
    // Mining off for the look at the chain right after the reorg (the worker may rebroadcast any time).
    await s.anvil.setAutomine(false);
    let duringReorg: Awaited<ReturnType<typeof payoutFigures>>;
    let goneFromChain: boolean[];
    const reorgedAt = Date.now();
    try {
      await anvilReorg(s.devchain.rpcUrl, depth);
      duringReorg = await payoutFigures(s);
      goneFromChain = await Promise.all(before.transactions.map((t: any) => s.chain.getTransactionReceipt({ hash: t.tx_hash }).then(() => false, () => true)));
    } finally {
      await s.anvil.setAutomine(true);
      await s.anvil.mine({ blocks: 1 }); // whatever the worker sent meanwhile
    }

    const after = await waitSettlement(s, id, (b) => b.transactions.every((t: any) => t.reorg_count >= 1 && t.block_hash !== null), RECOVERY_TIMEOUT_MS);
    const recoveryMs = Date.now() - reorgedAt;
    const figures = await payoutFigures(s);
    const reconciled = await reconcile(id);
    await s.anvil.mine({ blocks: FINALITY_BLOCKS });
    const final = await waitSettlement(s, id, (b) => b.transactions.every((t: any) => t.final), RECOVERY_TIMEOUT_MS);
    run.record('dropped', {
      payees: payees.length,
      total_usdc: before.total_usdc,
      reorgDepth: depth,
      before: txSummary(before),
      goneFromChain,
      duringReorg: { onChainMicroUsdc: duringReorg.onChainMicroUsdc, ledgerPaidMicroUsdc: duringReorg.ledgerPaidMicroUsdc, mismatches: duringReorg.mismatches.length },
      after: txSummary(after),
      recoveryMs,
      final: txSummary(final),
      sameBytes: after.transactions.map((t: any) => t.tx_hash).join() === before.transactions.map((t: any) => t.tx_hash).join(),
      reconciled,
      figures,
    });

    expect(goneFromChain).toEqual([true, true]);
    expect(duringReorg.mismatches.map((m) => m.id).sort()).toEqual(payees.map((p) => p.id).sort()); // booked, not on chain for a moment
    expect(duringReorg.ledgerCheck).toBe(true); // the ledger itself stays consistent
    expect(after.status).toBe('confirmed');
    expect(after.transactions.map((t: any) => [t.tx_hash, t.attempt, t.status])).toEqual(before.transactions.map((t: any) => [t.tx_hash, 1, 'confirmed']));
    expectPaidOnceEverywhere(figures, reconciled);
  }, 240_000);

  it('(b) the payout re-included in a later block by a reorg: the booking follows it, nothing paid twice', async () => {
    const { id, payees, body: before } = await paidSettlement('moved', ['5.5', '6.25', '7.125']);
    const [tx] = before.transactions;
    const signedRaw = await withClient(s.env.DATABASE_URL, async (c) => (await c.query<{ signed_raw: Hex }>('SELECT signed_raw FROM settlement_txs WHERE tx_hash = $1', [tx.tx_hash])).rows[0]!.signed_raw);
    await s.anvil.mine({ blocks: 1 });
    // New blocks replace the payout's block and the ones after it; the payout goes into the newest.
    const depth = Number((await s.chain.getBlockNumber()) - BigInt(tx.block_number) + 1n);
    await anvilReorg(s.devchain.rpcUrl, depth, [{ signedRaw, blockIndex: depth - 1 }]);
    const reorgedAt = Date.now();
    const receipt = await s.chain.getTransactionReceipt({ hash: tx.tx_hash });
    const rebroadcast = await s.chain.sendRawTransaction({ serializedTransaction: signedRaw }).then(() => 'accepted', (e: Error) => `refused: ${e.message.split('\n')[0]}`);

    const after = await waitSettlement(s, id, (b) => b.transactions[0].reorg_count >= 1 && b.transactions[0].block_hash === receipt.blockHash, RECOVERY_TIMEOUT_MS);
    const recoveryMs = Date.now() - reorgedAt;
    const figures = await payoutFigures(s);
    const reconciled = await reconcile(id);
    run.record('reincluded', {
      payees: payees.length,
      total_usdc: before.total_usdc,
      reorgDepth: depth,
      blockBefore: tx.block_number,
      blockAfter: receipt.blockNumber,
      sameBytesRebroadcast: rebroadcast,
      after: txSummary(after),
      recoveryMs,
      reconciled,
      figures,
    });

    expect(receipt.blockNumber).toBeGreaterThan(BigInt(tx.block_number));
    expect(after.transactions).toEqual([expect.objectContaining({ tx_hash: tx.tx_hash, attempt: 1, status: 'confirmed', block_number: receipt.blockNumber.toString() })]);
    expectPaidOnceEverywhere(figures, reconciled);
  }, 240_000);

  it('(c) the nonce taken by another transaction in a reorg: booking reversed to payable, paid once by the next settlement', async () => {
    const { id, payees, body: before } = await paidSettlement('lost', ['12.5', '13.5', '14.5']);
    const [tx] = before.transactions;
    const hotWallet = createWalletClient({ chain: devChain(s.devchain.rpcUrl), transport: http(s.devchain.rpcUrl), account: privateKeyToAccount(s.devchain.payoutPrivateKey) });
    const other = await hotWallet.signTransaction({ to: hotWallet.account.address, value: 0n, nonce: tx.nonce, gas: 21_000n, maxFeePerGas: 10n ** 11n, maxPriorityFeePerGas: 10n ** 9n });
    await anvilReorg(s.devchain.rpcUrl, Number((await s.chain.getBlockNumber()) - BigInt(tx.block_number) + 1n), [{ signedRaw: other, blockIndex: 0 }]);
    const reorgedAt = Date.now();
    // Until the transaction on its nonce is final, another reorg could still bring the payout back.
    await s.anvil.mine({ blocks: FINALITY_BLOCKS });
    const reversed = await waitSettlement(s, id, (b) => b.status === 'failed', RECOVERY_TIMEOUT_MS);
    const reversedMs = Date.now() - reorgedAt;
    const afterReversal = await payoutFigures(s);
    const nextSettlement = await createSettlement(s);
    const nextFinal = await waitSettlement(s, nextSettlement.id, isFinal, FINAL_TIMEOUT_MS);
    const next = { body: await getSettlement(s, nextSettlement.id) };
    const figures = await payoutFigures(s);
    const reconciled = await reconcile(id);
    run.record('nonceTaken', {
      payees: payees.length,
      total_usdc: before.total_usdc,
      reversed: { status: reversed.status, lines: reversed.lines.map((l: any) => `${l.status}/${l.failure_reason}`), txs: txSummary(reversed), reversedMs },
      afterReversal: { mismatches: afterReversal.mismatches, ledgerCheck: afterReversal.ledgerCheck },
      next: { lines: next.body.lines.length, total_usdc: next.body.total_usdc, txs: txSummary(next.body) },
      reconciled,
      figures,
    });

    expect(reversed.lines.every((l: any) => l.status === 'failed' && l.failure_reason === 'reorged_out')).toBe(true);
    expect(reversed.transactions).toEqual([expect.objectContaining({ tx_hash: tx.tx_hash, status: 'dropped', block_number: null })]);
    expect(afterReversal.mismatches).toEqual([]); // nothing on chain, nothing booked paid
    expect(afterReversal.ledgerCheck).toBe(true);
    expect(nextFinal.status).toBe('confirmed');
    expect(next.body.lines.map((l: any) => l.contributor_id).sort()).toEqual(payees.map((p) => p.id).sort());
    expectPaidOnceEverywhere(figures, reconciled);
    run.record('totals', { payees: figures.payees, paidLines: figures.paidLines, transfers: figures.transfers, onChainMicroUsdc: figures.onChainMicroUsdc, ledgerPaidMicroUsdc: figures.ledgerPaidMicroUsdc });
  }, 240_000);
});
