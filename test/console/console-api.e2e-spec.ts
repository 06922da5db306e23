// What the web console needs from the HTTP layer, on the real app (real Postgres and Redis): the
// built files at /console/ under a strict CSP, GET /v1/me, the overview per day, contributor search
// and the unpriced events per model.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CONSOLE_CSP } from '../../src/common/http/console-static.js';
import { exampleEvent, GPT4O, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { expectDeclaredAnswer } from '../support/declared-answer.js';
import { unpricedByModelResponseSchema } from '../../src/modules/usage/usage.schemas.js';

const INDEX_HTML = '<!doctype html><html><head><script type="module" src="/console/assets/app-abc123.js"></script></head><body><div id="root"></div></body></html>';

function fakeBuild(): string {
  const directory = mkdtempSync(join(tmpdir(), 'console-build-'));
  mkdirSync(join(directory, 'assets'));
  writeFileSync(join(directory, 'index.html'), INDEX_HTML);
  writeFileSync(join(directory, 'assets', 'app-abc123.js'), 'console.log("console");');
  writeFileSync(join(directory, '.env'), 'SECRET=1');
  return directory;
}

describe('console static files', () => {
  let t: TestApp;
  let directory: string;
  beforeAll(async () => {
    directory = fakeBuild();
    t = await startTestApp('console_static', { CONSOLE_DIR: directory, CHAIN_EXPLORER_TX_URL: 'https://scan.example/tx/{tx_hash}' });
  });
  afterAll(async () => {
    await t?.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('serves index.html at /console/ and for every client route, with the strict CSP and no caching', async () => {
    for (const path of ['/console/', '/console', '/console/settlements/0b4c', '/console/prices?model=openai%2Fgpt-4o']) {
      const res = await t.http.get(path).expect(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.text).toBe(INDEX_HTML);
      expect(res.headers['content-security-policy']).toBe(CONSOLE_CSP);
      expect(res.headers['cache-control']).toBe('no-cache');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['set-cookie']).toBeUndefined();
    }
    expect(CONSOLE_CSP).toContain("script-src 'self'");
    expect(CONSOLE_CSP).not.toContain('unsafe-inline');
    expect(CONSOLE_CSP).toContain("frame-ancestors 'none'");
  });

  it('serves hashed assets as immutable and answers a missing file, a dotfile or a path out of the build with a 4xx', async () => {
    const asset = await t.http.get('/console/assets/app-abc123.js').expect(200);
    expect(asset.headers['content-type']).toMatch(/javascript/);
    expect(asset.headers['cache-control']).toMatch(/immutable/);
    expect(asset.headers['content-security-policy']).toBe(CONSOLE_CSP);
    for (const path of ['/console/assets/gone-123.js', '/console/.env', '/console/%2e%2e/package.json', '/console/..%2f..%2fpackage.json']) {
      const res = await t.http.get(path);
      expect([path, [400, 403, 404].includes(res.status)]).toEqual([path, true]);
      expect(res.body.error.code).toMatch(/^(not_found|validation_failed|forbidden)$/);
      expect(res.text).not.toContain('SECRET');
    }
  });

  it('publishes the explorer template in /console/config.json', async () => {
    const res = await t.http.get('/console/config.json').expect(200);
    expect(res.body).toEqual({ chain_explorer_tx_url: 'https://scan.example/tx/{tx_hash}' });
  });

  it('says the console is not built when the directory has no index.html', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'console-empty-'));
    const bare = await startTestApp('console_unbuilt', { CONSOLE_DIR: empty });
    try {
      const res = await bare.http.get('/console/').expect(404);
      expect(res.body.error).toEqual({ code: 'not_found', message: 'the console is not built: run npm run build' });
      expect((await bare.http.get('/console/config.json').expect(200)).body).toEqual({ chain_explorer_tx_url: null });
    } finally {
      await bare.close();
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('console API reads', () => {
  let t: TestApp;
  let contributorKey: string;
  let gatewayKey: string;
  beforeAll(async () => {
    t = await startTestApp('console_api');
    await seedBilling(t, { userCreditUsd: '500' });
    contributorKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'contributor', contributor_id: 'c_std' }).expect(201)).body.key;
    gatewayKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway' }).expect(201)).body.key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('GET /v1/me tells the role and contributor of the presented key', async () => {
    expect((await t.admin(t.http.get('/v1/me')).expect(200)).body).toEqual({ key_id: 'bootstrap-admin', role: 'admin', contributor_id: null });
    const contributor = await t.http.get('/v1/me').set('Authorization', `Bearer ${contributorKey}`).expect(200);
    expect(contributor.body).toMatchObject({ role: 'contributor', contributor_id: 'c_std', key_id: expect.any(String) });
    expect((await t.http.get('/v1/me').set('Authorization', `Bearer ${gatewayKey}`).expect(200)).body).toMatchObject({ role: 'gateway', contributor_id: null });
    const bad = await t.http.get('/v1/me').set('Authorization', 'Bearer not-a-key-at-all').expect(401);
    expect(bad.body.error).toEqual({ code: 'unauthenticated', message: 'unknown or revoked API key' });
    await t.http.get('/v1/me').expect(401);
  });

  it('GET /v1/admin/overview/daily: every day of the range, zeros included, usage by the UTC day it occurred (payouts: see console.browser-spec)', async () => {
    const days = ['2026-11-27', '2026-11-29'];
    for (const [index, day] of days.entries()) {
      for (const contributor of ['c_std', 'c_prem']) {
        await t.http.post('/v1/usage-events').set('Authorization', `Bearer ${gatewayKey}`).send(exampleEvent({ event_id: `daily-${index}-${contributor}`, contributor_id: contributor, occurred_at: `${day}T23:59:59Z` })).expect(201);
      }
    }
    const res = await t.admin(t.http.get('/v1/admin/overview/daily?from=2026-11-26&to=2026-11-30')).expect(200);
    expect(res.body.from).toBe('2026-11-26');
    expect(res.body.to).toBe('2026-11-30');
    expect(res.body.rows.map((r: { day: string }) => r.day)).toEqual(['2026-11-26', '2026-11-27', '2026-11-28', '2026-11-29']);
    // exampleEvent on gpt-4o: official 0.00625 USD ((1000 x 2.5 + 200 x 1.25 + 350 x 10) / 1e6) per event;
    // per day two events: charged 2 x 1.3 x official, earned (1.1 + 1.2) x official, revenue the rest.
    const oneDay = { charged_usd: '0.01625', revenue_usd: '0.001875', earned_usd: '0.014375', paid_usd: '0' };
    expect(res.body.rows).toEqual([
      { day: '2026-11-26', charged_usd: '0', revenue_usd: '0', earned_usd: '0', paid_usd: '0' },
      { day: '2026-11-27', ...oneDay },
      { day: '2026-11-28', charged_usd: '0', revenue_usd: '0', earned_usd: '0', paid_usd: '0' },
      { day: '2026-11-29', ...oneDay },
    ]);
    const overview = await t.admin(t.http.get('/v1/admin/overview')).expect(200);
    expect(overview.body.charged_usd).toBe('0.0325');
    expect(overview.body.revenue_usd).toBe('0.00375');
  });

  it('GET /v1/admin/overview/daily refuses bad ranges (400, nothing else) and non-admin keys (403)', async () => {
    const bad = await t.admin(t.http.get('/v1/admin/overview/daily?from=2026-12-05&to=2026-12-01')).expect(400);
    expect(bad.body.error.code).toBe('validation_failed');
    await t.admin(t.http.get('/v1/admin/overview/daily?from=2026-02-30')).expect(400);
    await t.admin(t.http.get('/v1/admin/overview/daily?from=2020-01-01&to=2026-01-01')).expect(400);
    await t.admin(t.http.get('/v1/admin/overview/daily?day=1')).expect(400);
    await t.http.get('/v1/admin/overview/daily').set('Authorization', `Bearer ${contributorKey}`).expect(403);
    const defaults = await t.admin(t.http.get('/v1/admin/overview/daily')).expect(200);
    expect(defaults.body.rows).toHaveLength(30);
  });

  it('GET /v1/admin/contributors?q= finds by id or payout address, case-insensitively, and pages within the search', async () => {
    for (const [id, address] of [
      ['alpha-one', '0xabcdef0000000000000000000000000000000001'],
      ['ALPHA-two', '0x3333333333333333333333333333333333333333'],
      ['beta', '0x4444444444444444444444444444444444444444'],
    ]) {
      await t.admin(t.http.put(`/v1/admin/contributors/${id}`)).send({ tier: 'standard', payout_address: address }).expect(201);
    }
    const ids = async (query: string) => (await t.admin(t.http.get(`/v1/admin/contributors?${query}`)).expect(200)).body.data.map((c: { id: string }) => c.id);
    expect(await ids('q=alpha')).toEqual(['ALPHA-two', 'alpha-one']);
    expect(await ids('q=abcdef')).toEqual(['alpha-one']);
    expect(await ids('q=%25')).toEqual([]); // a LIKE wildcard is plain text here
    expect(await ids('q=c_&sort=payable_desc')).toEqual(expect.arrayContaining(['c_std', 'c_prem']));
    const first = await t.admin(t.http.get('/v1/admin/contributors?q=alpha&limit=1')).expect(200);
    expect(first.body.data).toHaveLength(1);
    const second = await t.admin(t.http.get(`/v1/admin/contributors?q=alpha&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`)).expect(200);
    expect(second.body.data.map((c: { id: string }) => c.id)).toEqual(['alpha-one']);
    expect(second.body.next_cursor).toBeNull();
    const empty = await t.admin(t.http.get('/v1/admin/contributors?q=')).expect(400);
    expect(empty.body.error.details[0]).toMatchObject({ field: 'q' });
    await t.admin(t.http.get(`/v1/admin/contributors?q=${'x'.repeat(201)}`)).expect(400);
  });

  it('GET /v1/admin/usage-events/unpriced-by-model groups what waits for a price; empty once priced and repriced', async () => {
    const send = (eventId: string, model: string, occurredAt: string) =>
      t.http.post('/v1/usage-events').set('Authorization', `Bearer ${gatewayKey}`).send(exampleEvent({ event_id: eventId, model, occurred_at: occurredAt })).expect(202);
    await send('u-1', 'lab/new-model', '2026-11-20T08:00:00Z');
    await send('u-2', 'lab/new-model', '2026-11-21T09:00:00Z');
    await send('u-3', 'lab/other', '2026-11-22T10:00:00Z');
    const listed = await t.admin(t.http.get('/v1/admin/usage-events/unpriced-by-model')).expect(200);
    expect(listed.body.data).toEqual([
      { model: 'lab/new-model', events: 2, first_occurred_at: '2026-11-20T08:00:00.000Z', last_occurred_at: '2026-11-21T09:00:00.000Z' },
      { model: 'lab/other', events: 1, first_occurred_at: '2026-11-22T10:00:00.000Z', last_occurred_at: '2026-11-22T10:00:00.000Z' },
    ]);
    expectDeclaredAnswer(unpricedByModelResponseSchema, listed.body);
    await t.http.get('/v1/admin/usage-events/unpriced-by-model').set('Authorization', `Bearer ${gatewayKey}`).expect(403);
    for (const model of ['lab/new-model', 'lab/other']) {
      await t.admin(t.http.post('/v1/admin/prices')).send({ model, input_usd_per_mtok: '1', output_usd_per_mtok: '2', effective_from: '2026-11-01T00:00:00Z' }).expect(201);
    }
    expect((await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200)).body).toEqual({ priced: 3, still_unpriced: 0, in_progress: false });
    expect((await t.admin(t.http.get('/v1/admin/usage-events/unpriced-by-model')).expect(200)).body).toEqual({ data: [] });
    expect(GPT4O).toBe('openai/gpt-4o');
  });

  it('documents the new reads in the OpenAPI document', async () => {
    const docs = await t.http.get('/docs-json').expect(200);
    for (const path of ['/v1/me', '/v1/admin/overview/daily', '/v1/admin/usage-events/unpriced-by-model']) expect(docs.body.paths[path]?.get).toBeDefined();
    expect(JSON.stringify(docs.body.paths['/v1/admin/contributors'].get.parameters)).toContain('"q"');
  });

  // web/src/api/wire.ts takes every answer's type from the SDK generated from this document.
  it('declares a JSON response schema for every endpoint the console reads an answer of', async () => {
    const docs = await t.http.get('/docs-json').expect(200);
    const consoleCalls: Array<[method: string, path: string, status: string]> = [
      ['get', '/v1/me', '200'],
      ['post', '/v1/admin/api-keys', '201'],
      ['get', '/v1/admin/overview', '200'],
      ['get', '/v1/admin/overview/daily', '200'],
      ['get', '/v1/admin/ledger/check', '200'],
      ['get', '/v1/admin/usage-audit', '200'],
      ['post', '/v1/admin/contributors/{id}/review', '200'],
      ['get', '/v1/contributors/{id}/payout-address', '200'],
      ['get', '/v1/admin/audit-log', '200'],
      ['get', '/v1/admin/contributors', '200'],
      ['get', '/v1/admin/contributors/{id}', '200'],
      ['put', '/v1/admin/contributors/{id}', '200'],
      ['get', '/v1/contributors/{id}/balance', '200'],
      ['get', '/v1/contributors/{id}/earnings', '200'],
      ['get', '/v1/contributors/{id}/payouts', '200'],
      ['get', '/v1/admin/settlements', '200'],
      ['get', '/v1/admin/settlements/{id}', '200'],
      ['post', '/v1/admin/settlements', '201'],
      ['post', '/v1/admin/settlements/{id}/approve', '200'],
      ['get', '/v1/admin/prices', '200'],
      ['post', '/v1/admin/prices', '201'],
      ['post', '/v1/admin/prices/import', '201'],
      ['get', '/v1/admin/usage-events/unpriced-by-model', '200'],
      ['post', '/v1/admin/usage-events/reprice', '200'],
      ['post', '/v1/admin/settlements/{id}/reconciliation/resolve', '201'],
      ['get', '/v1/contributors/{id}/statements/{month}', '200'],
      ['post', '/v1/admin/usage-events/{event_id}/refunds', '201'],
      ['get', '/v1/admin/refunds', '200'],
      ['get', '/v1/admin/webhooks', '200'],
      ['post', '/v1/admin/webhooks', '201'],
      ['post', '/v1/admin/webhooks/{id}/enable', '200'],
      ['get', '/v1/admin/webhooks/event-types', '200'],
      ['get', '/v1/admin/webhooks/{id}/deliveries', '200'],
      ['post', '/v1/admin/webhooks/{id}/deliveries/{delivery_id}/retry', '200'],
    ];
    const undeclared = consoleCalls.filter(([method, path, status]) => docs.body.paths[path]?.[method]?.responses?.[status]?.content?.['application/json']?.schema === undefined);
    expect(undeclared).toEqual([]);
  });
});
