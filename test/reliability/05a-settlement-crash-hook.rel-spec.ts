// Scenario 5a: the worker process dies mid-settlement right after broadcasting its first payout
// transaction, before recording the broadcast (PAYOUT_CRASH_AFTER_BROADCAST=1: the worst moment).
// A new worker process resumes from what was persisted before the broadcast: it follows the same
// hash, signs nothing twice, and pays the rest. On-chain USDC paid == ledger paid, no line twice.
import { ScenarioRun } from './support/scenario-run.js';
import { addPayees, createSettlement, expectEveryLinePaidOnce, getSettlement, isFinal, payoutFigures, startSettlementStack, waitSettlement, type SettlementStack } from './support/settlement-stack.js';

describe('reliability 5a: worker killed right after a payout broadcast (crash hook)', () => {
  const run = new ScenarioRun('05a-settlement-crash-hook');
  let s: SettlementStack;

  beforeAll(async () => {
    s = await startSettlementStack(run);
  }, 150_000);
  afterAll(() => run.cleanup(), 60_000);

  it('resumes from the persisted transaction: same hash, every line paid exactly once', async () => {
    // The hook only fires outside production; the crashing worker runs with NODE_ENV=test.
    const crashing = await s.startWorker({ NODE_ENV: 'test', PAYOUT_CRASH_AFTER_BROADCAST: '1' }, 'worker-crashing');
    const payees = await addPayees(s, 'crash', ['12.345678901234', '20', '1.000001', '33.3', '7.77', '15']);
    const settlement = await createSettlement(s);
    const exit = await crashing.exited;
    const atCrash = await getSettlement(s, settlement.id);
    const crashedTx = atCrash.transactions[0];
    const receipt = await s.chain.getTransactionReceipt({ hash: crashedTx.tx_hash });

    const resumedAt = Date.now();
    await s.startWorker({}, 'worker-resumed');
    // The dead worker's job comes back when its lock expires (BullMQ stalled-job check).
    const final = await waitSettlement(s, settlement.id, isFinal, 150_000);
    const figures = await payoutFigures(s);
    run.record('crash', {
      payees: payees.length,
      total_usdc: settlement.body.total_usdc,
      workerExit: exit,
      txsAtCrash: atCrash.transactions.map((t: any) => ({ status: t.status, nonce: t.nonce })),
      crashedTxMined: receipt.status,
      resumeMs: Date.now() - resumedAt,
      final: { status: final.status, lines: final.lines.map((l: any) => l.status), txs: final.transactions.map((t: any) => ({ status: t.status, attempt: t.attempt })) },
      figures,
    });

    expect(exit.code).toBe(137);
    expect(atCrash.transactions).toHaveLength(1);
    expect(crashedTx.status).toBe('signed'); // persisted before broadcast; the crash came before "broadcast"
    expect(receipt.status).toBe('success');
    expect(final.status).toBe('confirmed');
    expect(final.lines.every((l: any) => l.status === 'paid')).toBe(true);
    // Two batches of three, each signed once: the crashed one was followed, not re-signed.
    expect(final.transactions).toHaveLength(2);
    expect(final.transactions.map((t: any) => t.tx_hash)).toContain(crashedTx.tx_hash);
    expect(final.transactions.every((t: any) => t.attempt === 1 && t.status === 'confirmed')).toBe(true);
    expectEveryLinePaidOnce(figures, payees.length);
  }, 200_000);
});
