// Scenario 3: Postgres goes away under load, twice (a fast shutdown, then kill -9 of every
// Postgres process), on a Postgres instance of our own. While it is down the API answers 503
// `unavailable` quickly (never 500, never a hang) and /health/ready is 503; it recovers by itself
// (same API process); queued jobs wait and get billed; nothing acknowledged is lost or doubled.
import { sleep } from '../../scripts/lib/processes.js';
import { waitFor } from '../support/test-worker.js';
import { RELIABILITY_ADMIN_KEY } from './support/built-service.js';
import { AttemptLog, createGatewayKey, getJson, runPool, type Client } from './support/http-client.js';
import { billingFigures, expectBilledExactlyOnce, ledgerCheck } from './support/ledger-probe.js';
import { waitQueueDrained } from './support/queue-client.js';
import { readinessProbe, type OutageWindow } from './support/readiness-probe.js';
import { startReliabilityStack, type ReliabilityStackFor } from './support/reliability-stack.js';
import { newOutbox, resendUnacknowledged, steadyLoad } from './support/resending-client.js';
import { ScenarioRun } from './support/scenario-run.js';
import { eventStream, generateEvents, type UsageBody } from './support/usage-oracle.js';

const DOWN_MS = 6_000;
const QUEUED_BEFORE_OUTAGE = 600;
/** While Postgres is down a request must fail fast: pg connect timeout is 3 s. */
const OUTAGE_LATENCY_MS_MAX = 5_000;
/** After Postgres is back, the API must answer 2xx again within this (no restart). */
const RECOVERY_MS_MAX = 15_000;

interface Outage extends OutageWindow<'fast shutdown' | 'kill -9'> {
  /** Requests answered while Postgres was down, by status:code, and their latency. */
  duringOutage: ReturnType<AttemptLog['summary']>;
  readyWhileDown: Record<string, number>;
  /** From Postgres accepting connections again to the API's first 2xx on ingestion. */
  recoveryMs: number;
}

describe('reliability 3: Postgres restart during load (own Postgres instance)', () => {
  const run = new ScenarioRun('03-postgres-restart');
  const stackOptions = { ownPostgres: true } as const;
  let s: ReliabilityStackFor<typeof stackOptions>;
  const log = new AttemptLog();
  let gateway: Client;

  beforeAll(async () => {
    s = await startReliabilityStack(run, stackOptions);
    // A gateway key lives hashed in Postgres: the auth lookup is on the outage's path too.
    gateway = { baseUrl: () => s.api.baseUrl, key: await createGatewayKey(s.admin), log };
  }, 150_000);
  afterAll(() => run.cleanup(), 60_000);

  it('answers 503 unavailable while Postgres is down, recovers alone, loses and doubles nothing', async () => {
    const apiPid = s.api.process.pid;
    const outbox = newOutbox([]);
    const load = steadyLoad({ client: gateway, outbox, next: eventStream({ prefix: 'rel3', seed: 3 }), lanes: { single: 8, batch: 1 }, pauseMs: 10 });
    const queued = generateEvents({ prefix: 'rel3q', count: QUEUED_BEFORE_OUTAGE, seed: 33 });
    const outages: Outage[] = [];
    const readiness = readinessProbe(s);

    const injectOutage = async (how: Outage['how']) => {
      // Jobs pushed just before the outage are processed into it: the worker must delay, not drop them.
      if (how === 'fast shutdown') await runPool(queued, 16, async (e: UsageBody) => void (await s.queue.publish(e)));
      const downAt = Date.now();
      if (how === 'fast shutdown') await s.ownPostgres.stop();
      else await s.ownPostgres.crash();
      const readyWhileDown = (await readiness.poll({ sinceMs: downAt, durationMs: DOWN_MS })).byStatus;
      await s.ownPostgres.start();
      const upAt = Date.now();
      const firstOk = await waitFor(async () => log.attempts.find((a) => a.startedAtMs >= upAt && a.status >= 200 && a.status < 300), RECOVERY_MS_MAX, 50);
      outages.push({
        how,
        downMs: upAt - downAt,
        duringOutage: log.summary((a) => a.startedAtMs >= downAt + 200 && a.startedAtMs < upAt),
        readyWhileDown,
        readyLatencyMs: readiness.latencyMs(downAt, upAt),
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
      await s.ownPostgres.start();
    }
    const firstPass = log.summary();
    await resendUnacknowledged(gateway, outbox);
    const drained = await waitQueueDrained(s.queue, 120_000);
    const readyAfter = await getJson(readiness.client, '/health/ready');

    const figures = await billingFigures({ databaseUrl: s.databaseUrl, events: [...outbox.events, ...queued], acknowledged: outbox.acked });
    const check = await ledgerCheck(s.api.baseUrl, RELIABILITY_ADMIN_KEY);
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
    run.record('apiRestarted', s.api.process.pid !== apiPid || !s.api.process.isRunning());
    run.record('workerAlive', s.worker.isRunning());
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
    expect(s.api.process.pid).toBe(apiPid);
    expect(s.api.process.isRunning()).toBe(true);
    expect(s.worker.isRunning()).toBe(true);
    expect(readyAfter.status).toBe(200);
    expect(outbox.acked.size).toBe(outbox.events.length);
    expect(drained.failed).toBe(0);
    expect(drained.dead).toBe(0);
    expect(figures.lostAcknowledged).toEqual([]);
    expect(figures.foundInDb).toBe(outbox.events.length + queued.length);
    expectBilledExactlyOnce(figures, check);
  }, 170_000);
});
