// Scenario 2b: the worker dies twice while holding the same queued usage jobs (a crash loop, or
// two deploys in a row while Postgres is slow). The jobs' writes are held back by a table lock
// taken by the test, so they are certainly in flight at each kill -9. Usage writes are idempotent,
// so a job stalled twice must simply run again: every queued event billed exactly once.
import pg from 'pg';
import { sleep } from '../../scripts/lib/processes.js';
import { waitFor } from '../support/test-worker.js';
import { RELIABILITY_ADMIN_KEY } from './support/built-service.js';
import { runPool } from './support/http-client.js';
import { billingFigures, expectBilledExactlyOnce, ledgerCheck } from './support/ledger-probe.js';
import { waitQueueDrained } from './support/queue-client.js';
import { startReliabilityStack, type ReliabilityStackFor } from './support/reliability-stack.js';
import { ScenarioRun } from './support/scenario-run.js';
import { generateEvents } from './support/usage-oracle.js';

const JOBS = 100;
/** BullMQ's stalled check (30 s) plus the dead worker's lock (30 s). */
const STALL_RECOVERY_MS_MAX = 100_000;

describe('reliability 2b: the worker killed twice while the same jobs are in flight', () => {
  const run = new ScenarioRun('02b-worker-double-crash');
  // The worker starts in the test, once the jobs are queued and their writes held back.
  const stackOptions = { databaseLabel: 'rel_stall', worker: false };
  let s: ReliabilityStackFor<typeof stackOptions>;
  let locker: pg.Client | null = null;

  beforeAll(async () => {
    s = await startReliabilityStack(run, stackOptions);
    run.onCleanup('release the table lock', () => locker?.end().catch(() => undefined));
  }, 150_000);
  afterAll(() => run.cleanup(), 60_000);

  async function activeJobs(): Promise<Array<{ id: string; stalledCounter: number }>> {
    const jobs = await s.queue.queue.getJobs(['active']);
    return jobs.map((j) => ({ id: j.id!, stalledCounter: (j as unknown as { stalledCounter?: number }).stalledCounter ?? 0 }));
  }

  it('bills every job once even when it stalls twice', async () => {
    // Inserts into usage_events wait behind this lock; reads (price book, replays) do not.
    locker = new pg.Client({ connectionString: s.databaseUrl });
    await locker.connect();
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE usage_events IN SHARE ROW EXCLUSIVE MODE');

    const events = generateEvents({ prefix: 'rel2b', count: JOBS, seed: 2 });
    await runPool(events, 16, async (e) => void (await s.queue.publish(e)));
    const kills: Array<{ active: number; stalledCounters: Record<string, number> }> = [];
    await s.startWorker();
    for (let k = 1; k <= 2; k += 1) {
      // k = 1: the first jobs taken; k = 2: the same jobs again, back from the stalled check.
      const active = await waitFor(async () => {
        const jobs = await activeJobs();
        return jobs.length > 0 && (k === 1 || jobs.some((j) => j.stalledCounter >= 1)) ? jobs : null;
      }, STALL_RECOVERY_MS_MAX, 250);
      await sleep(500);
      const atKill = await activeJobs();
      await s.worker.kill9();
      const stalledCounters: Record<string, number> = {};
      for (const j of atKill) stalledCounters[String(j.stalledCounter)] = (stalledCounters[String(j.stalledCounter)] ?? 0) + 1;
      kills.push({ active: active.length, stalledCounters });
      await s.startWorker({ name: `worker-after-kill-${k}` });
    }
    // Wait until the second kill's jobs are back from the stalled check (or failed by it).
    await waitFor(async () => {
      const counts = await s.queue.counts();
      return (counts.failed ?? 0) > 0 || (await activeJobs()).some((j) => j.stalledCounter >= 2) ? counts : null;
    }, STALL_RECOVERY_MS_MAX, 250).catch(() => null);
    await locker.query('ROLLBACK');
    await locker.end();
    locker = null;
    const drained = await waitQueueDrained(s.queue, 60_000);
    const failed = await s.queue.queue.getJobs(['failed']);
    const figures = await billingFigures({ databaseUrl: s.databaseUrl, events, acknowledged: [] });
    const check = await ledgerCheck(s.api.baseUrl, RELIABILITY_ADMIN_KEY);
    run.record('doubleCrash', {
      published: JOBS,
      kills,
      queue: drained,
      failedReasons: [...new Set(failed.map((j) => j.failedReason))],
      db: { foundInDb: figures.foundInDb, doubledEvents: figures.doubledEvents, doubledJournalEntries: figures.doubledJournalEntries, wrongAmounts: figures.wrongAmounts },
      ledgerCheck: check.ok,
    });

    expect(kills[1]!.stalledCounters['1'] ?? 0).toBeGreaterThan(0);
    expect(drained.failed).toBe(0);
    expect(figures.foundInDb).toBe(JOBS);
    expectBilledExactlyOnce(figures, check);
  }, 175_000);
});
