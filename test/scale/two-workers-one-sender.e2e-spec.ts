// Two worker processes (full WorkerModules on one database, one Redis prefix, one hot wallet) and
// one settlement whose send job is also published a second time under another id, so both workers
// run a sender for it at once: the hot-wallet lock lets exactly one send, every line is paid once,
// and what the chain holds equals what the ledger says was paid.
import { Queue } from 'bullmq';
import type { Address } from 'viem';
import { jobOptions } from '../../src/queue/jobs.js';
import { JOB_SETTLEMENT_SEND, QUEUE_SETTLEMENT } from '../../src/queue/queue-names.js';
import { MICRO_ATTO, balancesOf, creditPayable, registerContributors, sqlRows, startSettlementHarness, usdcBalance, USD_ATTO, waitFor, type SettlementHarness } from '../settlement/support/settlement-harness.js';
import { startTestWorker } from '../support/test-worker.js';

describe('two workers, one settlement, one hot wallet', () => {
  let h: SettlementHarness;
  let workers: Array<Awaited<ReturnType<typeof startTestWorker>>>;
  let queue: Queue;

  beforeAll(async () => {
    h = await startSettlementHarness('two_workers', { SETTLEMENT_RECIPIENTS_PER_TX: '10' });
    workers = await Promise.all([startTestWorker(h.t.databaseUrl, h.env), startTestWorker(h.t.databaseUrl, h.env)]);
    queue = new Queue(QUEUE_SETTLEMENT, { connection: { url: h.env.REDIS_URL ?? 'redis://127.0.0.1:6379' }, prefix: h.queuePrefix });
  }, 120_000);
  afterAll(async () => {
    await queue?.close();
    await Promise.all((workers ?? []).map((w) => w.close()));
    await h?.close();
  });

  it('sends each batch once: one transaction per nonce, chain == ledger', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => `tw-${String(i).padStart(2, '0')}`);
    const addresses: Map<string, Address> = await registerContributors(h, ids);
    await creditPayable(h, ids.map((id, i) => ({ contributorId: id, payoutAtto: BigInt(i + 2) * USD_ATTO + 123n })));
    const nonceBefore = await h.chain.getTransactionCount({ address: h.devchain.hotWalletAddress, blockTag: 'pending' });

    const created = await h.t.admin(h.t.http.post('/v1/admin/settlements')).send({}).expect(201);
    const settlementId: string = created.body.settlement_id;
    expect(created.body.status).toBe('queued');
    // A second send job for the same settlement (another id): both workers now race for the wallet.
    const payload = { settlement_id: settlementId };
    await queue.add(JOB_SETTLEMENT_SEND, payload, { ...jobOptions(JOB_SETTLEMENT_SEND, payload), jobId: `dup-${settlementId}` });

    await waitFor(async () => (await h.t.admin(h.t.http.get(`/v1/admin/settlements/${settlementId}`))).body.status === 'confirmed', 60_000);

    const txs = await sqlRows<{ nonce: string; n: string }>(h, `SELECT nonce::text, count(*)::text AS n FROM settlement_txs WHERE settlement_id = $1 GROUP BY nonce ORDER BY nonce`, [settlementId]);
    expect(txs).toHaveLength(3);
    expect(txs.every((row) => row.n === '1')).toBe(true);
    const nonceAfter = await h.chain.getTransactionCount({ address: h.devchain.hotWalletAddress, blockTag: 'pending' });
    expect(nonceAfter - nonceBefore).toBe(3);

    for (const [i, id] of ids.entries()) {
      const accruedAtto = BigInt(i + 2) * USD_ATTO + 123n;
      const paidMicro = accruedAtto / MICRO_ATTO;
      expect(await usdcBalance(h, addresses.get(id)!)).toBe(paidMicro);
      const balances = await balancesOf(h, id);
      expect(balances.paidAtto).toBe(paidMicro * MICRO_ATTO);
      expect(balances.payableAtto).toBe(accruedAtto % MICRO_ATTO);
      expect(balances.inSettlementAtto).toBe(0n);
    }
    const check = await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200);
    expect(check.body.ok).toBe(true);
  });
});
