// Scenario 2: kill -9 of the API under load (single + batch), twice, restarted on the same port;
// the client resends every event without a 2xx. Then kill -9 of the worker, twice, while it
// drains the usage queue. After: every acknowledged event stored, none twice, ledger clean.
import { sleep } from '../../scripts/lib/processes.js';
import { waitFor } from '../support/test-worker.js';
import { RELIABILITY_ADMIN_KEY } from './support/built-service.js';
import { runPool } from './support/http-client.js';
import { billingFigures, expectBilledExactlyOnce, ledgerCheck, storedWithPrefix } from './support/ledger-probe.js';
import { waitQueueDrained } from './support/queue-client.js';
import { startReliabilityStack, type ReliabilityStackFor } from './support/reliability-stack.js';
import { firstPass, newOutbox, resendUnacknowledged } from './support/resending-client.js';
import { ScenarioRun } from './support/scenario-run.js';
import { generateEvents } from './support/usage-oracle.js';

const API_EVENTS = 4_000;
const QUEUE_EVENTS = 2_000;
const KILLS = 2;
const ACKS_BETWEEN_KILLS_MIN = 200;

describe('reliability 2: kill -9 of the API and of the worker under load', () => {
  const run = new ScenarioRun('02-crash-kill9');
  const stackOptions = { databaseLabel: 'rel_crash' };
  let s: ReliabilityStackFor<typeof stackOptions>;
  let apiEvents: ReturnType<typeof generateEvents> = [];

  beforeAll(async () => {
    s = await startReliabilityStack(run, stackOptions);
  }, 150_000);
  afterAll(() => run.cleanup(), 60_000);

  it('loses no acknowledged event and bills none twice when the API is killed with -9 mid-load', async () => {
    apiEvents = generateEvents({ prefix: 'rel2api', count: API_EVENTS, seed: 2 });
    const outbox = newOutbox(apiEvents);
    const kills: Array<{ afterAttempted: number; afterAcked: number; downMs: number }> = [];
    let loadDone = false;
    const killer = (async () => {
      for (let k = 1; k <= KILLS; k += 1) {
        // Spread over the first pass by progress (not by acks: while the API is down, events
        // are tried and fail, so acks alone would never reach the later thresholds).
        const threshold = Math.floor((API_EVENTS * k) / (KILLS + 2));
        // ... and only once the restarted API is taking load again (requests in flight to kill).
        const ackedBefore = kills.at(-1)?.afterAcked ?? 0;
        while (!loadDone && (outbox.attempted < threshold || outbox.acked.size < ackedBefore + ACKS_BETWEEN_KILLS_MIN)) await sleep(20);
        if (loadDone) return;
        const killedAt = Date.now();
        const at = { afterAttempted: outbox.attempted, afterAcked: outbox.acked.size };
        await s.api.process.kill9();
        await sleep(500);
        await s.startApi({ port: s.api.port });
        kills.push({ ...at, downMs: Date.now() - killedAt });
      }
    })();
    await firstPass(s.admin, outbox, { single: 32, batch: 4 });
    loadDone = true;
    await killer;
    const firstPassSummary = s.admin.log.summary();
    await resendUnacknowledged(s.admin, outbox);

    const figures = await billingFigures({ databaseUrl: s.databaseUrl, events: outbox.events, acknowledged: outbox.acked });
    const check = await ledgerCheck(s.api.baseUrl, RELIABILITY_ADMIN_KEY);
    run.record('api', {
      sent: outbox.events.length,
      kills,
      ackedFirstPass: outbox.ackedFirstPass,
      notAckedFirstPass: outbox.events.length - outbox.ackedFirstPass,
      firstPassHttp: firstPassSummary,
      resent: outbox.resent,
      resendRounds: outbox.resendRounds,
      replayedOnResend: outbox.replayedOnResend,
      ackedFinal: outbox.acked.size,
      db: figures,
      ledgerCheck: check.ok,
    });

    expect(kills).toHaveLength(KILLS);
    expect(outbox.acked.size).toBe(API_EVENTS);
    expect(figures.lostAcknowledged).toEqual([]);
    expect(figures.foundInDb).toBe(API_EVENTS);
    expect(firstPassSummary.status500).toBe(0);
    expectBilledExactlyOnce(figures, check);
  }, 150_000);

  it('bills every queued job exactly once when the worker is killed with -9 while draining', async () => {
    const events = generateEvents({ prefix: 'rel2q', count: QUEUE_EVENTS, seed: 22 });
    let published = 0;
    await runPool(events, 32, async (event) => {
      if (await s.queue.publish(event)) published += 1;
    });
    const kills: Array<{ storedAtKill: number; activeAtKill: number }> = [];
    for (let k = 1; k <= KILLS; k += 1) {
      const threshold = Math.floor((QUEUE_EVENTS * k) / (KILLS + 1));
      await waitFor(async () => (await storedWithPrefix(s.databaseUrl, 'rel2q')) >= threshold, 90_000, 20);
      const activeAtKill = (await s.queue.counts()).active ?? 0;
      await s.worker.kill9();
      kills.push({ storedAtKill: await storedWithPrefix(s.databaseUrl, 'rel2q'), activeAtKill });
      await s.startWorker();
    }
    // Jobs that were active in the dead worker come back when their lock expires (stalled check).
    const drained = await waitQueueDrained(s.queue, 150_000);
    const figures = await billingFigures({ databaseUrl: s.databaseUrl, events, acknowledged: [], earlierEvents: apiEvents });
    const check = await ledgerCheck(s.api.baseUrl, RELIABILITY_ADMIN_KEY);
    run.record('worker', { published, kills, queue: drained, db: figures, ledgerCheck: check.ok, workerAlive: s.worker.isRunning() });

    expect(published).toBe(QUEUE_EVENTS);
    expect(drained.failed).toBe(0);
    expect(drained.dead).toBe(0);
    expect(figures.foundInDb).toBe(QUEUE_EVENTS);
    expectBilledExactlyOnce(figures, check);
  }, 180_000);
});
