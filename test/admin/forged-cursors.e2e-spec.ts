// Issue 14 item 8: schema-valid but forged cursors reached Postgres past a column's range (500 for
// an audit-log id past int8, a contributor id with NUL, settlement and payout times past year 9999;
// 422 "amount out of range" for a payable past NUMERIC(38,0)). Every malformed cursor is a 400.
import fc from 'fast-check';
import { encodeCursor } from '../../src/common/http/pagination.js';
import { seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const UUID = '0b6c5d0e-8f2a-4c1b-9d3e-7a6f5e4d3c2b';
const cursor = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe('forged cursors', () => {
  let t: TestApp;
  let routes: string[];

  beforeAll(async () => {
    t = await startTestApp('forged_cursors', { WEBHOOK_ALLOW_PRIVATE: 'true' });
    await seedBilling(t);
    const hook = await t.admin(t.http.post('/v1/admin/webhooks')).send({ url: 'http://127.0.0.1:9/hook', events: ['settlement.created'] }).expect(201);
    routes = [
      '/v1/admin/audit-log',
      '/v1/admin/contributors',
      '/v1/admin/contributors?sort=payable_desc',
      '/v1/admin/settlements',
      '/v1/contributors/c_std/payouts',
      '/v1/admin/usage-events?status=priced',
      `/v1/admin/webhooks/${hook.body.id}/deliveries`,
    ];
  });
  afterAll(async () => {
    await t?.close();
  });

  const fetchWith = (route: string, value: string) => t.admin(t.http.get(`${route}${route.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(value)}`));

  it.each([
    ['/v1/admin/audit-log', { id: '9223372036854775808' }],
    ['/v1/admin/audit-log', { id: '9999999999999999999' }],
    ['/v1/admin/usage-events?status=priced', { id: '9223372036854775808' }],
    ['/v1/admin/contributors', { s: 'id', id: 'c\u0000std' }],
    ['/v1/admin/contributors?sort=payable_desc', { s: 'payable_desc', p: '9'.repeat(40), id: 'c_std' }],
    ['/v1/admin/contributors?sort=payable_desc', { s: 'payable_desc', p: '1', id: 'a\u0085b' }],
    ['/v1/admin/settlements', { us: '99999999999999999999', id: UUID }],
    ['/v1/admin/settlements', { us: '253402300800000000', id: UUID }],
    ['/v1/contributors/c_std/payouts', { us: '9223372036854775807', id: UUID }],
  ])('%s with %j is a 400', async (route, value) => {
    const res = await fetchWith(route, cursor(value));
    expect({ status: res.status, code: res.body.error?.code }).toEqual({ status: 400, code: 'validation_failed' });
    expect(res.body.error.details[0].field).toBe('cursor');
  });

  it('keeps cursors at the edge of each range working', async () => {
    await fetchWith('/v1/admin/audit-log', encodeCursor({ id: '9223372036854775807' })).expect(200);
    await fetchWith('/v1/admin/settlements', encodeCursor({ us: '253402300799999999', id: UUID })).expect(200);
    await fetchWith('/v1/admin/contributors?sort=payable_desc', encodeCursor({ s: 'payable_desc', p: `-${'9'.repeat(38)}`, id: 'c_std' })).expect(200);
  });

  it('answers 200 or 400, never another status, to generated cursors on every paged route', async () => {
    const field = fc.oneof(fc.string({ maxLength: 30 }), fc.bigInt({ min: -(10n ** 45n), max: 10n ** 45n }).map(String), fc.constantFrom(UUID, '\u0000', 'id', 'payable_desc'));
    const forged = fc.oneof(
      fc.record({ id: field }),
      fc.record({ s: fc.constantFrom('id', 'payable_desc'), p: field, id: field }),
      fc.record({ us: field, id: field }),
      fc.jsonValue({ maxDepth: 2 }),
    ).map(cursor);
    const raw = fc.string({ maxLength: 60 });
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...routes), fc.oneof(forged, raw), async (route, value) => {
        const res = await fetchWith(route, value);
        if (res.status !== 200 && res.status !== 400) throw new Error(`${route} cursor ${value}: ${res.status} ${res.text}`);
      }),
      { numRuns: 300, seed: 14 },
    );
  });
});
