// Scenario 1: 10,000 sends with 10% duplicates, at once over the single, batch and queue paths,
// against two API replicas and a worker (built, as child processes) on one database:
// every event billed exactly once, amounts and balances exact, ledger check clean.
import { RELIABILITY_ADMIN_KEY } from './support/built-service.js';
import { runExactlyOnceLoad } from './support/exactly-once-load.js';
import type { Client } from './support/http-client.js';
import { billingFigures, expectBilledExactlyOnce, ledgerCheck } from './support/ledger-probe.js';
import { waitQueueDrained } from './support/queue-client.js';
import { startReliabilityStack, type ReliabilityStackFor } from './support/reliability-stack.js';
import { ScenarioRun } from './support/scenario-run.js';

const TOTAL_SENDS = 10_000;

describe('reliability 1: duplicates and concurrency over single, batch and queue', () => {
  const run = new ScenarioRun('01-duplicates-concurrency');
  const stackOptions = { databaseLabel: 'rel_dup', apiNames: ['api-a', 'api-b'] };
  let s: ReliabilityStackFor<typeof stackOptions>;
  let clients: Client[];

  beforeAll(async () => {
    s = await startReliabilityStack(run, stackOptions);
    // One client per replica, one log for both (the seeding went through the first).
    clients = s.apis.map((api) => ({ baseUrl: () => api.baseUrl, key: RELIABILITY_ADMIN_KEY, log: s.admin.log }));
  }, 150_000);
  afterAll(() => run.cleanup(), 60_000);

  it('bills each of 9,000 unique events exactly once under 1,000 concurrent duplicates', async () => {
    const load = await runExactlyOnceLoad({ clients, queue: s.queue, totalSends: TOTAL_SENDS, duplicateRatio: 0.1, raceEvents: 25, seed: 1, prefix: 'rel1', concurrency: 48 });
    const drained = await waitQueueDrained(s.queue, 120_000);
    const figures = await billingFigures({ databaseUrl: s.databaseUrl, events: load.events, acknowledged: load.acknowledged });
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
    expect(figures.usageJournalEntries).toBe(load.events.length);
    expect(clients[0]!.log.summary().fiveXx).toBe(0);
    expectBilledExactlyOnce(figures, check);
  }, 150_000);
});
