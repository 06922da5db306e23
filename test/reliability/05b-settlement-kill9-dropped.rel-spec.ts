// Scenario 5b: kill -9 of the worker while its two payout transactions wait in the mempool (no
// mining), and while it is dead the first one is dropped from the pool (anvil_dropTransaction), so
// the second is stuck behind a nonce gap. A new worker must rebroadcast the SAME signed bytes (not
// sign again): both confirm, every line is paid once, on-chain USDC == ledger paid.
import { ScenarioRun } from './support/scenario-run.js';
import { addPayees, createSettlement, expectEveryLinePaidOnce, getSettlement, isFinal, payoutFigures, startSettlementStack, waitSettlement, type SettlementStack } from './support/settlement-stack.js';

describe('reliability 5b: kill -9 of the worker with payouts pending, one dropped from the pool', () => {
  const run = new ScenarioRun('05b-settlement-kill9-dropped');
  let s: SettlementStack;

  beforeAll(async () => {
    s = await startSettlementStack(run);
    run.onCleanup('automine back on', () => s.anvil.setAutomine(true).catch(() => undefined));
    await s.startWorker();
  }, 150_000);
  afterAll(() => run.cleanup(), 60_000);

  it('rebroadcasts the same bytes after the crash and the drop: paid once, nothing re-signed', async () => {
    await s.anvil.setAutomine(false);
    const payees = await addPayees(s, 'kill', ['10.5', '2.000003', '99.99', '4.25', '18', '3.141592653589']);
    const settlement = await createSettlement(s);
    const pending = await waitSettlement(s, settlement.id, (b) => b.transactions.length === 2 && b.transactions.every((t: any) => t.status === 'broadcast'), 60_000);
    const hashes = pending.transactions.map((t: any) => t.tx_hash as `0x${string}`);
    const poolBefore = await s.anvil.getTxpoolStatus();

    await s.worker.kill9();
    const killedAt = Date.now();
    await s.anvil.dropTransaction({ hash: hashes[0]! });
    await s.anvil.mine({ blocks: 1 });
    const poolAfterDrop = await s.anvil.getTxpoolStatus();
    const droppedKnown = await s.chain.getTransaction({ hash: hashes[0]! }).then(() => true, () => false);

    await s.anvil.setIntervalMining({ interval: 1 });
    await s.startWorker({}, 'worker-restarted');
    const final = await waitSettlement(s, settlement.id, isFinal, 150_000);
    const figures = await payoutFigures(s);
    const finalBody = await getSettlement(s, settlement.id);
    run.record('killDropped', {
      payees: payees.length,
      total_usdc: settlement.body.total_usdc,
      poolAtKill: poolBefore,
      poolAfterDrop,
      droppedTxStillKnownToNode: droppedKnown,
      recoveryMs: Date.now() - killedAt,
      final: { status: final.status, txs: finalBody.transactions.map((t: any) => ({ hash: t.tx_hash, status: t.status, attempt: t.attempt, nonce: t.nonce })) },
      sameHashes: finalBody.transactions.map((t: any) => t.tx_hash).sort().join() === [...hashes].sort().join(),
      figures,
    });

    expect(poolBefore.pending + poolBefore.queued).toBe(2);
    expect(droppedKnown).toBe(false);
    expect(final.status).toBe('confirmed');
    expect(final.lines.every((l: any) => l.status === 'paid')).toBe(true);
    expect(finalBody.transactions).toHaveLength(2);
    expect(finalBody.transactions.map((t: any) => t.tx_hash).sort()).toEqual([...hashes].sort());
    expect(finalBody.transactions.every((t: any) => t.attempt === 1 && t.status === 'confirmed')).toBe(true);
    expectEveryLinePaidOnce(figures, payees.length);
  }, 200_000);
});
