// Signed gateway keys (api.md "Signed gateway requests"): every request needs an RFC 9421 HTTP
// Message Signature over its method, path, query and Content-Digest, `created` within 5 minutes
// and a fresh nonce, else 401 bad_signature and nothing stored. Real Postgres, real Redis (nonces
// shared across two replicas). The re-aiming cases (another query, path or method with a caught
// signature) were accepted by the body-only scheme this replaced.
import { randomUUID } from 'node:crypto';
import { signRequest, type SignRequestInput } from '../../src/common/signing/http-message-signature.js';
import { SIGNED_SSE_BODY as SSE_BODY } from '../support/signed-gateway.js';
import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, TEST_ADMIN_KEY, type TestApp } from '../support/test-app.js';
import { createHttpApp } from '../../src/http-app.js';
import request from 'supertest';

let t: TestApp;
let key: string;
let keyId: string;
let secret: string;


/** Headers signing one request with the test's key; a fresh nonce unless one is given. */
function sign(method: string, url: string, body = '', overrides: Partial<SignRequestInput> = {}): Record<string, string> {
  return signRequest({ method, url, body, keyId, secret, nonce: randomUUID(), ...overrides });
}

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
  keyId = created.body.id;
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

  it('accepts a valid signature on a single event', async () => {
    const body = JSON.stringify(exampleEvent({ event_id: 'sig-ok-1' }));
    const res = await signedPost('/v1/usage-events', body, sign('POST', '/v1/usage-events', body)).expect(201);
    expect(res.body).toMatchObject({ event_id: 'sig-ok-1', status: 'priced' });
  });

  const OTHER_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const PATH = '/v1/usage-events';
  it.each<[string, (body: string) => { body: string; headers: Record<string, string> }]>([
    ['a signature made with another secret', (body) => ({ body, headers: sign('POST', PATH, body, { secret: OTHER_SECRET }) })],
    ['created 6 minutes ago', (body) => ({ body, headers: sign('POST', PATH, body, { created: new Date(Date.now() - 6 * 60_000) }) })],
    ['created 6 minutes ahead', (body) => ({ body, headers: sign('POST', PATH, body, { created: new Date(Date.now() + 6 * 60_000) }) })],
    ['the body altered after signing', (body) => ({ body: body.replace('"prompt_tokens":1200', '"prompt_tokens":1'), headers: sign('POST', PATH, body) })],
    [
      'a tampered Content-Digest (the altered body\'s own digest, the old signature)',
      (body) => {
        const altered = body.replace('"prompt_tokens":1200', '"prompt_tokens":1');
        return { body: altered, headers: { ...sign('POST', PATH, body), 'content-digest': sign('POST', PATH, altered)['content-digest']! } };
      },
    ],
    ['another method (signed as PUT)', (body) => ({ body, headers: sign('PUT', PATH, body) })],
    ['another path (signed for the batch route)', (body) => ({ body, headers: sign('POST', '/v1/usage-events/batch', body) })],
    ['another query (signed with ?x=1)', (body) => ({ body, headers: sign('POST', `${PATH}?x=1`, body) })],
    ['another key id', (body) => ({ body, headers: sign('POST', PATH, body, { keyId: randomUUID() }) })],
    ['no signature at all', (body) => ({ body, headers: {} })],
    ['no Content-Digest', (body) => ({ body, headers: { ...sign('POST', PATH, body), 'content-digest': '' } })],
    [
      'a signature that leaves out @query',
      (body) => {
        const headers = sign('POST', PATH, body);
        return { body, headers: { ...headers, 'signature-input': headers['signature-input']!.replace(' "@query"', '') } };
      },
    ],
    [
      'another alg',
      (body) => {
        const headers = sign('POST', PATH, body);
        return { body, headers: { ...headers, 'signature-input': headers['signature-input']!.replace('hmac-sha256', 'ed25519') } };
      },
    ],
    ['the retired body-only scheme', (body) => ({ body, headers: { 'webhook-id': 'req_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' } })],
  ])('refuses %s with 401 bad_signature and stores nothing', async (_name, make) => {
    const eventId = `sig-bad-${randomUUID()}`;
    const made = make(JSON.stringify(exampleEvent({ event_id: eventId })));
    const headers = Object.fromEntries(Object.entries(made.headers).filter(([, value]) => value !== ''));
    const before = await usageRows();
    const res = await signedPost(PATH, made.body, headers).expect(401);
    expect(res.body.error.code).toBe('bad_signature');
    expect(await storedEvent(eventId)).toBe(404);
    expect(await usageRows()).toBe(before);
  });

  it('refuses a replayed nonce, even for a request that would be an idempotent replay', async () => {
    const body = JSON.stringify(exampleEvent({ event_id: 'sig-replay-1' }));
    const headers = sign('POST', PATH, body);
    await signedPost(PATH, body, headers).expect(201);
    const replay = await signedPost(PATH, body, headers).expect(401);
    expect(replay.body.error).toMatchObject({ code: 'bad_signature' });
    expect(replay.body.error.message).toContain('replay');
    // The same nonce with another body (a fresh event) is refused too: nonces are single-use.
    const other = JSON.stringify(exampleEvent({ event_id: 'sig-replay-2' }));
    const nonce = /nonce="([^"]+)"/.exec(headers['signature-input']!)![1]!;
    await signedPost(PATH, other, sign('POST', PATH, other, { nonce })).expect(401);
    expect(await storedEvent('sig-replay-2')).toBe(404);
  });

  // Issue 34 item 14: two valid signatures (own labels and nonces) were accepted and spent one
  // nonce, so the request could be sent again under the other label and be accepted.
  it('refuses a request with two signatures (in one header line or two): exactly one per request, and an accepted one cannot come back under another label', async () => {
    const body = JSON.stringify(exampleEvent({ event_id: 'sig-two-1' }));
    const first = sign('POST', PATH, body);
    const second = sign('POST', PATH, body);
    const relabel = (text: string) => text.replace(/^sig1=/, 'sig2=');
    const oneLine = { ...first, 'signature-input': `${first['signature-input']}, ${relabel(second['signature-input']!)}`, signature: `${first.signature}, ${relabel(second.signature!)}` };
    const before = await usageRows();
    const refused = await signedPost(PATH, body, oneLine).expect(401);
    expect(refused.body.error).toMatchObject({ code: 'bad_signature', message: expect.stringContaining('exactly one signature') });
    const twoLines = await t.http
      .post(PATH)
      .set('Authorization', `Bearer ${key}`)
      .set('Content-Type', 'application/json')
      .set('Content-Digest', first['content-digest']!)
      // An array is sent as one header line per value (superagent's types allow it for Cookie only).
      .set({ 'Signature-Input': [first['signature-input']!, relabel(second['signature-input']!)], Signature: [first.signature!, relabel(second.signature!)] } as unknown as Record<string, string>)
      .send(body)
      .expect(401);
    expect(twoLines.body.error.code).toBe('bad_signature');
    expect(await storedEvent('sig-two-1')).toBe(404);
    expect(await usageRows()).toBe(before);

    await signedPost(PATH, body, first).expect(201);
    const underOtherLabel = { ...first, 'signature-input': relabel(first['signature-input']!), signature: relabel(first.signature!) };
    const replay = await signedPost(PATH, body, underOtherLabel).expect(401);
    expect(replay.body.error.message).toContain('replay');
  });

  it('refuses a replay on another API replica (nonces are shared through Redis)', async () => {
    const replica = await createHttpApp({ DATABASE_URL: t.databaseUrl, QUEUE_PREFIX: t.queuePrefix, ADMIN_API_KEY: TEST_ADMIN_KEY, LOG_LEVEL: 'error' });
    await replica.init();
    await replica.getHttpAdapter().getInstance().ready();
    try {
      const body = JSON.stringify(exampleEvent({ event_id: 'sig-replica-1' }));
      const headers = sign('POST', PATH, body);
      await signedPost(PATH, body, headers).expect(201);
      const res = await request(replica.getHttpServer()).post(PATH).set('Authorization', `Bearer ${key}`).set('Content-Type', 'application/json').set(headers).send(body).expect(401);
      expect(res.body.error.code).toBe('bad_signature');
    } finally {
      await replica.close();
    }
  });

  it('signs batches: valid is billed, altered stores none of its events', async () => {
    const batchPath = '/v1/usage-events/batch';
    const events = [exampleEvent({ event_id: 'sig-batch-1' }), exampleEvent({ event_id: 'sig-batch-2' })];
    const body = JSON.stringify({ events });
    const ok = await signedPost(batchPath, body, sign('POST', batchPath, body)).expect(200);
    expect(ok.body.results.map((r: { status: string }) => r.status)).toEqual(['priced', 'priced']);
    const altered = JSON.stringify({ events: [exampleEvent({ event_id: 'sig-batch-3' }), exampleEvent({ event_id: 'sig-batch-4' })] });
    await signedPost(batchPath, altered, sign('POST', batchPath, altered.replace('sig-batch-4', 'sig-batch-5'))).expect(401);
    expect(await storedEvent('sig-batch-3')).toBe(404);
    expect(await storedEvent('sig-batch-4')).toBe(404);
  });

  it('signs SSE bodies as they stream in: valid is billed; altered body, re-aimed query or unsigned is refused and stores nothing', async () => {
    const path = '/v1/usage-events/stream?event_id=sig-sse-1&user_id=u_42&contributor_id=c_std';
    const caught = sign('POST', path, SSE_BODY);
    const ok = await signedPost(path, SSE_BODY, caught, 'text/event-stream').expect(201);
    expect(ok.body).toMatchObject({ event_id: 'sig-sse-1', status: 'priced' });
    const altered = SSE_BODY.replace('"completion_tokens":2', '"completion_tokens":1');
    const path2 = '/v1/usage-events/stream?event_id=sig-sse-2&user_id=u_42&contributor_id=c_std';
    const res = await signedPost(path2, altered, sign('POST', path2, SSE_BODY), 'text/event-stream').expect(401);
    expect(res.body.error.code).toBe('bad_signature');
    expect(await storedEvent('sig-sse-2')).toBe(404);
    // The attack of issue 24: a caught signed stream (fresh nonce, same body) aimed at another
    // event, user, contributor and prompt_tokens through the query. Each is refused.
    const reaimed = [
      '/v1/usage-events/stream?event_id=sig-sse-4&user_id=u_42&contributor_id=c_std',
      '/v1/usage-events/stream?event_id=sig-sse-1&user_id=u_other&contributor_id=c_std',
      '/v1/usage-events/stream?event_id=sig-sse-1&user_id=u_42&contributor_id=c_other',
      '/v1/usage-events/stream?event_id=sig-sse-1&user_id=u_42&contributor_id=c_std&prompt_tokens=5000000',
    ];
    for (const target of reaimed) {
      const headers = sign('POST', path, SSE_BODY);
      const refused = await signedPost(target, SSE_BODY, headers, 'text/event-stream').expect(401);
      expect({ target, code: refused.body.error.code }).toEqual({ target, code: 'bad_signature' });
    }
    expect(await storedEvent('sig-sse-4')).toBe(404);
    // Unsigned on the stream route: refused before the body is read.
    const path3 = '/v1/usage-events/stream?event_id=sig-sse-3&user_id=u_42&contributor_id=c_std';
    await signedPost(path3, SSE_BODY, {}, 'text/event-stream').expect(401);
    expect(await storedEvent('sig-sse-3')).toBe(404);
    await expectLedgerClean(t);
  });

  it('signs holds and reads: a signed hold is made, an unsigned one is not; hold A\'s release signature cannot release hold B', async () => {
    for (const holdId of ['sig-hold-1', 'sig-hold-b']) {
      const body = JSON.stringify({ hold_id: holdId, user_id: 'u_42', amount_usd: '1' });
      await signedPost('/v1/holds', body, sign('POST', '/v1/holds', body)).expect(201);
    }
    const unsigned = JSON.stringify({ hold_id: 'sig-hold-2', user_id: 'u_42', amount_usd: '1' });
    await signedPost('/v1/holds', unsigned, {}).expect(401);
    await t.admin(t.http.get('/v1/holds/sig-hold-2')).expect(404);
    const read = await t.http.get('/v1/holds/sig-hold-1').set('Authorization', `Bearer ${key}`).set(sign('GET', '/v1/holds/sig-hold-1')).expect(200);
    expect(read.body.status).toBe('active');
    await t.http.get('/v1/holds/sig-hold-1').set('Authorization', `Bearer ${key}`).expect(401);
    // A signature for releasing hold A, sent to hold B's release: refused, B stays active.
    const releaseA = sign('POST', '/v1/holds/sig-hold-1/release');
    const refused = await t.http.post('/v1/holds/sig-hold-b/release').set('Authorization', `Bearer ${key}`).set(releaseA).expect(401);
    expect(refused.body.error.code).toBe('bad_signature');
    expect((await t.admin(t.http.get('/v1/holds/sig-hold-b'))).body.status).toBe('active');
    // The same path with a signature made for another method (GET): refused.
    await t.http.post('/v1/holds/sig-hold-b/release').set('Authorization', `Bearer ${key}`).set(sign('GET', '/v1/holds/sig-hold-b/release')).expect(401);
    expect((await t.admin(t.http.get('/v1/holds/sig-hold-b'))).body.status).toBe('active');
    await t.http.post('/v1/holds/sig-hold-1/release').set('Authorization', `Bearer ${key}`).set(releaseA).expect(200);
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
      const res = await down.http.post('/v1/usage-events').set('Authorization', `Bearer ${created.body.key}`).set('Content-Type', 'application/json').set(signRequest({ method: 'POST', url: '/v1/usage-events', body, keyId: created.body.id, secret: created.body.signing_secret, nonce: randomUUID() })).send(body).expect(503);
      expect(res.body.error.code).toBe('unavailable');
      expect((await down.admin(down.http.get('/v1/usage-events/sig-down-1'))).status).toBe(404);
      await down.admin(down.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'unsigned-down-1' })).expect(201);
    } finally {
      await down.close();
    }
  });
});
