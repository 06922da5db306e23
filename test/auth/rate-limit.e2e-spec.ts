import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp, testAppForSuite } from '../support/test-app.js';

const bearer = (key: string) => `Bearer ${key}`;

describe('rate limits: ingestion per API key', () => {
  let t: TestApp;
  let gatewayA: string;
  let gatewayB: string;
  let contributorKey: string;

  beforeAll(async () => {
    // 12 events per minute = one token every 5 s (a wide margin for a slow CI machine); the smallest
    // burst allowed (one full batch).
    t = await startTestApp('rate_limit', { RATE_LIMIT_PER_MINUTE: '12', RATE_LIMIT_BURST: '1000' });
    await seedBilling(t);
    const key = async (body: object) => (await t.admin(t.http.post('/v1/admin/api-keys')).send(body).expect(201)).body.key as string;
    gatewayA = await key({ role: 'gateway', name: 'a' });
    gatewayB = await key({ role: 'gateway', name: 'b' });
    contributorKey = await key({ role: 'contributor', contributor_id: 'c_std' });
  });
  afterAll(async () => {
    await expectLedgerClean(t);
    await t?.close();
  });

  it('counts a batch as its events, then answers 429 rate_limited with Retry-After on every ingestion route', async () => {
    // 999 rejected events + 1 valid one: rejected events still cost a token each (the work was done).
    const events: unknown[] = Array.from({ length: 999 }, (_, i) => ({ event_id: `bad-${i}` }));
    events.push(exampleEvent({ event_id: 'rl-batch-1' }));
    const batch = await t.http.post('/v1/usage-events/batch').set('Authorization', bearer(gatewayA)).send({ events }).expect(200);
    expect(batch.body.results.at(-1)).toEqual({ event_id: 'rl-batch-1', status: 'priced' });

    const single = await t.http.post('/v1/usage-events').set('Authorization', bearer(gatewayA)).send(exampleEvent({ event_id: 'rl-1' })).expect(429);
    expect(single.body).toEqual({ error: { code: 'rate_limited', message: expect.stringContaining('rate limit') } });
    expect(Number(single.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    await t.http.post('/v1/holds').set('Authorization', bearer(gatewayA)).send({ hold_id: 'rl-h1', user_id: 'u_42', amount_usd: '1' }).expect(429);
    await t.http
      .post('/v1/usage-events/stream?event_id=rl-s1&user_id=u_42&contributor_id=c_std')
      .set('Authorization', bearer(gatewayA))
      .set('Content-Type', 'text/event-stream')
      .send('data: [DONE]\n\n')
      .expect(429);
    await t.http.post('/v1/usage-events/batch').set('Authorization', bearer(gatewayA)).send({ events: [exampleEvent({ event_id: 'rl-b2' })] }).expect(429);
    // Nothing refused with 429 was stored.
    await t.admin(t.http.get('/v1/usage-events/rl-1')).expect(404);
    await t.admin(t.http.get('/v1/holds/rl-h1')).expect(404);
  });

  it('limits per key: another key, reads and non-ingestion writes are not affected', async () => {
    await t.http.post('/v1/usage-events').set('Authorization', bearer(gatewayB)).send(exampleEvent({ event_id: 'rl-other-key' })).expect(201);
    await t.http.get('/v1/usage-events/rl-batch-1').set('Authorization', bearer(gatewayA)).expect(200);
    await t.http.get('/v1/users/u_42/balance').set('Authorization', bearer(gatewayA)).expect(200);
  });

  it('checks auth first: no key is 401 and a wrong role is 403, never 429', async () => {
    await t.http.post('/v1/usage-events').send(exampleEvent({ event_id: 'rl-nokey' })).expect(401);
    await t.http.post('/v1/usage-events').set('Authorization', bearer(contributorKey)).send(exampleEvent({ event_id: 'rl-ctb' })).expect(403);
  });

  it('lets the key in again once Retry-After has passed', async () => {
    const send = () => t.http.post('/v1/usage-events').set('Authorization', bearer(gatewayA)).send(exampleEvent({ event_id: 'rl-later' }));
    let refused = await send();
    // A token may have dripped in since the last test; spend it (201, then 200 replays) until refused.
    for (let i = 0; refused.status !== 429 && i < 5; i += 1) refused = await send();
    expect(refused.status).toBe(429);
    const waitMs = Number(refused.headers['retry-after']) * 1000;
    expect(waitMs).toBeLessThanOrEqual(5000);
    await new Promise((resolve) => setTimeout(resolve, waitMs + 50));
    expect([200, 201]).toContain((await send()).status);
  });
});

describe('rate limits: failed authentications per client address', () => {
  const t = testAppForSuite('auth_failures', { AUTH_FAILURES_PER_MINUTE: '5' });

  it('answers 429 after the allowed failures, for every keyed route, until the window ends; public routes stay open', async () => {
    const attempts = ['Bearer lk_gw_guess000001', 'Bearer lk_gw_guess000002', 'Basic abc', '', 'Bearer lk_gw_guess000003'];
    for (const header of attempts) {
      const req = t.http.get('/v1/admin/overview');
      await (header ? req.set('Authorization', header) : req).expect(401);
    }
    const blocked = await t.http.get('/v1/admin/overview').set('Authorization', 'Bearer lk_gw_guess000004').expect(429);
    expect(blocked.body.error.code).toBe('rate_limited');
    const retryAfterSeconds = Number(blocked.headers['retry-after']);
    expect(retryAfterSeconds).toBeGreaterThan(50);
    expect(retryAfterSeconds).toBeLessThanOrEqual(60);
    // The block is per address, so even a valid key from it waits (stated in docs/security.md).
    const valid = await t.admin(t.http.get('/v1/admin/overview')).expect(429);
    expect(valid.body.error.code).toBe('rate_limited');
    await t.http.get('/health').expect(200);
  });
});
