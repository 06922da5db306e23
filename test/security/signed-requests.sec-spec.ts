// Signed gateway requests under attack (issue 24 item 2, api.md "Signed gateway requests"): every
// caught signed request on every gateway route, re-aimed at another path, method or query, with
// its body, digest or signature fields altered, is 401 bad_signature and changes nothing; the
// untouched originals are then accepted once, and refused as replays after.
import { randomUUID } from 'node:crypto';
import type { Test } from 'supertest';
import { signRequest, type RequestSignatureHeaders } from '../../src/common/signing/http-message-signature.js';
import { SIGNED_SSE_BODY as SSE_BODY } from '../support/signed-gateway.js';
import { exampleEvent } from '../support/billing-fixtures.js';
import { errorShapeProblem } from './support/error-shape.js';
import { startSecurityFixture, type SecurityFixture } from './support/security-fixture.js';
import { changedTables, StateProbe } from './support/state-snapshot.js';

type Caught = { name: string; method: 'GET' | 'POST'; target: string; body: string; contentType?: string; headers: RequestSignatureHeaders };
type Attack = { name: string; method: string; target: string; body: string; contentType?: string; headers: Record<string, string> };


let f: SecurityFixture;
let probe: StateProbe;
let key: string;
let keyId: string;
let secret: string;

function sign(method: string, target: string, body = ''): RequestSignatureHeaders {
  return signRequest({ method, url: target, body, keyId, secret, nonce: randomUUID() });
}

function send(request: { method: string; target: string; body: string; contentType?: string; headers: Record<string, string> }): Test {
  const http = f.t.http;
  const req = request.method === 'GET' ? http.get(request.target) : request.method === 'PUT' ? http.put(request.target) : request.method === 'DELETE' ? http.delete(request.target) : http.post(request.target);
  req.set('Authorization', `Bearer ${key}`).set(request.headers);
  if (request.body !== '' || request.contentType) req.set('Content-Type', request.contentType ?? 'application/json');
  return request.body === '' ? req : req.send(request.body);
}

function caughtRequests(): Caught[] {
  const single = JSON.stringify(exampleEvent({ event_id: 'sec-sig-single' }));
  const batch = JSON.stringify({ events: [exampleEvent({ event_id: 'sec-sig-batch-1' }), exampleEvent({ event_id: 'sec-sig-batch-2' })] });
  const hold = JSON.stringify({ hold_id: 'sec-sig-hold-new', user_id: 'u_42', amount_usd: '1' });
  const stream = '/v1/usage-events/stream?event_id=sec-sig-sse&user_id=u_42&contributor_id=c_std';
  const caught: Array<Omit<Caught, 'headers'>> = [
    { name: 'single event', method: 'POST', target: '/v1/usage-events', body: single },
    { name: 'batch', method: 'POST', target: '/v1/usage-events/batch', body: batch },
    { name: 'stream', method: 'POST', target: stream, body: SSE_BODY, contentType: 'text/event-stream' },
    { name: 'hold', method: 'POST', target: '/v1/holds', body: hold },
    { name: 'release hold A', method: 'POST', target: '/v1/holds/sec-sig-hold-a/release', body: '' },
    { name: 'read hold A', method: 'GET', target: '/v1/holds/sec-sig-hold-a', body: '' },
  ];
  return caught.map((c) => ({ ...c, headers: sign(c.method, c.target, c.body) }));
}

/** Every way a caught request can be re-aimed or altered without the secret. */
function attacksOn(c: Caught): Attack[] {
  const base = { method: c.method, target: c.target, body: c.body, contentType: c.contentType, headers: { ...c.headers } as Record<string, string> };
  const withHeaders = (headers: Record<string, string>) => ({ ...base, headers: { ...base.headers, ...headers } });
  const input = c.headers['signature-input'];
  const altered = c.body === '' ? '{}' : c.body.replace('u_42', 'u_43');
  const posted = c.method === 'POST';
  const attacks: Array<[string, Omit<Attack, 'name'>]> = [
    ['another path: hold B', { ...base, target: c.target.replace(/sec-sig-hold-a/, 'sec-sig-hold-b').replace(/^\/v1\/usage-events(\/batch)?$/, '/v1/holds/sec-sig-hold-b/release') }],
    ['another path: upper case', { ...base, target: c.target.replace('/v1/', '/V1/') }],
    ['another path: trailing slash', { ...base, target: c.target.replace(/(\?|$)/, '/$1') }],
    // The same route with a signature made for another method (the body-only scheme let one pass for the other).
    ['a signature made for another method', withHeaders(sign(posted ? 'GET' : 'POST', c.target, c.body))],
    ['a query added', { ...base, target: `${c.target}${c.target.includes('?') ? '&' : '?'}prompt_tokens=5000000` }],
    ['a query changed: user', { ...base, target: c.target.includes('user_id=') ? c.target.replace('user_id=u_42', 'user_id=u_other') : `${c.target}?user_id=u_other` }],
    ['a query changed: contributor', { ...base, target: c.target.includes('contributor_id=') ? c.target.replace('contributor_id=c_std', 'contributor_id=c_other') : `${c.target}?contributor_id=c_other` }],
    ['a query changed: event', { ...base, target: c.target.includes('event_id=') ? c.target.replace('event_id=sec-sig-sse', 'event_id=sec-sig-sse-2') : `${c.target}?event_id=x` }],
    ['Content-Digest removed', { ...base, headers: Object.fromEntries(Object.entries(base.headers).filter(([name]) => name !== 'content-digest')) }],
    ['Signature removed', { ...base, headers: Object.fromEntries(Object.entries(base.headers).filter(([name]) => name !== 'signature')) }],
    ['@query left out', withHeaders({ 'signature-input': input.replace(' "@query"', '') })],
    ['@path left out', withHeaders({ 'signature-input': input.replace(' "@path"', '') })],
    ['@method left out', withHeaders({ 'signature-input': input.replace('"@method" ', '') })],
    ['created moved back 10 minutes', withHeaders({ 'signature-input': input.replace(/created=(\d+)/, (_, t: string) => `created=${Number(t) - 600}`) })],
    ['another nonce', withHeaders({ 'signature-input': input.replace(/nonce="[^"]+"/, `nonce="${randomUUID()}"`) })],
    ['another keyid', withHeaders({ 'signature-input': input.replace(/keyid="[^"]+"/, `keyid="${randomUUID()}"`) })],
    ['another alg', withHeaders({ 'signature-input': input.replace('hmac-sha256', 'rsa-pss-sha512') })],
    ['another label', withHeaders({ 'signature-input': input.replace(/^sig1=/, 'sig2=') })],
    // A second valid signature beside the first (issue 34 item 14: it spent one nonce of two).
    ['a second valid signature', (() => {
      const second = sign(c.method, c.target, c.body);
      const relabel = (text: string) => text.replace(/^sig1=/, 'sig2=');
      return withHeaders({ 'signature-input': `${input}, ${relabel(second['signature-input'])}`, signature: `${c.headers.signature}, ${relabel(second.signature)}` });
    })()],
    ['a signature byte flipped', withHeaders({ signature: c.headers.signature.replace(/:(.)/, (_, ch: string) => `:${ch === 'A' ? 'B' : 'A'}`) })],
    ['the retired body-only scheme', { ...base, headers: { 'webhook-id': 'req_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)), 'webhook-signature': 'v1,AAAA' } }],
  ];
  // A JSON body re-aimed at the other JSON ingestion route (an SSE body is refused there as 415 first).
  if (posted && c.contentType === undefined) attacks.push(['another path: batch <-> single', { ...base, target: c.target === '/v1/usage-events' ? '/v1/usage-events/batch' : '/v1/usage-events' }]);
  // A GET's body is not read, so only requests with a body can have it altered.
  if (posted) {
    attacks.push(
      ['the body altered', { ...base, body: altered, contentType: c.contentType ?? 'application/json' }],
      ['the body altered with a matching Content-Digest', { ...withHeaders({ 'content-digest': sign(c.method, c.target, altered)['content-digest'] }), body: altered, contentType: c.contentType ?? 'application/json' }],
    );
  }
  return attacks.filter(([, a]) => a.target !== c.target || a.method !== c.method || a.body !== c.body || JSON.stringify(a.headers) !== JSON.stringify(c.headers)).map(([name, a]) => ({ name: `${c.name}: ${name}`, ...a }));
}

beforeAll(async () => {
  f = await startSecurityFixture('sec_signed');
  probe = new StateProbe(f.t);
  const created = await f.t.admin(f.t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', signed: true, name: 'sec signed' }).expect(201);
  ({ key, id: keyId, signing_secret: secret } = created.body);
  for (const holdId of ['sec-sig-hold-a', 'sec-sig-hold-b']) {
    const body = JSON.stringify({ hold_id: holdId, user_id: 'u_42', amount_usd: '1', expires_in_seconds: 3600 });
    await send({ method: 'POST', target: '/v1/holds', body, headers: sign('POST', '/v1/holds', body) }).expect(201);
  }
});
afterAll(async () => {
  await f?.t.close();
});

describe('caught signed requests', () => {
  it('re-aimed or altered in any way: 401 bad_signature in the api.md shape, nothing changes; the originals pass once, then are replays', async () => {
    const caught = caughtRequests();
    const before = await probe.snapshot();
    let attacks = 0;
    for (const c of caught) {
      for (const attack of attacksOn(c)) {
        const res = await send(attack);
        expect({ attack: attack.name, status: res.status, code: res.body?.error?.code, shape: errorShapeProblem(res) }).toEqual({ attack: attack.name, status: 401, code: 'bad_signature', shape: null });
        attacks += 1;
      }
    }
    expect(attacks).toBeGreaterThan(120);
    const after = await probe.snapshot();
    expect(changedTables(before, after)).toEqual([]);
    expect((await f.t.admin(f.t.http.get('/v1/holds/sec-sig-hold-b'))).body.status).toBe('active');

    for (const c of caught) {
      const res = await send(c);
      expect({ request: c.name, ok: res.status >= 200 && res.status < 300 }).toEqual({ request: c.name, ok: true });
      const replay = await send(c);
      expect({ request: c.name, status: replay.status, code: replay.body?.error?.code }).toEqual({ request: c.name, status: 401, code: 'bad_signature' });
    }
    expect((await f.t.admin(f.t.http.get('/v1/holds/sec-sig-hold-a'))).body.status).toBe('released');
    expect((await f.t.admin(f.t.http.get('/v1/holds/sec-sig-hold-b'))).body.status).toBe('active');
  }, 120_000);
});
