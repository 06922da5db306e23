// Scenario 1 of the reliability suite, scaled down for every test run: 1,000 sends with 10%
// duplicates at once over the single, batch and queue paths (in-process app and worker, real
// Postgres and Redis), a few events raced on every path at once. Each event billed exactly once:
// counted rows, usage journal entries, exact amounts and user balances (bigint oracle), ledger check.
import type { AddressInfo } from 'node:net';
import { runExactlyOnceLoad } from '../reliability/support/exactly-once-load.js';
import { AttemptLog, seedOracleBilling, type Client } from '../reliability/support/http-client.js';
import { billingFigures, ledgerCheck } from '../reliability/support/ledger-probe.js';
import { queueClient, waitQueueDrained, type QueueClient } from '../reliability/support/queue-client.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../support/test-app.js';
import { startTestWorker } from '../support/test-worker.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('usage ingestion exactly once under duplicates and concurrency (single + batch + queue)', () => {
  let t: TestApp;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let queue: QueueClient;
  let client: Client;

  beforeAll(async () => {
    t = await startTestApp('exactly_once');
    await t.app.listen(0, '127.0.0.1');
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    client = { baseUrl: () => `http://127.0.0.1:${port}`, key: TEST_ADMIN_KEY, log: new AttemptLog() };
    await seedOracleBilling(client);
    worker = await startTestWorker(t.databaseUrl);
    queue = queueClient({ redisUrl: REDIS_URL, prefix: worker.queuePrefix });
  }, 60_000);
  afterAll(async () => {
    await queue?.close();
    await worker?.close();
    await t?.close();
  });

  it('bills each of 900 unique events once under 100 concurrent duplicates', async () => {
    const load = await runExactlyOnceLoad({ clients: [client], queue, totalSends: 1_000, duplicateRatio: 0.1, raceEvents: 10, seed: 7, prefix: 'eo', concurrency: 16 });
    const drained = await waitQueueDrained(queue, 60_000, 100);
    const figures = await billingFigures({ databaseUrl: t.databaseUrl, events: load.events, acknowledged: load.acknowledged });

    expect(load.sends).toBe(1_000);
    expect(load.duplicates).toBe(100);
    expect(load.httpNotAcked).toBe(0);
    expect(load.replayedHttp).toBeGreaterThan(0);
    expect(drained).toMatchObject({ failed: 0, dead: 0 });
    expect(figures).toMatchObject({
      foundInDb: 900,
      doubledEvents: 0,
      doubledJournalEntries: 0,
      usageJournalEntries: 900,
      pricedEvents: 900,
      wrongAmounts: 0,
      balanceMismatches: [],
      lostAcknowledged: [],
    });
    expect(client.log.summary().fiveXx).toBe(0);
    expect(await ledgerCheck(client.baseUrl(), TEST_ADMIN_KEY)).toMatchObject({ ok: true });
  }, 120_000);
});
