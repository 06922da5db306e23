// Issue 14 items 5 and 9: inputs that got the wrong answer (a 422, a replay instead of a 409, a
// dropped key, an accepted blank reason, a 400 where a 403 was due) and future occurred_at.
import { exampleEvent, expectLedgerClean, GPT4O, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

describe('usage and admin input rules', () => {
  let t: TestApp;
  const postRaw = (text: string) => t.admin(t.http.post('/v1/usage-events')).set('Content-Type', 'application/json').send(text);
  const post = (body: Record<string, unknown>) => t.admin(t.http.post('/v1/usage-events')).send(body);
  const get = (eventId: string) => t.admin(t.http.get(`/v1/usage-events/${eventId}`)).expect(200);

  beforeAll(async () => {
    t = await startTestApp('usage_input_rules');
    await seedBilling(t);
  });
  afterEach(async () => {
    await expectLedgerClean(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('stores an event that occurred before 1970 (no price then: unpriced), not 422 unknown_contributor', async () => {
    const res = await post(exampleEvent({ event_id: 'before-1970', occurred_at: '1969-07-20T20:17:40Z' })).expect(202);
    expect(res.body).toMatchObject({ event_id: 'before-1970', status: 'unpriced' });
    expect((await get('before-1970')).body.occurred_at).toBe('1969-07-20T20:17:40.000Z');
    await post(exampleEvent({ event_id: 'year-1', occurred_at: '0001-01-01T00:00:00Z' })).expect(202);
    // An unknown contributor is still refused.
    await post(exampleEvent({ event_id: 'before-1970-nobody', contributor_id: 'c_nobody', occurred_at: '1969-07-20T20:17:40Z' })).expect(422);
  });

  it('answers 409 to payloads that differ only below the millisecond in occurred_at', async () => {
    await post(exampleEvent({ event_id: 'sub-ms', occurred_at: '2026-11-29T10:00:00.0001Z' })).expect(201);
    const other = await post(exampleEvent({ event_id: 'sub-ms', occurred_at: '2026-11-29T10:00:00.0002Z' })).expect(409);
    expect(other.body.error.code).toBe('idempotency_conflict');
    await post(exampleEvent({ event_id: 'sub-ms', occurred_at: '2026-11-29T10:00:00Z' })).expect(409);
    // The same instant written another way is the same payload.
    const replay = await post(exampleEvent({ event_id: 'sub-ms', occurred_at: '2026-11-29T11:00:00.000100+01:00' })).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    // A millisecond timestamp replays as it always did.
    await post(exampleEvent({ event_id: 'ms', occurred_at: '2026-11-29T10:00:00.123Z' })).expect(201);
    await post(exampleEvent({ event_id: 'ms', occurred_at: '2026-11-29T10:00:00.123000Z' })).expect(200);
  });

  it('keeps a metadata "__proto__" key: stored, and part of the payload (409 without it)', async () => {
    const base = JSON.stringify(exampleEvent({ event_id: 'proto-key', metadata: { stream_id: 's-1' } }));
    const withProto = base.replace('"metadata":{', '"metadata":{"__proto__":{"polluted":true},');
    await postRaw(withProto).expect(201);
    const stored = await get('proto-key');
    expect(Object.keys(stored.body.metadata)).toEqual(expect.arrayContaining(['__proto__', 'stream_id']));
    expect(stored.text).toContain('"__proto__":{"polluted":true}');
    await postRaw(withProto).expect(200);
    expect((await postRaw(base).expect(409)).body.error.code).toBe('idempotency_conflict');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a number JSON cannot keep exactly (beyond double precision) instead of storing it rounded', async () => {
    const exact = JSON.stringify(exampleEvent({ event_id: 'big-number', metadata: { n: 9007199254740992 } }));
    await postRaw(exact).expect(201);
    // Parsed, 9007199254740993 is 9007199254740992: it replayed as 200.
    const rounded = await postRaw(exact.replace('9007199254740992', '9007199254740993')).expect(400);
    expect(rounded.body.error.details[0].message).toMatch(/9007199254740993 cannot be kept exactly/);
    await postRaw(exact.replace('"n":9007199254740992', '"n":1e400')).expect(400);
    // A token count written with a fraction JSON drops (100.00000000000000001 -> 100).
    await postRaw(JSON.stringify(exampleEvent({ event_id: 'fraction-tokens' })).replace('"completion_tokens":350', '"completion_tokens":350.00000000000000001')).expect(400);
    await t.admin(t.http.get('/v1/usage-events/fraction-tokens')).expect(404);
  });

  it('refuses a negative credit whose reason is only whitespace, and writes nothing', async () => {
    const before = await t.admin(t.http.get('/v1/users/u_42/balance')).expect(200);
    for (const reason of ['   ', '\t\n', '\u00a0\u2003']) {
      const res = await t.admin(t.http.post('/v1/admin/users/u_42/credits')).send({ amount_usd: '-1', reference: `blank-${reason.length}`, reason }).expect(400);
      expect(res.body.error.details[0].field).toBe('reason');
    }
    expect((await t.admin(t.http.get('/v1/users/u_42/balance')).expect(200)).body).toEqual(before.body);
    await t.admin(t.http.post('/v1/admin/users/u_42/credits')).send({ amount_usd: '-1', reference: 'not-blank', reason: ' refund ' }).expect(201);
  });

  it('answers 403, not 400, when a contributor key asks for another contributor with a bad query', async () => {
    const key = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'contributor', contributor_id: 'c_std' }).expect(201);
    const as = (path: string) => t.http.get(path).set('Authorization', `Bearer ${key.body.key}`);
    for (const path of ['/v1/contributors/c_prem/earnings?group_by=bogus', '/v1/contributors/c_prem/earnings.csv?from=nope', '/v1/contributors/c_prem/payouts?limit=0', '/v1/contributors/c_nobody/payouts?cursor=%25%25']) {
      const res = await as(path).expect(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    // Its own id with a bad query is still a 400.
    expect((await as('/v1/contributors/c_std/earnings?group_by=bogus').expect(400)).body.error.code).toBe('validation_failed');
  });

  // Issue 14 item 5: an event up to 5 minutes ahead was priced at once with the price and tier known
  // then, so two events of one instant could get different prices and tiers.
  it('prices an occurred_at ahead of the clock as of its receipt: a later price or tier change cannot split one instant', async () => {
    const ahead = new Date(Date.now() + 120_000).toISOString();
    const first = await post(exampleEvent({ event_id: 'ahead-1', occurred_at: ahead, contributor_id: 'c_std' })).expect(201);
    // A price scheduled before that instant, and a tier change, both after the first event.
    const scheduledFrom = new Date(Date.now() + 60_000).toISOString();
    const scheduled = await t.admin(t.http.post('/v1/admin/prices')).send({ model: GPT4O, input_usd_per_mtok: '5', output_usd_per_mtok: '20', effective_from: scheduledFrom }).expect(201);
    expect(scheduled.body.id).toEqual(expect.any(String));
    await t.admin(t.http.put('/v1/admin/contributors/c_std')).send({ tier: 'premium', payout_address: '0x1111111111111111111111111111111111111111' }).expect(200);
    const second = await post(exampleEvent({ event_id: 'ahead-2', occurred_at: ahead, contributor_id: 'c_std' })).expect(201);

    const [a, b] = [(await get('ahead-1')).body, (await get('ahead-2')).body];
    for (const event of [a, b]) {
      // Stored at its receipt, not in the future, and priced by the version in force then.
      expect(Date.parse(event.occurred_at)).toBeLessThanOrEqual(Date.parse(event.received_at));
      expect(Date.parse(event.occurred_at)).toBeLessThan(Date.parse(scheduledFrom));
      expect(event.price_id).not.toBe(String(scheduled.body.id));
    }
    expect([first.body.charge_usd, second.body.charge_usd]).toEqual(['0.008125', '0.008125']);
    // The tier changed between the two receipts: the two events are at two instants, each with its tier.
    expect([a.contributor_tier, b.contributor_tier]).toEqual(['standard', 'premium']);
    expect(Date.parse(a.occurred_at)).toBeLessThan(Date.parse(b.occurred_at));
    // Replayed later with the same occurred_at text: the same payload.
    await post(exampleEvent({ event_id: 'ahead-1', occurred_at: ahead, contributor_id: 'c_std' })).expect(200);
    // Past the allowed skew it is still refused.
    await post(exampleEvent({ event_id: 'ahead-far', occurred_at: new Date(Date.now() + 3_600_000).toISOString() })).expect(400);
  });
});
