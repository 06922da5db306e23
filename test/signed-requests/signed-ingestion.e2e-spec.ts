// Signed gateway keys (api.md "Signed gateway requests"): every request needs a Standard Webhooks
// signature over its raw body, a timestamp within 5 minutes and a fresh id, else 401
// bad_signature and nothing stored. Real Postgres, real Redis (ids shared across two replicas).
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signGatewayRequest } from '../../src/queue/gateway-signing.js';
import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../support/test-app.js';
import { createHttpApp } from '../../src/http-app.js';
import request from 'supertest';

let t: TestApp;
let key: string;
let secret: string;

const SSE_BODY = [
  'data: {"id":"c1","object":"chat.completion.chunk","model":"openai/gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"}}]}',
  '',
  'data: {"id":"c1","object":"chat.completion.chunk","model":"openai/gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
  '',
  'data: {"id":"c1","object":"chat.completion.chunk","model":"openai/gpt-4o","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}',
  '',
  'data: [DONE]',
  '',
  '',
].join('\n');

function signedPost(path: string, body: string, headers: Record<string, string>, contentType = 'application/json') {
  return t.http.post(path).set('Authorization', `Bearer ${key}`).set('Content-Type', contentType).set(headers).send(body);
}

async function storedEvent(eventId: string): Promise<number> {
  return (await t.admin(t.http.get(`/v1/usage-events/${eventId}`))).status;
}

async function usageRows(): Promise<number> {
  const res = await t.app.get((await import('../../src/database/database.service.js')).DatabaseService).pool.query<{ n: string }>('SELECT count(*) AS n FROM usage_events');
  return Number(res.rows[0]!.n);
}

beforeAll(async () => {
  t = await startTestApp('signed_ingestion');
  await seedBilling(t);
  const created = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', signed: true, name: 'signed gw' }).expect(201);
  key = created.body.key;
  secret = created.body.signing_secret;
});
afterAll(async () => {
  await t?.close();
});

describe('signed gateway keys', () => {
  it('returns the signing secret once, only for gateway keys', async () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const plain = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway' }).expect(201);
    expect(plain.body).toMatchObject({ signed: false });
    expect(plain.body.signing_secret).toBeUndefined();
    const refused = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'admin', signed: true }).expect(400);
    expect(refused.body.error.code).toBe('validation_failed');
  });

  it('accepts a valid signature (made with the standardwebhooks package) on a single event', async () => {
    const body = JSON.stringify(exampleEvent({ event_id: 'sig-ok-1' }));
    const headers = signGatewayRequest(secret, body);
    // The package a receiver would use agrees that these headers sign this body.
    expect(() => new Webhook(secret).verify(body, headers)).not.toThrow();
    const res = await signedPost('/v1/usage-events', body, headers).expect(201);
    expect(res.body).toMatchObject({ event_id: 'sig-ok-1', status: 'priced' });
  });

  it.each([
    ['a signature made with another secret', (body: string) => ({ body, headers: signGatewayRequest(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, body) })],
    ['a stale timestamp (6 minutes old)', (body: string) => ({ body, headers: signGatewayRequest(secret, body, { now: new Date(Date.now() - 6 * 60_000) }) })],
    ['a timestamp 6 minutes ahead', (body: string) => ({ body, headers: signGatewayRequest(secret, body, { now: new Date(Date.now() + 6 * 60_000) }) })],
    ['the body altered after signing', (body: string) => ({ body: body.replace('"prompt_tokens":1200', '"prompt_tokens":1'), headers: signGatewayRequest(secret, body) })],
    ['no signature at all', (body: string) => ({ body, headers: {} })],
    ['a dotted id', (body: string) => ({ body, headers: signGatewayRequest(secret, body, { id: 'req_1' }) as Record<string, string> })],
  ])('refuses %s with 401 bad_signature and stores nothing', async (name, make) => {
    const eventId = `sig-bad-${randomUUID()}`;
    const made = make(JSON.stringify(exampleEvent({ event_id: eventId })));
    const headers: Record<string, string> = { ...made.headers };
    if (name === 'a dotted id') headers['webhook-id'] = 'req.1';
    const before = await usageRows();
    const res = await signedPost('/v1/usage-events', made.body, headers).expect(401);
    expect(res.body.error.code).toBe('bad_signature');
    expect(await storedEvent(eventId)).toBe(404);
    expect(await usageRows()).toBe(before);
  });

  it('refuses a replayed id, even for a request that would be an idempotent replay', async () => {
    const body = JSON.stringify(exampleEvent({ event_id: 'sig-replay-1' }));
    const headers = signGatewayRequest(secret, body);
    await signedPost('/v1/usage-events', body, headers).expect(201);
    const replay = await signedPost('/v1/usage-events', body, headers).expect(401);
    expect(replay.body.error).toMatchObject({ code: 'bad_signature' });
    expect(replay.body.error.message).toContain('replay');
    // The same id with another body (a fresh event) is refused too: ids are single-use.
    const other = JSON.stringify(exampleEvent({ event_id: 'sig-replay-2' }));
    const reused = signGatewayRequest(secret, other, { id: headers['webhook-id'] });
    await signedPost('/v1/usage-events', other, reused).expect(401);
    expect(await storedEvent('sig-replay-2')).toBe(404);
  });

  it('refuses a replay on another API replica (ids are shared through Redis)', async () => {
    const replica = await createHttpApp({ DATABASE_URL: t.databaseUrl, QUEUE_PREFIX: t.queuePrefix, ADMIN_API_KEY: TEST_ADMIN_KEY, LOG_LEVEL: 'error' });
    await replica.init();
    await replica.getHttpAdapter().getInstance().ready();
    try {
      const body = JSON.stringify(exampleEvent({ event_id: 'sig-replica-1' }));
      const headers = signGatewayRequest(secret, body);
      await signedPost('/v1/usage-events', body, headers).expect(201);
      const res = await request(replica.getHttpServer()).post('/v1/usage-events').set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json').set(headers).send(body).expect(401);
      expect(res.body.error.code).toBe('bad_signature');
    } finally {
      await replica.close();
    }
  });

  it('signs batches: valid is billed, altered stores none of its events', async () => {
    const events = [exampleEvent({ event_id: 'sig-batch-1' }), exampleEvent({ event_id: 'sig-batch-2' })];
    const body = JSON.stringify({ events });
    const ok = await signedPost('/v1/usage-events/batch', body, signGatewayRequest(secret, body)).expect(200);
    expect(ok.body.results.map((r: { status: string }) => r.status)).toEqual(['priced', 'priced']);
    const altered = JSON.stringify({ events: [exampleEvent({ event_id: 'sig-batch-3' }), exampleEvent({ event_id: 'sig-batch-4' })] });
    const headers = signGatewayRequest(secret, altered.replace('sig-batch-4', 'sig-batch-5'));
    await signedPost('/v1/usage-events/batch', altered, headers).expect(401);
    expect(await storedEvent('sig-batch-3')).toBe(404);
    expect(await storedEvent('sig-batch-4')).toBe(404);
  });

  it('signs SSE bodies as they stream in: valid is billed, altered is refused and stores nothing', async () => {
    const path = '/v1/usage-events/stream?event_id=sig-sse-1&user_id=u_42&contributor_id=c_std';
    const ok = await signedPost(path, SSE_BODY, signGatewayRequest(secret, SSE_BODY), 'text/event-stream').expect(201);
    expect(ok.body).toMatchObject({ event_id: 'sig-sse-1', status: 'priced' });
    const altered = SSE_BODY.replace('"completion_tokens":2', '"completion_tokens":1');
    const path2 = '/v1/usage-events/stream?event_id=sig-sse-2&user_id=u_42&contributor_id=c_std';
    const res = await signedPost(path2, altered, signGatewayRequest(secret, SSE_BODY), 'text/event-stream').expect(401);
    expect(res.body.error.code).toBe('bad_signature');
    expect(await storedEvent('sig-sse-2')).toBe(404);
    // Unsigned on the stream route: refused before the body is read.
    const path3 = '/v1/usage-events/stream?event_id=sig-sse-3&user_id=u_42&contributor_id=c_std';
    await signedPost(path3, SSE_BODY, {}, 'text/event-stream').expect(401);
    expect(await storedEvent('sig-sse-3')).toBe(404);
  });

  it('signs holds and reads: a signed hold is made, an unsigned one is not; a GET signs the empty body', async () => {
    const body = JSON.stringify({ hold_id: 'sig-hold-1', user_id: 'u_42', amount_usd: '1' });
    await signedPost('/v1/holds', body, signGatewayRequest(secret, body)).expect(201);
    const unsigned = JSON.stringify({ hold_id: 'sig-hold-2', user_id: 'u_42', amount_usd: '1' });
    await signedPost('/v1/holds', unsigned, {}).expect(401);
    await t.admin(t.http.get('/v1/holds/sig-hold-2')).expect(404);
    const read = await t.http.get('/v1/holds/sig-hold-1').set('Authorization', `Bearer ${key}`).set(signGatewayRequest(secret, '')).expect(200);
    expect(read.body.status).toBe('active');
    await t.http.get('/v1/holds/sig-hold-1').set('Authorization', `Bearer ${key}`).expect(401);
    const release = signGatewayRequest(secret, '');
    await t.http.post('/v1/holds/sig-hold-1/release').set('Authorization', `Bearer ${key}`).set(release).expect(200);
  });

  it('leaves unsigned gateway keys as they were', async () => {
    const plain = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway' }).expect(201);
    await t.http.post('/v1/usage-events').set('Authorization', `Bearer ${plain.body.key}`).send(exampleEvent({ event_id: 'unsigned-1' })).expect(201);
    await expectLedgerClean(t);
  });
});

describe('signed gateway keys when Redis is down', () => {
  it('refuses signed requests with 503 (replays cannot be ruled out) and stores nothing; unsigned keys still work', async () => {
    // A closed loopback port: the replay check cannot reach Redis.
    const down = await startTestApp('signed_redis_down', { REDIS_URL: 'redis://127.0.0.1:1' });
    try {
      await seedBilling(down);
      const created = await down.admin(down.http.post('/v1/admin/api-keys')).send({ role: 'gateway', signed: true }).expect(201);
      const body = JSON.stringify(exampleEvent({ event_id: 'sig-down-1' }));
      const res = await down.http.post('/v1/usage-events').set('Authorization', `Bearer ${created.body.key}`).set('Content-Type', 'application/json').set(signGatewayRequest(created.body.signing_secret, body)).send(body).expect(503);
      expect(res.body.error.code).toBe('unavailable');
      expect((await down.admin(down.http.get('/v1/usage-events/sig-down-1'))).status).toBe(404);
      await down.admin(down.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'unsigned-down-1' })).expect(201);
    } finally {
      await down.close();
    }
  });
});
