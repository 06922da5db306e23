import { billingSuiteWithGateway, exampleEvent, expectLedgerClean, GPT4O } from '../support/billing-fixtures.js';

describe('billing core: usage events, idempotency, unpriced, ledger', () => {
  const { t, gw } = billingSuiteWithGateway('billing');
  afterEach(async () => {
    await expectLedgerClean(t);
  });

  it('prices the api.md example exactly and charges the user exactly once', async () => {
    const before = await gw(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(before.body).toEqual({ user_id: 'u_42', balance_usd: '100', held_usd: '0', available_usd: '100', granted_usd: '0', grants: [] });
    const res = await gw(t.http.post('/v1/usage-events')).send(exampleEvent()).expect(201);
    expect(res.body).toMatchObject({
      event_id: 'gw1-req-123',
      status: 'priced',
      model: GPT4O,
      official_usd: '0.00625',
      charge_usd: '0.008125',
      payout_usd: '0.006875',
      margin_usd: '0.00125',
      contributor_tier: 'standard',
    });
    expect(typeof res.body.price_id).toBe('string');
    const after = await gw(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(after.body.balance_usd).toBe('99.991875');
  });

  it('pays a premium contributor 1.2x', async () => {
    const res = await gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'prem-1', contributor_id: 'c_prem' })).expect(201);
    expect(res.body).toMatchObject({ payout_usd: '0.0075', margin_usd: '0.000625', charge_usd: '0.008125', contributor_tier: 'premium' });
  });

  it('replays the same payload with 200 and refuses a changed one with 409', async () => {
    const replay = await gw(t.http.post('/v1/usage-events')).send(exampleEvent()).expect(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.charge_usd).toBe('0.008125');
    const changed = await gw(t.http.post('/v1/usage-events'))
      .send(exampleEvent({ usage: { prompt_tokens: 1201, completion_tokens: 350, cached_tokens: 200, reasoning_tokens: 0 } }))
      .expect(409);
    expect(changed.body.error.code).toBe('idempotency_conflict');
    const balance = await gw(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(balance.body.balance_usd).toBe('99.98375');
  });

  it('bills an event posted 50 times concurrently exactly once', async () => {
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'concurrent-1' }))),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(49);
    const balance = await gw(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(balance.body.balance_usd).toBe('99.975625');
  });

  it('answers 422 for an unknown contributor and writes nothing', async () => {
    const res = await gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'unknown-c', contributor_id: 'c_nobody' })).expect(422);
    expect(res.body.error.code).toBe('unknown_contributor');
    await gw(t.http.get('/v1/usage-events/unknown-c')).expect(404);
  });

  it('stores an event without a price as unpriced, then prices it when the admin adds one', async () => {
    const res = await gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'unpriced-1', model: 'acme/new-model' })).expect(202);
    expect(res.body).toMatchObject({ event_id: 'unpriced-1', status: 'unpriced' });
    const listed = await t.admin(t.http.get('/v1/admin/usage-events?status=unpriced')).expect(200);
    expect(listed.body.data.map((e: { event_id: string }) => e.event_id)).toEqual(['unpriced-1']);
    const none = await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200);
    expect(none.body).toEqual({ priced: 0, still_unpriced: 1, in_progress: false });
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: 'acme/new-model', input_usd_per_mtok: '1', output_usd_per_mtok: '2', effective_from: '2026-11-01T00:00:00Z' }).expect(201);
    const repriced = await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200);
    expect(repriced.body).toEqual({ priced: 1, still_unpriced: 0, in_progress: false });
    const stored = await gw(t.http.get('/v1/usage-events/unpriced-1')).expect(200);
    // 1200 prompt at 1 (no cached price: input price) + 350 at 2, per million = 0.0019
    expect(stored.body).toMatchObject({ status: 'priced', official_usd: '0.0019', charge_usd: '0.00247', payout_usd: '0.00209' });
    const again = await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200);
    expect(again.body).toEqual({ priced: 0, still_unpriced: 0, in_progress: false });
  });

  it('applies a tier change only to events that occur after it', async () => {
    await t.admin(t.http.put('/v1/admin/contributors/c_tier')).send({ tier: 'standard', payout_address: '0x3333333333333333333333333333333333333333' }).expect(201);
    const early = new Date(Date.now() - 60_000).toISOString();
    await t.admin(t.http.put('/v1/admin/contributors/c_tier')).send({ tier: 'premium', payout_address: '0x3333333333333333333333333333333333333333' }).expect(200);
    const before = await gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'tier-before', contributor_id: 'c_tier', occurred_at: early })).expect(201);
    const after = await gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'tier-after', contributor_id: 'c_tier', occurred_at: new Date().toISOString() })).expect(201);
    expect(before.body.contributor_tier).toBe('standard');
    expect(after.body.contributor_tier).toBe('premium');
  });

  it.each([
    ['negative tokens', { usage: { prompt_tokens: -1, completion_tokens: 1 } }, 'usage.prompt_tokens'],
    ['fractional tokens', { usage: { prompt_tokens: 1.5, completion_tokens: 1 } }, 'usage.prompt_tokens'],
    ['tokens over 2^31-1', { usage: { prompt_tokens: 2 ** 31, completion_tokens: 1 } }, 'usage.prompt_tokens'],
    ['cached over prompt', { usage: { prompt_tokens: 1, completion_tokens: 1, cached_tokens: 2 } }, 'usage.cached_tokens'],
    ['reasoning over completion', { usage: { prompt_tokens: 1, completion_tokens: 1, reasoning_tokens: 2 } }, 'usage.reasoning_tokens'],
    ['unknown usage field', { usage: { prompt_tokens: 1, completion_tokens: 1, price_usd: '1' } }, 'usage.price_usd'],
    ['far future', { occurred_at: '2099-01-01T00:00:00Z' }, 'occurred_at'],
    ['bad timestamp', { occurred_at: 'yesterday' }, 'occurred_at'],
    ['missing user', { user_id: undefined }, 'user_id'],
    ['token count as string', { usage: { prompt_tokens: '10', completion_tokens: 1 } }, 'usage.prompt_tokens'],
  ])('rejects %s with 400 and the field path, writing nothing', async (_name, overrides, field) => {
    const before = await expectLedgerClean(t);
    const res = await gw(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: `bad-${field}`, ...overrides })).expect(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    await gw(t.http.get(`/v1/usage-events/bad-${field}`)).expect(404);
    expect((await expectLedgerClean(t)).journal_entries).toBe(before.journal_entries);
  });

  it('refuses money as a JSON number', async () => {
    const res = await t.admin(t.http.post('/v1/admin/users/u_42/credits')).send({ amount_usd: 10.5, reference: 'num-1' }).expect(400);
    expect(res.body.error.details[0].field).toBe('amount_usd');
  });

  it('reports each batch event in input order; one bad event never fails the others', async () => {
    const events = [
      exampleEvent({ event_id: 'b-1' }),
      { ...exampleEvent({ event_id: 'b-2' }), usage: { prompt_tokens: -5, completion_tokens: 1 } },
      exampleEvent({ event_id: 'gw1-req-123' }),
      exampleEvent({ event_id: 'b-3', contributor_id: 'c_nobody' }),
      exampleEvent({ event_id: 'b-4', model: 'acme/unknown' }),
      exampleEvent({ event_id: 'b-1' }),
      exampleEvent({ event_id: 'b-1', model: 'acme/unknown' }),
    ];
    const res = await gw(t.http.post('/v1/usage-events/batch')).send({ events }).expect(200);
    expect(res.body.results.map((r: { event_id: string; status: string }) => `${r.event_id}:${r.status}`)).toEqual([
      'b-1:priced',
      'b-2:rejected',
      'gw1-req-123:duplicate',
      'b-3:rejected',
      'b-4:unpriced',
      'b-1:duplicate',
      'b-1:rejected',
    ]);
    expect(res.body.results[1].error.code).toBe('validation_failed');
    expect(res.body.results[3].error.code).toBe('unknown_contributor');
    expect(res.body.results[6].error.code).toBe('idempotency_conflict');
  });

  it('refuses a batch over 1000 events and an empty batch', async () => {
    const tooMany = Array.from({ length: 1001 }, (_, i) => exampleEvent({ event_id: `over-${i}` }));
    await gw(t.http.post('/v1/usage-events/batch')).send({ events: tooMany }).expect(400);
    await gw(t.http.post('/v1/usage-events/batch')).send({ events: [] }).expect(400);
    await gw(t.http.get('/v1/usage-events/over-0')).expect(404);
  });

  it('keeps the contributor and admin roles apart on ingestion', async () => {
    const contributorKey = (await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'contributor', contributor_id: 'c_std' }).expect(201)).body.key;
    await t.http.post('/v1/usage-events').set('Authorization', `Bearer ${contributorKey}`).send(exampleEvent({ event_id: 'ctb-1' })).expect(403);
    await gw(t.http.post('/v1/admin/usage-events/reprice')).expect(403);
  });
});
