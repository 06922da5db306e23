// Scenario 1: 10,000 sends with 10% duplicates, at once over the single, batch and queue paths,
// against two API replicas and a worker (built, as child processes) on one database:
// every event billed exactly once, amounts and balances exact, ledger check clean.
import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '../support/test-db.js';
import { ensureBuilt, RELIABILITY_ADMIN_KEY, startApi, startWorker } from './support/built-service.js';
import { runExactlyOnceLoad } from './support/exactly-once-load.js';
import { AttemptLog, seedOracleBilling, type Client } from './support/http-client.js';
import { billingFigures, ledgerCheck } from './support/ledger-probe.js';
import { queueClient, waitQueueDrained, type QueueClient } from './support/queue-client.js';
import { ScenarioRun } from './support/scenario-run.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const TOTAL_SENDS = 10_000;

describe('reliability 1: duplicates and concurrency over single, batch and queue', () => {
  const run = new ScenarioRun('01-duplicates-concurrency');
  let databaseUrl: string;
  let clients: Client[];
  let queue: QueueClient;

  beforeAll(async () => {
    run.record('build', await ensureBuilt());
    const db = await createTestDatabase('rel_dup');
    run.onCleanup('drop database', db.drop);
    databaseUrl = db.url;
    const env = { DATABASE_URL: db.url, REDIS_URL, QUEUE_PREFIX: `rel-${randomBytes(4).toString('hex')}` };
    const apis = [];
    for (const name of ['api-a', 'api-b']) {
      const api = await startApi({ runDir: run.runDir, env, name });
      run.onCleanup(`stop ${name}`, () => api.process.kill9());
      apis.push(api);
    }
    const worker = await startWorker({ runDir: run.runDir, env });
    run.onCleanup('stop worker', () => worker.kill9());
    queue = queueClient({ redisUrl: REDIS_URL, prefix: env.QUEUE_PREFIX });
    run.onCleanup('obliterate queues', () => queue.close());
    const log = new AttemptLog();
    clients = apis.map((api) => ({ baseUrl: () => api.baseUrl, key: RELIABILITY_ADMIN_KEY, log }));
    await seedOracleBilling(clients[0]!);
  }, 150_000);
  afterAll(() => run.cleanup(), 60_000);

  it('bills each of 9,000 unique events exactly once under 1,000 concurrent duplicates', async () => {
    const load = await runExactlyOnceLoad({ clients, queue, totalSends: TOTAL_SENDS, duplicateRatio: 0.1, raceEvents: 25, seed: 1, prefix: 'rel1', concurrency: 48 });
    const drained = await waitQueueDrained(queue, 120_000);
    const figures = await billingFigures({ databaseUrl, events: load.events, acknowledged: load.acknowledged });
    const check = await ledgerCheck(clients[0]!.baseUrl(), RELIABILITY_ADMIN_KEY);
    run.record('sent', { total: load.sends, unique: load.events.length, duplicates: load.duplicates, byPath: load.sentByPath });
    run.record('acknowledged', { httpEvents: load.acknowledged.size, byPath: load.ackedByPath, replayedHttp: load.replayedHttp, httpNotAcked: load.httpNotAcked });
    run.record('queue', drained);
    run.record('db', figures);
    run.record('http', clients[0]!.log.summary());
    run.record('ledgerCheck', check.ok);
    run.record('loadDurationMs', load.durationMs);

    expect(load.sends).toBe(TOTAL_SENDS);
    expect(load.httpNotAcked).toBe(0);
    expect(drained.failed).toBe(0);
    expect(drained.dead).toBe(0);
    expect(figures.foundInDb).toBe(load.events.length);
    expect(figures.lostAcknowledged).toEqual([]);
    expect(figures.doubledEvents).toBe(0);
    expect(figures.doubledJournalEntries).toBe(0);
    expect(figures.usageJournalEntries).toBe(load.events.length);
    expect(figures.wrongAmounts).toBe(0);
    expect(figures.balanceMismatches).toEqual([]);
    expect(clients[0]!.log.summary().fiveXx).toBe(0);
    expect(check).toMatchObject({ ok: true });
  }, 150_000);
});
