// READ_DATABASE_URL on a real streaming replica (initdb + pg_basebackup, scripts/lib/pg-replica.ts):
// reports read through it equal the primary's once it has caught up, its lag is in /health/ready and
// /metrics, and losing it fails only the reads it serves (ingestion keeps working on the primary).
import request from 'supertest';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../../src/http-app.js';
import { ensureDatabase, migrate } from '../../scripts/lib/migrate.js';
import { startPgReplicaPair, type PgReplicaPair } from '../../scripts/lib/pg-replica.js';
import { TEST_ADMIN_KEY } from '../support/test-app.js';
import { exampleEvent, GPT4O } from '../support/billing-fixtures.js';

const DB = 'ledger_replica_test';
const admin = `Bearer ${TEST_ADMIN_KEY}`;

describe('reads from a streaming replica (READ_DATABASE_URL)', () => {
  let pair: PgReplicaPair;
  let withReplica: NestFastifyApplication;
  let primaryOnly: NestFastifyApplication;
  let http: ReturnType<typeof request>;
  let primaryHttp: ReturnType<typeof request>;

  beforeAll(async () => {
    pair = await startPgReplicaPair();
    await ensureDatabase(pair.primaryUrl(DB));
    await migrate(pair.primaryUrl(DB));
    const env = { DATABASE_URL: pair.primaryUrl(DB), ADMIN_API_KEY: TEST_ADMIN_KEY, LOG_LEVEL: 'error' };
    withReplica = await createHttpApp({ ...env, READ_DATABASE_URL: pair.replicaUrl(DB) });
    primaryOnly = await createHttpApp(env);
    for (const app of [withReplica, primaryOnly]) {
      await app.init();
      await app.getHttpAdapter().getInstance().ready();
    }
    http = request(withReplica.getHttpServer());
    primaryHttp = request(primaryOnly.getHttpServer());
  }, 120_000);
  afterAll(async () => {
    await Promise.all([withReplica?.close(), primaryOnly?.close()]);
    pair?.stop();
  });

  it('serves earnings, the admin lists and the audit log from the replica, equal to the primary after catch-up', async () => {
    await http.post('/v1/admin/prices').set('Authorization', admin).send({ model: GPT4O, input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    await http.put('/v1/admin/contributors/c_std').set('Authorization', admin).send({ tier: 'standard', payout_address: '0x1111111111111111111111111111111111111111' }).expect(201);
    await http.post('/v1/admin/users/u_42/credits').set('Authorization', admin).send({ amount_usd: '100', reference: 'seed' }).expect(201);
    const events = Array.from({ length: 200 }, (_, i) => exampleEvent({ event_id: `rep-${i}`, occurred_at: `2026-11-${String(10 + (i % 5)).padStart(2, '0')}T10:00:00Z`, usage: { prompt_tokens: 100 + i, completion_tokens: 10 + i } }));
    const batch = await http.post('/v1/usage-events/batch').set('Authorization', admin).send({ events }).expect(200);
    expect(batch.body.results.every((r: { status: string }) => r.status === 'priced')).toBe(true);
    await pair.waitForCatchUp();

    const paths = [
      '/v1/contributors/c_std/earnings?from=2026-11-01&to=2026-12-01&group_by=day',
      '/v1/contributors/c_std/earnings?from=2026-11-01&to=2026-12-01&group_by=model',
      '/v1/admin/contributors',
      '/v1/admin/audit-log?limit=50',
      '/v1/admin/settlements',
      '/v1/contributors/c_std/statements/2026-11',
    ];
    for (const path of paths) {
      const [viaReplica, viaPrimary] = await Promise.all([http.get(path).set('Authorization', admin).expect(200), primaryHttp.get(path).set('Authorization', admin).expect(200)]);
      expect(viaReplica.body).toEqual(viaPrimary.body);
    }
    const earnings = await http.get(paths[0]!).set('Authorization', admin).expect(200);
    expect(earnings.body.rows.reduce((sum: number, row: { events: number }) => sum + Number(row.events), 0)).toBe(200);
  });

  it('shows the replica lag in /health/ready and /metrics', async () => {
    const ready = await http.get('/health/ready').expect(200);
    expect(ready.body.checks.postgres_replica).toEqual({ status: 'up', lag_seconds: expect.any(Number) });
    expect(ready.body.checks.postgres_replica.lag_seconds).toBeLessThan(5);
    const metrics = await http.get('/metrics').expect(200);
    expect(metrics.text).toMatch(/^database_replica_lag_seconds \d/m);
  });

  it('without the replica: ready stays 200 (replica down), ingestion still works, replica reads answer 503', async () => {
    pair.stopReplica();
    try {
      const ready = await http.get('/health/ready').expect(200);
      expect(ready.body.checks.postgres_replica.status).toBe('down');
      await http.post('/v1/usage-events').set('Authorization', admin).send(exampleEvent({ event_id: 'rep-during-outage' })).expect(201);
      const read = await http.get('/v1/contributors/c_std/earnings?from=2026-11-01&to=2026-12-01&group_by=day').set('Authorization', admin);
      expect(read.status).toBe(503);
      const metrics = await http.get('/metrics').expect(200);
      expect(metrics.text).toMatch(/^database_replica_lag_seconds -1/m);
    } finally {
      pair.startReplica();
    }
    await pair.waitForCatchUp();
    const after = await http.get('/v1/usage-events/rep-during-outage').set('Authorization', admin).expect(200);
    expect(after.body.status).toBe('priced');
  });
});
