// A worker started while Postgres cannot be reached (found by the seeded soak, seed 90210: a
// worker killed and restarted as Postgres came back from kill -9 died in its start with 57P03, and
// with both workers gone nothing drained the queues). The worker must start, and re-enqueue the
// settlements a crash or Redis loss left behind once the database is back.
import { Queue } from 'bullmq';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { findFreePort, LOOPBACK_HOST } from '../../scripts/lib/processes.js';
import { QUEUE_SETTLEMENT } from '../../src/queue/queue-names.js';
import { startTestWorker, TEST_REDIS_URL } from '../support/test-worker.js';
import { creditPayable, registerContributors, sqlRows, startSettlementHarness, USD_ATTO, waitFor, type SettlementHarness } from './support/settlement-harness.js';

/** A door to the test database on a port of its own: shut (connections refused) until opened. */
async function databaseDoor(databaseUrl: string): Promise<{ url: string; open(): Promise<void>; close(): Promise<void> }> {
  const target = new URL(databaseUrl);
  const port = await findFreePort();
  const sockets = new Set<Socket>();
  let server: Server | null = null;
  const url = new URL(databaseUrl);
  url.hostname = LOOPBACK_HOST;
  url.port = String(port);
  return {
    url: url.toString(),
    open: async () => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 5432), target.hostname);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('error', () => undefined);
          s.on('close', () => {
            sockets.delete(s);
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.listen(port, LOOPBACK_HOST);
      await new Promise((resolve) => server!.once('listening', resolve));
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    },
  };
}

let h: SettlementHarness;
let worker: Awaited<ReturnType<typeof startTestWorker>> | null = null;
let door: Awaited<ReturnType<typeof databaseDoor>> | null = null;
let queue: Queue;

beforeAll(async () => {
  h = await startSettlementHarness('settlement_worker_db_down');
  queue = new Queue(QUEUE_SETTLEMENT, { connection: { url: TEST_REDIS_URL }, prefix: h.queuePrefix });
});
afterAll(async () => {
  await worker?.close();
  await door?.close();
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await h?.close();
});

describe('worker start with the database unavailable', () => {
  it('starts, then re-enqueues and pays the settlement left behind once the database is back', async () => {
    await registerContributors(h, ['wdd-a']);
    await creditPayable(h, [{ contributorId: 'wdd-a', payoutAtto: 4n * USD_ATTO }]);
    const created = await h.settlements.createSettlement({ trigger: 'admin', dryRun: false });
    if (created.kind !== 'created') throw new Error('expected a settlement');
    const settlementId = created.settlement.id;
    // Its send job lost (as with a Redis without persistence): only the worker's start re-enqueues it.
    await queue.obliterate({ force: true });

    door = await databaseDoor(h.t.databaseUrl);
    const started = startTestWorker(door.url, { ...h.env, DATABASE_URL: door.url, QUEUE_PREFIX: h.queuePrefix });
    // Before the fix the start failed: requeueSendable's ECONNREFUSED ended the bootstrap.
    worker = await started;
    expect(await sqlRows<{ status: string }>(h, 'SELECT status FROM settlements WHERE id = $1', [settlementId])).toEqual([{ status: 'queued' }]);

    await door.open();
    const [paid] = await waitFor(() => sqlRows<{ status: string }>(h, `SELECT status FROM settlements WHERE id = $1 AND status = 'confirmed'`, [settlementId]).then((r) => r.length > 0 && r), 60_000);
    expect(paid).toEqual({ status: 'confirmed' });
  });
});
