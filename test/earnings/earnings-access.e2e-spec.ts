// Who may read which contributor (the IDOR matrix) and how bad input is refused (400 naming the field).
import { UsageFactory } from '../factories/usage-factory.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const SINCE = new Date('2026-01-01T00:00:00Z');
const CONTRIBUTOR_ROUTES = ['balance', 'earnings', 'earnings.csv', 'payouts'] as const;

describe('earnings: access control and input validation', () => {
  let t: TestApp;
  let ownKey: string;
  let gatewayKey: string;
  let presentRoutes: string[];
  const as = (key: string, path: string) => t.http.get(path).set('Authorization', `Bearer ${key}`);

  beforeAll(async () => {
    t = await startTestApp('earnings_access', { EARNINGS_RANGE_DAYS_MAX: '31' });
    const factory = new UsageFactory(t);
    await factory.contributor({ id: 'c-me', tiers: [{ tier: 'standard', effectiveFrom: SINCE }] });
    await factory.contributor({ id: 'c-other', tiers: [{ tier: 'premium', effectiveFrom: SINCE }] });
    ownKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'contributor', contributor_id: 'c-me' }).expect(201)).body.key;
    gatewayKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway' }).expect(201)).body.key;
    // Probe which routes are mounted, so a missing one fails one test instead of hiding in the loops.
    presentRoutes = [];
    for (const route of CONTRIBUTOR_ROUTES) {
      const res = await t.admin(t.http.get(`/v1/contributors/c-me/${route}`));
      if (!(res.status === 404 && res.body.error?.message === 'route not found')) presentRoutes.push(route);
    }
  });

  afterAll(async () => {
    await t?.close();
  });

  it('mounts every contributor route (payouts comes from the settlement module)', () => {
    expect(presentRoutes).toEqual([...CONTRIBUTOR_ROUTES]);
  });

  it('lets a contributor key read its own contributor on every contributor route', async () => {
    for (const route of presentRoutes) await as(ownKey, `/v1/contributors/c-me/${route}`).expect(200);
  });

  it('refuses a contributor key for any other id with 403, existing or not, on every route', async () => {
    for (const route of presentRoutes) {
      for (const other of ['c-other', 'c-does-not-exist']) {
        const query = route.startsWith('earnings') ? '?from=2026-11-01&to=2026-11-02' : '';
        const res = await as(ownKey, `/v1/contributors/${other}/${route}${query}`).expect(403);
        expect(res.body.error.code).toBe('forbidden');
        expect(JSON.stringify(res.body)).not.toMatch(/not.found|exist/i);
      }
    }
  });

  it('checks ownership before validating input (no probing through 400s)', async () => {
    await as(ownKey, '/v1/contributors/c-other/earnings?from=bad').expect(403);
  });

  it('refuses gateway keys with 403 and missing keys with 401', async () => {
    for (const route of presentRoutes) {
      await as(gatewayKey, `/v1/contributors/c-me/${route}`).expect(403);
      await t.http.get(`/v1/contributors/c-me/${route}`).expect(401);
    }
    for (const path of ['/v1/admin/overview', '/v1/admin/contributors', '/v1/admin/audit-log']) {
      await as(ownKey, path).expect(403);
      await as(gatewayKey, path).expect(403);
    }
    await t.http.post('/v1/admin/contributors/c-me/adjustments').set('Authorization', `Bearer ${ownKey}`).send({ amount_usd: '1', reason: 'r', reference: 'x' }).expect(403);
  });

  it('answers 404 to an admin asking for an unknown contributor', async () => {
    for (const route of ['balance', 'earnings', 'earnings.csv']) {
      const res = await t.admin(t.http.get(`/v1/contributors/c-unknown/${route}`)).expect(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it.each([
    ['from=2026-11-01T10:00:00Z&to=2026-11-03', 'from', /day boundary/],
    ['from=2026-11-01&to=2026-11-03T00:00:01Z', 'to', /day boundary/],
    ['from=2026-02-30&to=2026-03-03', 'from', /calendar/],
    ['from=last-week', 'from', /YYYY-MM-DD/],
    ['from=2026-11-05&to=2026-11-03', 'from', /after/],
    ['from=2026-09-01&to=2026-11-03', 'to', /at most 31 days/],
    ['group_by=week', 'group_by', /day, model, day,model/],
    ['group_by=model,day', 'group_by', /one of/],
    ['groupby=day', 'groupby', /unknown field/],
  ])('refuses earnings?%s with 400 naming %s', async (query, field, message) => {
    for (const route of ['earnings', 'earnings.csv']) {
      const res = await t.admin(t.http.get(`/v1/contributors/c-me/${route}?${query}`)).expect(400);
      expect(res.body.error.code).toBe('validation_failed');
      const issue = res.body.error.details.find((d: { field: string }) => d.field === field);
      expect(issue).toBeDefined();
      expect(issue.message).toMatch(message);
    }
  });

  it.each([
    ['/v1/admin/contributors?limit=501', 'limit'],
    ['/v1/admin/contributors?limit=0', 'limit'],
    ['/v1/admin/contributors?limit=abc', 'limit'],
    ['/v1/admin/contributors?cursor=not-a-cursor', 'cursor'],
    ['/v1/admin/contributors?sort=payable', 'sort'],
    ['/v1/admin/audit-log?limit=501', 'limit'],
    ['/v1/admin/audit-log?cursor=eyJpZCI6Ii0xIn0', 'cursor'],
  ])('refuses %s with 400 naming %s', async (path, field) => {
    const res = await t.admin(t.http.get(path)).expect(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
  });

  it('refuses a cursor issued for another sort order', async () => {
    const page = await t.admin(t.http.get('/v1/admin/contributors?limit=1&sort=id')).expect(200);
    expect(page.body.next_cursor).toEqual(expect.any(String));
    const res = await t.admin(t.http.get(`/v1/admin/contributors?limit=1&sort=payable_desc&cursor=${page.body.next_cursor}`)).expect(400);
    expect(res.body.error.details[0]).toMatchObject({ field: 'cursor' });
  });

  it('describes every route in the OpenAPI document', async () => {
    const doc = await t.http.get('/docs-json').expect(200);
    for (const path of ['/v1/contributors/{id}/balance', '/v1/contributors/{id}/earnings', '/v1/contributors/{id}/earnings.csv', '/v1/admin/overview', '/v1/admin/contributors', '/v1/admin/audit-log', '/v1/admin/contributors/{id}/adjustments']) {
      expect(doc.body.paths[path]).toBeDefined();
    }
    const params = doc.body.paths['/v1/contributors/{id}/earnings'].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(expect.arrayContaining(['from', 'to', 'group_by']));
  });

  it('accepts the longest configured range exactly', async () => {
    await t.admin(t.http.get('/v1/contributors/c-me/earnings?from=2026-10-01&to=2026-11-01')).expect(200);
  });
});
