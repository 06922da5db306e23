// The real worker process modules (BullMQ on real Redis): the cron scheduler creates a settlement,
// a paused USDC holds it without spending job attempts, it pays once unpaused, reconciliation runs,
// and repeated scheduler runs never create a second settlement.
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { QUEUE_SETTLEMENT } from '../../src/queue/queue-names.js';
import { startTestWorker } from '../support/test-worker.js';
import { balancesOf, creditPayable, registerContributors, sqlRows, startSettlementHarness, usdcAdmin, USD_ATTO, waitFor, type SettlementHarness } from './support/settlement-harness.js';

let h: SettlementHarness;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let redis: Redis;
let queue: Queue;

beforeAll(async () => {
  h = await startSettlementHarness('settlement_worker');
  redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
  queue = new Queue(QUEUE_SETTLEMENT, { connection: redis, prefix: h.queuePrefix });
});
afterAll(async () => {
  await worker?.close();
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  redis?.disconnect();
  await h?.close();
});

describe('settlement worker', () => {
  it('schedules, holds on a paused token without burning attempts, then pays once and reconciles', async () => {
    await usdcAdmin(h, 'pause', []);
    await registerContributors(h, ['w-a', 'w-b']);
    await creditPayable(h, [{ contributorId: 'w-a', payoutAtto: 5n * USD_ATTO + 1n }, { contributorId: 'w-b', payoutAtto: 7n * USD_ATTO }]);
    worker = await startTestWorker(h.t.databaseUrl, { ...h.env, SETTLEMENT_SCHEDULER_ENABLED: 'true', SETTLEMENT_CRON: '* * * * * *' });

    const [settlement] = await waitFor(() =>
      sqlRows<{ id: string; trigger: string; last_error: string | null }>(h, `SELECT id, trigger, last_error FROM settlements WHERE last_error IS NOT NULL`).then((r) => r.length > 0 && r),
    );
    expect(settlement).toMatchObject({ trigger: 'schedule', last_error: 'USDC is paused' });
    const held = await waitFor(async () => {
      const job = await queue.getJob(settlement!.id);
      return job && (await job.getState()) === 'delayed' && job;
    });
    expect(held.attemptsMade).toBe(0);
    expect(await sqlRows(h, `SELECT status FROM settlement_lines WHERE settlement_id = $1`, [settlement!.id])).toEqual([{ status: 'queued' }, { status: 'queued' }]);

    // Run it again right away while still paused: held again, still no attempt spent.
    await held.promote();
    await waitFor(async () => {
      const job = await queue.getJob(settlement!.id);
      return job && (job.attemptsStarted ?? 0) >= 2 && (await job.getState()) === 'delayed';
    });
    expect((await queue.getJob(settlement!.id))!.attemptsMade).toBe(0);

    await usdcAdmin(h, 'unpause', []);
    await (await queue.getJob(settlement!.id))!.promote();
    await waitFor(() => sqlRows<{ status: string }>(h, `SELECT status FROM settlements WHERE id = $1 AND status = 'confirmed'`, [settlement!.id]).then((r) => r.length > 0), 30_000);
    expect((await balancesOf(h, 'w-a')).paidAtto).toBe(5n * USD_ATTO);
    expect((await balancesOf(h, 'w-b')).paidAtto).toBe(7n * USD_ATTO);

    // The reconcile job runs after the send; the scheduler keeps ticking but finds nobody to pay.
    const [reconciled] = await waitFor(() =>
      sqlRows<{ reconciliation: { ok: boolean; paid_lines: number } | null }>(h, 'SELECT reconciliation FROM settlements WHERE id = $1 AND reconciliation IS NOT NULL', [settlement!.id]).then((r) => r.length > 0 && r),
    );
    expect(reconciled!.reconciliation).toMatchObject({ ok: true, paid_lines: 2 });
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(await sqlRows(h, 'SELECT id FROM settlements')).toHaveLength(1);
  });
});
