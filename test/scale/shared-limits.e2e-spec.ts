// Rate limits and failed-authentication limits are shared by every API process through Redis: two
// API apps on one database and one Redis (the same queue prefix) give a key N in total, not N each.
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { createHttpApp } from '../../src/http-app.js';
import { createTestDatabase } from '../support/test-db.js';
import { TEST_ADMIN_KEY } from '../support/test-app.js';

const BURST = 1000; // the smallest burst allowed; the refill (1 per minute) is negligible here

interface Replica {
  app: NestFastifyApplication;
  http: ReturnType<typeof request>;
}

async function startReplica(env: Record<string, string>): Promise<Replica> {
  const app = await createHttpApp({ ADMIN_API_KEY: TEST_ADMIN_KEY, LOG_LEVEL: 'error', ...env });
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  return { app, http: request(app.getHttpServer()) };
}

describe('shared limits across two API processes', () => {
  let a: Replica;
  let b: Replica;
  let gatewayKey: string;

  beforeAll(async () => {
    const db = await createTestDatabase('shared_limits');
    const env = {
      DATABASE_URL: db.url,
      QUEUE_PREFIX: `test-${randomBytes(4).toString('hex')}`,
      RATE_LIMIT_PER_MINUTE: '1',
      RATE_LIMIT_BURST: String(BURST),
      AUTH_FAILURES_PER_MINUTE: '4',
    };
    [a, b] = await Promise.all([startReplica(env), startReplica(env)]);
    gatewayKey = (await a.http.post('/v1/admin/api-keys').set('Authorization', `Bearer ${TEST_ADMIN_KEY}`).send({ role: 'gateway', name: 'gw' }).expect(201)).body.key;
  });
  afterAll(async () => {
    await Promise.all([a?.app.close(), b?.app.close()]);
  });

  it('gives a key exactly its burst across both replicas, however the requests are spread', async () => {
    // 1,100 single requests, round-robin over the two replicas, 40 at a time. Each carries an
    // invalid event: a 400 still costs its token, and nothing is stored.
    const statuses: number[] = [];
    const total = BURST + 100;
    for (let start = 0; start < total; start += 40) {
      const wave = Array.from({ length: Math.min(40, total - start) }, (_, i) => {
        const replica = (start + i) % 2 === 0 ? a : b;
        return replica.http.post('/v1/usage-events').set('Authorization', `Bearer ${gatewayKey}`).send({ event_id: `bad-${start + i}` });
      });
      for (const response of await Promise.all(wave)) statuses.push(response.status);
    }
    const limited = statuses.filter((status) => status === 429).length;
    expect(statuses.filter((status) => status === 400).length).toBe(BURST);
    expect(limited).toBe(total - BURST);
    // Both replicas refuse now.
    await a.http.post('/v1/usage-events/batch').set('Authorization', `Bearer ${gatewayKey}`).send({ events: [{ event_id: 'x' }] }).expect(429);
    await b.http.post('/v1/usage-events/batch').set('Authorization', `Bearer ${gatewayKey}`).send({ events: [{ event_id: 'x' }] }).expect(429);
  });

  it('counts failed authentications of one client across both replicas', async () => {
    for (const replica of [a, b, a, b]) {
      await replica.http.get('/v1/admin/overview').set('Authorization', 'Bearer lk_gw_guess0000001').expect(401);
    }
    const blocked = await b.http.get('/v1/admin/overview').set('Authorization', 'Bearer lk_gw_guess0000002').expect(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(40);
    // The block is per address: the admin key from the same client waits too, on either replica.
    await a.http.get('/v1/admin/overview').set('Authorization', `Bearer ${TEST_ADMIN_KEY}`).expect(429);
  });
});

describe('shared limits while Redis is unreachable', () => {
  let replica: Replica;
  let gatewayKey: string;

  beforeAll(async () => {
    const db = await createTestDatabase('shared_limits_down');
    // Nothing listens on port 1: every shared-limit check falls back to the process's own limits.
    replica = await startReplica({ DATABASE_URL: db.url, REDIS_URL: 'redis://127.0.0.1:1', RATE_LIMIT_PER_MINUTE: '1', RATE_LIMIT_BURST: String(BURST) });
    gatewayKey = (await replica.http.post('/v1/admin/api-keys').set('Authorization', `Bearer ${TEST_ADMIN_KEY}`).send({ role: 'gateway', name: 'gw' }).expect(201)).body.key;
  });
  afterAll(async () => {
    await replica?.app.close();
  });

  it('keeps ingestion working and still enforces the limit in the process', async () => {
    const events = Array.from({ length: BURST }, (_, i) => ({ event_id: `bad-${i}` }));
    const batch = await replica.http.post('/v1/usage-events/batch').set('Authorization', `Bearer ${gatewayKey}`).send({ events }).expect(200);
    expect(batch.body.results).toHaveLength(BURST);
    await replica.http.post('/v1/usage-events').set('Authorization', `Bearer ${gatewayKey}`).send({ event_id: 'one-more' }).expect(429);
    const metrics = await replica.http.get('/metrics').set('Authorization', `Bearer ${TEST_ADMIN_KEY}`);
    const fallbacks = /^shared_limits_fallbacks_total (\d+)/m.exec(metrics.text);
    expect(Number(fallbacks?.[1])).toBeGreaterThanOrEqual(3);
  });
});
