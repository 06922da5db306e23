// Scenario 5c: chain faults under a live worker (its RPC goes through a fault proxy): a payout
// transaction dropped from the pool, RPC errors (connections cut before and after the node acted,
// 502s, delays; the first broadcast's answer always lost), USDC paused, the hot wallet out of gas,
// a blacklisted payee. After each: on-chain USDC paid == ledger paid for every payee, no line paid
// twice (Transfer events == paid lines), reconciliation and ledger check clean.
import { privateKeyToAccount } from 'viem/accounts';
import { getJson, postJson, put } from './support/http-client.js';
import { startRpcProxy, type RpcProxy } from './support/rpc-proxy.js';
import { ScenarioRun } from './support/scenario-run.js';
import { addPayees, createSettlement, getSettlement, isFinal, payoutFigures, promoteSendJob, startSettlementStack, usdcAdmin, waitSettlement, type SettlementStack } from './support/settlement-stack.js';

const FINAL_TIMEOUT_MS = 90_000;
const HOT_WALLET_GAS_WEI = 100n * 10n ** 18n;

describe('reliability 5c: settlement under chain faults (live worker)', () => {
  const run = new ScenarioRun('05c-settlement-chain-faults');
  let s: SettlementStack;
  let proxy: RpcProxy;

  beforeAll(async () => {
    s = await startSettlementStack(run, {
      workerRpcUrl: async (anvilUrl) => {
        proxy = await startRpcProxy({
          targetUrl: anvilUrl,
          seed: 5,
          rates: { dropRequest: 0.04, dropResponse: 0.04, http502: 0.04, delay: 0.1 },
          delayMs: { min: 300, max: 2_500 },
          dropFirstResponses: { eth_sendRawTransaction: 1 },
        });
        proxy.enabled = false;
        run.onCleanup('close rpc proxy', () => proxy.close());
        return proxy.url;
      },
    });
    run.onCleanup('chain back to normal', async () => {
      await s.anvil.setIntervalMining({ interval: 0 }).catch(() => undefined);
      await s.anvil.setAutomine(true).catch(() => undefined);
    });
    await s.startWorker();
  }, 150_000);
  afterAll(() => run.cleanup(), 60_000);

  async function reconcile(settlementId: string): Promise<boolean> {
    const res = await postJson(s.admin, `/v1/admin/settlements/${settlementId}/reconcile`, {});
    return res.status === 200 && res.json.ok === true;
  }

  it('dropped from the pool while the worker waits: the same bytes are sent again and paid once', async () => {
    await s.anvil.setAutomine(false);
    const payees = await addPayees(s, 'drop', ['5.5', '6.25', '7.125']);
    const settlement = await createSettlement(s);
    const broadcast = await waitSettlement(s, settlement.id, (b) => b.transactions.length === 1 && b.transactions[0].status === 'broadcast', 60_000);
    const hash = broadcast.transactions[0].tx_hash;
    await s.anvil.dropTransaction({ hash });
    await s.anvil.mine({ blocks: 1 });
    const goneFromPool = await s.chain.getTransaction({ hash }).then(() => false, () => true);
    await s.anvil.setIntervalMining({ interval: 1 });
    const final = await waitSettlement(s, settlement.id, isFinal, FINAL_TIMEOUT_MS);
    await s.anvil.setIntervalMining({ interval: 0 });
    await s.anvil.setAutomine(true);
    const body = await getSettlement(s, settlement.id);
    const figures = await payoutFigures(s);
    const reconciled = await reconcile(settlement.id);
    run.record('dropped', { payees: payees.length, goneFromPool, final: final.status, txs: body.transactions.map((t: any) => ({ same: t.tx_hash === hash, attempt: t.attempt, status: t.status })), reconciled, figures });

    expect(goneFromPool).toBe(true);
    expect(final.status).toBe('confirmed');
    expect(body.transactions).toEqual([expect.objectContaining({ tx_hash: hash, attempt: 1, status: 'confirmed' })]);
    expect(figures.mismatches).toEqual([]);
    expect(figures.ledgerCheck).toBe(true);
    expect(reconciled).toBe(true);
  }, 150_000);

  it('RPC errors and delays (first broadcast answer lost): paid once, nothing signed twice', async () => {
    proxy.enabled = true;
    const payees = await addPayees(s, 'rpc', ['11.11', '22.22', '33.33', '44.44', '5.55', '6.66']);
    const settlement = await createSettlement(s);
    let final: any;
    try {
      final = await waitSettlement(s, settlement.id, isFinal, FINAL_TIMEOUT_MS);
    } finally {
      proxy.enabled = false;
    }
    const body = await getSettlement(s, settlement.id);
    const figures = await payoutFigures(s);
    const reconciled = await reconcile(settlement.id);
    run.record('rpcFaults', {
      payees: payees.length,
      proxied: proxy.counts,
      broadcastFaults: proxy.faultsByMethod.eth_sendRawTransaction ?? {},
      final: final.status,
      txs: body.transactions.map((t: any) => ({ attempt: t.attempt, status: t.status })),
      reconciled,
      figures,
    });

    expect(proxy.faultsByMethod.eth_sendRawTransaction?.['drop-response']).toBeGreaterThanOrEqual(1);
    expect(final.status).toBe('confirmed');
    expect(final.lines.every((l: any) => l.status === 'paid')).toBe(true);
    expect(body.transactions).toHaveLength(2);
    expect(body.transactions.every((t: any) => t.attempt === 1 && t.status === 'confirmed')).toBe(true);
    expect(figures.mismatches).toEqual([]);
    expect(figures.ledgerCheck).toBe(true);
    expect(reconciled).toBe(true);
  }, 150_000);

  it('USDC paused: the settlement holds (nothing signed), then pays once after unpause', async () => {
    await usdcAdmin(s, 'pause');
    const payees = await addPayees(s, 'paused', ['3.5', '4.5']);
    const settlement = await createSettlement(s);
    const held = await waitSettlement(s, settlement.id, (b) => /paused/i.test(b.last_error ?? ''), 60_000);
    await usdcAdmin(s, 'unpause');
    const promoted = await promoteSendJob(s, settlement.id);
    const final = await waitSettlement(s, settlement.id, isFinal, FINAL_TIMEOUT_MS);
    const figures = await payoutFigures(s);
    run.record('paused', { payees: payees.length, heldWith: held.last_error, txsWhileHeld: held.transactions.length, promoted, final: final.status, figures });

    expect(held.transactions).toHaveLength(0);
    expect(final.status).toBe('confirmed');
    expect(figures.mismatches).toEqual([]);
    expect(figures.ledgerCheck).toBe(true);
  }, 150_000);

  it('hot wallet out of gas: the settlement holds, then pays once after funding', async () => {
    const hotWallet = privateKeyToAccount(s.devchain.payoutPrivateKey).address;
    await s.anvil.setBalance({ address: hotWallet, value: 1_000n });
    const payees = await addPayees(s, 'gas', ['8.5', '9.5', '10.5']);
    const settlement = await createSettlement(s);
    const held = await waitSettlement(s, settlement.id, (b) => b.last_error !== null, 60_000);
    await s.anvil.setBalance({ address: hotWallet, value: HOT_WALLET_GAS_WEI });
    const promoted = await promoteSendJob(s, settlement.id);
    const final = await waitSettlement(s, settlement.id, isFinal, FINAL_TIMEOUT_MS);
    const body = await getSettlement(s, settlement.id);
    const figures = await payoutFigures(s);
    run.record('outOfGas', { payees: payees.length, heldWith: held.last_error, txsWhileHeld: held.transactions.length, promoted, final: final.status, txs: body.transactions.map((t: any) => t.status), figures });

    expect(final.status).toBe('confirmed');
    expect(figures.mismatches).toEqual([]);
    expect(figures.ledgerCheck).toBe(true);
  }, 150_000);

  it('blacklisted payee: the others are paid, its line fails back to payable, and it is paid once cleared', async () => {
    const payees = await addPayees(s, 'black', ['12.5', '13.5', '14.5']);
    const refused = payees[1]!;
    await usdcAdmin(s, 'blacklist', [refused.address]);
    const first = await createSettlement(s);
    const firstFinal = await waitSettlement(s, first.id, isFinal, FINAL_TIMEOUT_MS);
    const refusedBalance = (await getJson(s.admin, `/v1/contributors/${refused.id}/balance`)).json;
    const refusedFlag = (await getJson(s.admin, `/v1/admin/contributors/${refused.id}`)).json.flagged_reason;
    const afterFirst = await payoutFigures(s);
    await usdcAdmin(s, 'unBlacklist', [refused.address]);
    // The refusal flags the contributor "until an admin clears it": a settlement now still leaves
    // it out ...
    const whileFlagged = await postJson(s.admin, '/v1/admin/settlements', {});
    // ... until an admin clears the flag (PUT with clear_flag, audited).
    const current = (await getJson(s.admin, `/v1/admin/contributors/${refused.id}`)).json;
    const cleared = await put(s.admin, `/v1/admin/contributors/${refused.id}`, { tier: current.tier, payout_address: current.payout_address, clear_flag: true });
    expect({ status: cleared.status, flagged_reason: cleared.json.flagged_reason }).toEqual({ status: 200, flagged_reason: null });
    const second = await createSettlement(s);
    const secondFinal = await waitSettlement(s, second.id, isFinal, FINAL_TIMEOUT_MS);
    const figures = await payoutFigures(s);
    run.record('blacklisted', {
      first: { status: firstFinal.status, lines: firstFinal.lines.map((l: any) => ({ status: l.status, reason: l.failure_reason })) },
      refusedPayeeAfterFirst: { payable_usd: refusedBalance.payable_usd, paid_usd: refusedBalance.paid_usd, flagged_reason: refusedFlag },
      afterFirstMismatches: afterFirst.mismatches,
      settlementWhileFlagged: whileFlagged.json.status,
      second: { status: secondFinal.status, lines: secondFinal.lines.length },
      figures,
    });

    expect(firstFinal.status).toBe('partially_failed');
    expect(firstFinal.lines.filter((l: any) => l.status === 'paid')).toHaveLength(2);
    expect(firstFinal.lines.find((l: any) => l.contributor_id === refused.id)).toMatchObject({ status: 'failed', failure_reason: 'recipient_blacklisted' });
    expect(refusedBalance).toMatchObject({ payable_usd: '13.5', paid_usd: '0' });
    expect(afterFirst.mismatches).toEqual([]);
    expect(secondFinal.status).toBe('confirmed');
    expect(secondFinal.lines).toEqual([expect.objectContaining({ contributor_id: refused.id, status: 'paid' })]);
    expect(figures.mismatches).toEqual([]);
    expect(figures.paidLines).toBe(figures.transfers);
    expect(figures.ledgerCheck).toBe(true);
    run.record('totals', { payees: figures.payees, paidLines: figures.paidLines, transfers: figures.transfers, onChainMicroUsdc: figures.onChainMicroUsdc, ledgerPaidMicroUsdc: figures.ledgerPaidMicroUsdc });
  }, 150_000);
});
