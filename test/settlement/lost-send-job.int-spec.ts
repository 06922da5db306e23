// A settlement whose send job was lost while the worker ran (found by the seeded soak, seed 90210's
// replay: the API killed between committing an approval and enqueueing its send; with the
// scheduler off only a worker restart re-enqueued it, so the settlement stayed queued). The
// finality job, every 15 s, must add the missing send job.
import { Queue } from 'bullmq';
import { QUEUE_SETTLEMENT } from '../../src/queue/queue-names.js';
import { startTestWorker, TEST_REDIS_URL } from '../support/test-worker.js';
import { creditPayable, registerContributors, sqlRows, startSettlementHarness, USD_ATTO, waitFor, type SettlementHarness } from './support/settlement-harness.js';

let h: SettlementHarness;
let worker: Awaited<ReturnType<typeof startTestWorker>> | null = null;
let queue: Queue;

beforeAll(async () => {
  h = await startSettlementHarness('settlement_lost_send_job');
  queue = new Queue(QUEUE_SETTLEMENT, { connection: { url: TEST_REDIS_URL }, prefix: h.queuePrefix });
});
afterAll(async () => {
  await worker?.close();
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await h?.close();
});

describe('a send job lost while the worker runs', () => {
  it('is added again by the finality job and the settlement is paid', async () => {
    worker = await startTestWorker(h.t.databaseUrl, { ...h.env, QUEUE_PREFIX: h.queuePrefix });
    await registerContributors(h, ['lsj-a']);
    await creditPayable(h, [{ contributorId: 'lsj-a', payoutAtto: 3n * USD_ATTO }]);
    // The worker takes nothing while paused: the send job is removed before it can run, as if the
    // API had died after the commit and before the enqueue.
    await queue.pause();
    const created = await h.settlements.createSettlement({ trigger: 'admin', dryRun: false });
    if (created.kind !== 'created') throw new Error('expected a settlement');
    const settlementId = created.settlement.id;
    await (await queue.getJob(settlementId))?.remove();
    expect(await queue.getJob(settlementId)).toBeUndefined();
    await queue.resume();

    const [paid] = await waitFor(() => sqlRows<{ status: string }>(h, `SELECT status FROM settlements WHERE id = $1 AND status = 'confirmed'`, [settlementId]).then((r) => r.length > 0 && r), 90_000);
    expect(paid).toEqual({ status: 'confirmed' });
    const [line] = await sqlRows<{ status: string; n: number }>(h, `SELECT status, count(*)::int AS n FROM settlement_lines WHERE settlement_id = $1 GROUP BY status`, [settlementId]);
    expect(line).toEqual({ status: 'paid', n: 1 });
  }, 120_000);
});
