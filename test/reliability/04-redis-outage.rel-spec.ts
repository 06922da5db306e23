// Scenario 4: Redis (our own instance, append-only file with fsync always, as a queue Redis should
// run) hangs (SIGSTOP) and then dies (kill -9) while the worker drains queued usage jobs and
// gateways keep posting over REST. REST ingestion must stay 2xx, /health/ready must say redis is
// down, the worker must survive (or come back cleanly), and every job queued before the outage
// must be billed exactly once when Redis is back.
import { createTestDatabase } from '../support/test-db.js';
import { waitFor } from '../support/test-worker.js';
import { sleep, type ManagedProcess } from '../../scripts/lib/processes.js';
import { ensureBuilt, RELIABILITY_ADMIN_KEY, startApi, startWorker, type ApiProcess, type ServiceEnv } from './support/built-service.js';
import { AttemptLog, getJson, runPool, seedOracleBilling, type Client } from './support/http-client.js';
import { billingFigures, ledgerCheck, storedWithPrefix } from './support/ledger-probe.js';
import { startOwnRedis, type OwnRedis } from './support/own-redis.js';
import { queueClient, queueDrained, waitQueueDrained, type QueueClient } from './support/queue-client.js';
import { newOutbox, resendUnacknowledged, steadyLoad } from './support/resending-client.js';
import { ScenarioRun } from './support/scenario-run.js';
import { eventStream, generateEvents, type UsageBody } from './support/usage-oracle.js';

/** Jobs published right before each outage, so some are certainly still queued when it hits. */
const QUEUED_BEFORE_OUTAGE = 2_500;
const FREEZE_MS = 5_000;
const DOWN_MS = 6_000;

interface Outage {
  how: 'SIGSTOP (hang)' | 'kill -9';
  downMs: number;
  storedQueueJobsAtStart: number;
  storedQueueJobsAtEnd: number;
  rest: ReturnType<AttemptLog['summary']>;
  ready: Record<string, number>;
  readyLatencyMs: { p50: number; p99: number; max: number };
  readyRedisDown: number;
  workerAlive: boolean;
}

describe('reliability 4: Redis outage (own Redis instance)', () => {
  const run = new ScenarioRun('04-redis-outage');
  let redis: OwnRedis;
  let databaseUrl: string;
  let env: ServiceEnv;
  let api: ApiProcess;
  let worker: ManagedProcess;
  let queue: QueueClient;
  const log = new AttemptLog();
  const client: Client = { baseUrl: () => api.baseUrl, key: RELIABILITY_ADMIN_KEY, log };
  // Billed to the same users by the first test: the second one's balance check includes them.
  let previousQueued: UsageBody[] = [];
  let previousRest: UsageBody[] = [];

  beforeAll(async () => {
    run.record('build', await ensureBuilt());
    const db = await createTestDatabase('rel_redis');
    run.onCleanup('drop database', db.drop);
    databaseUrl = db.url;
    redis = await startOwnRedis({ logDir: run.runDir, persistence: 'aof' });
    run.onCleanup('destroy own redis', () => redis.destroy());
    env = { DATABASE_URL: db.url, REDIS_URL: redis.url, QUEUE_PREFIX: 'rel4' };
    api = await startApi({ runDir: run.runDir, env });
    run.onCleanup('stop api', () => api.process.kill9());
    worker = await startWorker({ runDir: run.runDir, env });
    run.onCleanup('stop worker', () => worker.kill9());
    queue = queueClient({ redisUrl: redis.url, prefix: env.QUEUE_PREFIX });
    run.onCleanup('close queue client', () => queue.close());
    await seedOracleBilling(client);
  }, 150_000);
  afterAll(() => run.cleanup(), 60_000);

  it('keeps REST ingestion up, reports redis down, and bills every queued job once Redis is back', async () => {
    const queued: UsageBody[] = [];
    let published = 0;
    const outbox = newOutbox([]);
    const load = steadyLoad({ client, outbox, next: eventStream({ prefix: 'rel4rest', seed: 44 }), lanes: { single: 6, batch: 1 }, pauseMs: 10 });
    const outages: Outage[] = [];
    const workerCrashes: string[] = [];
    const readyLog = new AttemptLog();
    const readyClient: Client = { baseUrl: () => api.baseUrl, key: RELIABILITY_ADMIN_KEY, log: readyLog };

    const injectOutage = async (how: Outage['how'], durationMs: number) => {
      const burst = generateEvents({ prefix: `rel4q${outages.length}`, count: QUEUED_BEFORE_OUTAGE, seed: 4 + outages.length });
      queued.push(...burst);
      await runPool(burst, 32, async (event) => {
        if (await queue.publish(event)) published += 1;
      });
      const storedQueueJobsAtStart = await storedWithPrefix(databaseUrl, `rel4q${outages.length}`);
      const downAt = Date.now();
      if (how === 'kill -9') await redis.crash();
      else redis.freeze();
      const ready: Record<string, number> = {};
      let readyRedisDown = 0;
      while (Date.now() - downAt < durationMs) {
        const r = await getJson(readyClient, '/health/ready');
        ready[String(r.status)] = (ready[String(r.status)] ?? 0) + 1;
        if (r.json?.checks?.redis?.status === 'down') readyRedisDown += 1;
        await sleep(250);
      }
      const upAt = Date.now();
      if (how === 'kill -9') await redis.start();
      else redis.thaw();
      outages.push({
        how,
        downMs: upAt - downAt,
        storedQueueJobsAtStart,
        storedQueueJobsAtEnd: await storedWithPrefix(databaseUrl, `rel4q${outages.length}`),
        rest: log.summary((a) => a.startedAtMs >= downAt && a.startedAtMs < upAt),
        ready,
        readyLatencyMs: readyLog.summary((a) => a.startedAtMs >= downAt && a.startedAtMs < upAt).latencyMs,
        readyRedisDown,
        workerAlive: worker.isRunning(),
      });
      if (!worker.isRunning()) {
        // Not expected; if it happens the scenario records it and checks a clean restart.
        workerCrashes.push(worker.logTail(1_500));
        worker = await startWorker({ runDir: run.runDir, env });
      }
      await sleep(2_000);
    };
    try {
      await sleep(1_000);
      await injectOutage('SIGSTOP (hang)', FREEZE_MS);
      await injectOutage('kill -9', DOWN_MS);
    } finally {
      redis.thaw();
      await redis.start();
      await load.stop();
    }
    const rest = log.summary();
    await resendUnacknowledged(client, outbox);
    const drained = await waitQueueDrained(queue, 120_000);
    const readyAfter = await getJson(readyClient, '/health/ready');
    previousQueued = queued;
    previousRest = outbox.events;
    const figures = await billingFigures({ databaseUrl, events: [...queued, ...outbox.events], acknowledged: outbox.acked });
    const check = await ledgerCheck(api.baseUrl, RELIABILITY_ADMIN_KEY);
    run.record('queue', { published, counts: drained });
    run.record('outages', outages);
    run.record('rest', { sent: outbox.events.length, ackedFirstPass: outbox.ackedFirstPass, http: rest, resent: outbox.resent });
    run.record('workerCrashes', workerCrashes.length);
    run.record('workerAliveAtEnd', worker.isRunning());
    run.record('readyAfter', readyAfter.status);
    run.record('db', figures);
    run.record('ledgerCheck', check.ok);

    expect(published).toBe(2 * QUEUED_BEFORE_OUTAGE);
    for (const outage of outages) {
      expect(Object.keys(outage.rest.byStatus).filter((s) => !/^2\d\d$/.test(s))).toEqual([]);
      expect(Object.keys(outage.ready)).toEqual(['503']);
      expect(outage.readyRedisDown).toBe(Object.values(outage.ready).reduce((a, b) => a + b, 0));
      // The outage hit while jobs were still queued (otherwise it would prove nothing about them).
      expect(outage.storedQueueJobsAtStart).toBeLessThan(QUEUED_BEFORE_OUTAGE);
    }
    expect(rest.fiveXx).toBe(0);
    expect(outbox.ackedFirstPass).toBe(outbox.events.length);
    expect(workerCrashes).toEqual([]);
    expect(worker.isRunning()).toBe(true);
    expect(readyAfter.status).toBe(200);
    expect(drained.failed).toBe(0);
    expect(drained.dead).toBe(0);
    expect(figures.foundInDb).toBe(queued.length + outbox.events.length);
    expect(figures.lostAcknowledged).toEqual([]);
    expect(figures.doubledEvents).toBe(0);
    expect(figures.doubledJournalEntries).toBe(0);
    expect(figures.wrongAmounts).toBe(0);
    expect(figures.balanceMismatches).toEqual([]);
    expect(check).toMatchObject({ ok: true });
  }, 170_000);

  // The same crash on a Redis run like this machine's development one (no AOF, no snapshots):
  // what was queued and not yet committed is gone. Recorded, not asserted: it is why a queue
  // Redis must run with appendonly (see docs/reliability.md); what did get billed is still exact.
  it('without persistence, a Redis crash drops queued jobs: recorded, and nothing is billed twice', async () => {
    const bare = await startOwnRedis({ logDir: run.runDir, persistence: 'none' });
    run.onCleanup('destroy bare redis', () => bare.destroy());
    const bareEnv = { ...env, REDIS_URL: bare.url, QUEUE_PREFIX: 'rel4bare' };
    const bareWorker = await startWorker({ runDir: run.runDir, env: bareEnv, name: 'worker-bare' });
    run.onCleanup('stop bare worker', () => bareWorker.kill9());
    const bareQueue = queueClient({ redisUrl: bare.url, prefix: bareEnv.QUEUE_PREFIX });
    run.onCleanup('close bare queue client', () => bareQueue.close());
    const events = generateEvents({ prefix: 'rel4bare', count: 2_000, seed: 444 });
    let published = 0;
    await runPool(events, 32, async (event) => {
      if (await bareQueue.publish(event)) published += 1;
    });
    await waitFor(async () => (await storedWithPrefix(databaseUrl, 'rel4bare')) >= 400, 60_000, 20);
    const storedAtCrash = await storedWithPrefix(databaseUrl, 'rel4bare');
    await bare.crash();
    await sleep(2_000);
    await bare.start();
    await waitFor(async () => queueDrained(await bareQueue.counts()), 60_000, 250);
    await sleep(2_000);
    const storedAfter = await storedWithPrefix(databaseUrl, 'rel4bare');
    const figures = await billingFigures({ databaseUrl, events, acknowledged: [], earlierEvents: [...previousQueued, ...previousRest] });
    const check = await ledgerCheck(api.baseUrl, RELIABILITY_ADMIN_KEY);
    run.record('noPersistence', { published, storedAtCrash, storedAfter, lostQueuedJobs: published - storedAfter, workerAlive: bareWorker.isRunning(), db: figures, ledgerCheck: check.ok });

    expect(bareWorker.isRunning()).toBe(true);
    expect(figures.doubledEvents).toBe(0);
    expect(figures.doubledJournalEntries).toBe(0);
    expect(figures.wrongAmounts).toBe(0);
    expect(figures.balanceMismatches).toEqual([]);
    expect(check).toMatchObject({ ok: true });
  }, 120_000);
});
