// Scenario 3: Postgres goes away under load, twice (a fast shutdown, then kill -9 of every
// Postgres process), on a Postgres instance of our own. While it is down the API answers 503
// `unavailable` quickly (never 500, never a hang) and /health/ready is 503; it recovers by itself
// (same API process); queued jobs wait and get billed; nothing acknowledged is lost or doubled.
import { randomBytes } from 'node:crypto';
import { migrate } from '../../scripts/lib/migrate.js';
import { sleep, type ManagedProcess } from '../../scripts/lib/processes.js';
import { waitFor } from '../support/test-worker.js';
import { ensureBuilt, RELIABILITY_ADMIN_KEY, startApi, startWorker, type ApiProcess } from './support/built-service.js';
import { AttemptLog, createGatewayKey, getJson, runPool, seedOracleBilling, type Client } from './support/http-client.js';
import { billingFigures, ledgerCheck } from './support/ledger-probe.js';
import { startOwnPostgres, type OwnPostgres } from './support/own-postgres.js';
import { queueClient, waitQueueDrained, type QueueClient } from './support/queue-client.js';
import { newOutbox, resendUnacknowledged, steadyLoad } from './support/resending-client.js';
import { ScenarioRun } from './support/scenario-run.js';
import { eventStream, generateEvents, type UsageBody } from './support/usage-oracle.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DOWN_MS = 6_000;
const QUEUED_BEFORE_OUTAGE = 600;
/** While Postgres is down a request must fail fast: pg connect timeout is 3 s. */
const OUTAGE_LATENCY_MS_MAX = 5_000;
/** After Postgres is back, the API must answer 2xx again within this (no restart). */
const RECOVERY_MS_MAX = 15_000;

interface Outage {
  how: 'fast shutdown' | 'kill -9';
  downMs: number;
  /** Requests answered while Postgres was down, by status:code, and their latency. */
  duringOutage: ReturnType<AttemptLog['summary']>;
  readyWhileDown: Record<string, number>;
  readyLatencyMs: { p50: number; p99: number; max: number };
  /** From Postgres accepting connections again to the API's first 2xx on ingestion. */
  recoveryMs: number;
}

describe('reliability 3: Postgres restart during load (own Postgres instance)', () => {
  const run = new ScenarioRun('03-postgres-restart');
  let pg: OwnPostgres;
  let databaseUrl: string;
  let api: ApiProcess;
  let worker: ManagedProcess;
  let queue: QueueClient;
  const log = new AttemptLog();
  let gateway: Client;
  const admin: Client = { baseUrl: () => api.baseUrl, key: RELIABILITY_ADMIN_KEY, log: new AttemptLog() };

  beforeAll(async () => {
    run.record('build', await ensureBuilt());
    pg = await startOwnPostgres({ logDir: run.runDir });
    run.onCleanup('destroy own postgres', () => pg.destroy());
    databaseUrl = pg.url('ledger_rel');
    await migrate(databaseUrl);
    const env = { DATABASE_URL: databaseUrl, REDIS_URL, QUEUE_PREFIX: `rel-${randomBytes(4).toString('hex')}` };
    api = await startApi({ runDir: run.runDir, env });
    run.onCleanup('stop api', () => api.process.kill9());
    worker = await startWorker({ runDir: run.runDir, env });
    run.onCleanup('stop worker', () => worker.kill9());
    queue = queueClient({ redisUrl: REDIS_URL, prefix: env.QUEUE_PREFIX });
    run.onCleanup('obliterate queues', () => queue.close());
    await seedOracleBilling(admin);
    // A gateway key lives hashed in Postgres: the auth lookup is on the outage's path too.
    gateway = { baseUrl: () => api.baseUrl, key: await createGatewayKey(admin), log };
  }, 150_000);
  afterAll(() => run.cleanup(), 60_000);

  it('answers 503 unavailable while Postgres is down, recovers alone, loses and doubles nothing', async () => {
    const apiPid = api.process.pid;
    const outbox = newOutbox([]);
    const load = steadyLoad({ client: gateway, outbox, next: eventStream({ prefix: 'rel3', seed: 3 }), lanes: { single: 8, batch: 1 }, pauseMs: 10 });
    const queued = generateEvents({ prefix: 'rel3q', count: QUEUED_BEFORE_OUTAGE, seed: 33 });
    const outages: Outage[] = [];
    const readyLog = new AttemptLog();
    const readyClient: Client = { baseUrl: () => api.baseUrl, key: RELIABILITY_ADMIN_KEY, log: readyLog };

    const injectOutage = async (how: Outage['how']) => {
      // Jobs pushed just before the outage are processed into it: the worker must delay, not drop them.
      if (how === 'fast shutdown') await runPool(queued, 16, async (e: UsageBody) => void (await queue.publish(e)));
      const downAt = Date.now();
      if (how === 'fast shutdown') await pg.stop();
      else await pg.crash();
      const readyWhileDown: Record<string, number> = {};
      while (Date.now() - downAt < DOWN_MS) {
        const r = await getJson(readyClient, '/health/ready');
        readyWhileDown[String(r.status)] = (readyWhileDown[String(r.status)] ?? 0) + 1;
        await sleep(250);
      }
      await pg.start();
      const upAt = Date.now();
      const firstOk = await waitFor(async () => log.attempts.find((a) => a.startedAtMs >= upAt && a.status >= 200 && a.status < 300), RECOVERY_MS_MAX, 50);
      outages.push({
        how,
        downMs: upAt - downAt,
        duringOutage: log.summary((a) => a.startedAtMs >= downAt + 200 && a.startedAtMs < upAt),
        readyWhileDown,
        readyLatencyMs: readyLog.summary((a) => a.startedAtMs >= downAt && a.startedAtMs < upAt).latencyMs,
        recoveryMs: firstOk.startedAtMs + firstOk.latencyMs - upAt,
      });
      await sleep(3_000);
    };
    try {
      await sleep(3_000);
      for (const how of ['fast shutdown', 'kill -9'] as const) {
        await injectOutage(how);
      }
    } finally {
      // Also on failure: the lanes would otherwise keep jest alive.
      await load.stop();
      await pg.start();
    }
    const firstPass = log.summary();
    await resendUnacknowledged(gateway, outbox);
    const drained = await waitQueueDrained(queue, 120_000);
    const readyAfter = await getJson(readyClient, '/health/ready');

    const figures = await billingFigures({ databaseUrl, events: [...outbox.events, ...queued], acknowledged: outbox.acked });
    const check = await ledgerCheck(api.baseUrl, RELIABILITY_ADMIN_KEY);
    run.record('outages', outages);
    run.record('http', {
      sent: outbox.events.length,
      ackedFirstPass: outbox.ackedFirstPass,
      firstPass,
      resent: outbox.resent,
      replayedOnResend: outbox.replayedOnResend,
      ackedFinal: outbox.acked.size,
    });
    run.record('queue', { publishedBeforeOutage: queued.length, counts: drained });
    run.record('readyAfter', readyAfter.status);
    run.record('apiRestarted', api.process.pid !== apiPid || !api.process.isRunning());
    run.record('workerAlive', worker.isRunning());
    run.record('db', figures);
    run.record('ledgerCheck', check.ok);

    for (const outage of outages) {
      const statuses = Object.keys(outage.duringOutage.byStatus);
      expect(statuses.filter((s) => !/^(2\d\d|503:unavailable)$/.test(s))).toEqual([]);
      expect(outage.duringOutage.fiveXx).toBeGreaterThan(0);
      expect(outage.duringOutage.latencyMs.max).toBeLessThan(OUTAGE_LATENCY_MS_MAX);
      expect(Object.keys(outage.readyWhileDown)).toEqual(['503']);
      expect(outage.recoveryMs).toBeLessThan(RECOVERY_MS_MAX);
    }
    expect(firstPass.status500).toBe(0);
    expect(api.process.pid).toBe(apiPid);
    expect(api.process.isRunning()).toBe(true);
    expect(worker.isRunning()).toBe(true);
    expect(readyAfter.status).toBe(200);
    expect(outbox.acked.size).toBe(outbox.events.length);
    expect(drained.failed).toBe(0);
    expect(drained.dead).toBe(0);
    expect(figures.lostAcknowledged).toEqual([]);
    expect(figures.foundInDb).toBe(outbox.events.length + queued.length);
    expect(figures.doubledEvents).toBe(0);
    expect(figures.doubledJournalEntries).toBe(0);
    expect(figures.wrongAmounts).toBe(0);
    expect(figures.balanceMismatches).toEqual([]);
    expect(check).toMatchObject({ ok: true });
  }, 170_000);
});
