// Every queue on a real Redis Cluster (3 masters + 3 replicas, scripts/lib/redis-cluster.ts):
// usage jobs published by a gateway are billed by the worker, the API's shared limits run on the
// cluster too, and jobs keep flowing through a failover of the master that holds the queue's slot
// (CLUSTER FAILOVER on its replica: a planned promotion, no acknowledged write lost).
import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import { Cluster } from 'ioredis';
import pg from 'pg';
import { publishUsageEvent, QUEUE_USAGE_EVENTS } from '../../src/queue/usage-events.producer.js';
import { parseClusterNodes } from '../../src/config/redis-cluster-nodes.js';
import { startRedisCluster, type RedisClusterHandle } from '../../scripts/lib/redis-cluster.js';
import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startTestWorker, waitFor } from '../support/test-worker.js';

describe('BullMQ and the shared limits on a Redis Cluster', () => {
  let cluster: RedisClusterHandle;
  let t: TestApp;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let producerConnection: Cluster;
  let queue: Queue;
  let db: pg.Client;
  const tag = `t${randomBytes(4).toString('hex')}`;
  const prefix = `{${tag}}`;

  const pricedCount = async () => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM usage_events WHERE status = 'priced'`)).rows[0]!.n);
  const publish = async (from: number, count: number) => {
    for (let i = from; i < from + count; i += 1) {
      await publishUsageEvent(queue, exampleEvent({ event_id: `cl-${i}`, usage: { prompt_tokens: 100 + i, completion_tokens: 10 } }));
    }
  };

  beforeAll(async () => {
    cluster = await startRedisCluster();
    const env = { REDIS_CLUSTER_NODES: cluster.nodes, QUEUE_PREFIX: prefix };
    t = await startTestApp('redis_cluster', env);
    await seedBilling(t);
    worker = await startTestWorker(t.databaseUrl, env);
    producerConnection = new Cluster(parseClusterNodes(cluster.nodes), { redisOptions: { maxRetriesPerRequest: 3 } });
    queue = new Queue(QUEUE_USAGE_EVENTS, { connection: producerConnection, prefix });
    db = new pg.Client({ connectionString: t.databaseUrl });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    await queue?.close();
    producerConnection?.disconnect();
    await db?.end();
    await worker?.close();
    await t?.close();
    cluster?.stop();
  });

  it('bills queued usage events, and the API counts its limits on the cluster', async () => {
    await publish(0, 100);
    await waitFor(async () => (await pricedCount()) === 100, 30_000);
    const ready = await t.http.get('/health/ready').expect(200);
    expect(ready.body.checks.redis.status).toBe('up');
    await t.admin(t.http.get('/v1/admin/overview')).expect(200);
    const metrics = await t.http.get('/metrics');
    expect(/^shared_limits_fallbacks_total (\d+)/m.exec(metrics.text)?.[1]).toBe('0');
    // The queue's keys all live in the slot of its hash tag.
    const slot = Number(cluster.cli(cluster.ports[0]!, 'cluster', 'keyslot', tag));
    const master = cluster.topology().find((node) => node.role === 'master' && node.slots.some(([from, to]) => slot >= from && slot <= to))!;
    expect(Number(cluster.cli(master.port, 'cluster', 'countkeysinslot', String(slot)))).toBeGreaterThan(0);
  });

  it('keeps every job through a failover of the master holding the queue slot: each event billed once', async () => {
    const slot = Number(cluster.cli(cluster.ports[0]!, 'cluster', 'keyslot', tag));
    const publishing = publish(100, 100);
    const { oldMaster, newMaster } = await cluster.failoverSlot(slot);
    expect(newMaster).not.toBe(oldMaster);
    await publishing;
    await publish(200, 50);
    await waitFor(async () => (await pricedCount()) === 250, 60_000);
    const rows = await db.query<{ n: string; distinct_ids: string }>(`SELECT count(*) AS n, count(DISTINCT event_id) AS distinct_ids FROM usage_events`);
    expect(rows.rows[0]).toEqual({ n: '250', distinct_ids: '250' });
    await expectLedgerClean(t);
  });
});
