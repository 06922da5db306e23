// Budgets (api.md "Spend controls (users)"): the current period's spent/held/remaining, 402
// budget_exceeded at holds, scopes, refunds netted, racing holds, and UTC period boundaries with
// the spend clock standing at chosen instants.
import { SpendClock } from '../../src/modules/spend/spend-clock.js';
import { expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { testAppForSuite } from '../support/test-app.js';

const MODEL = 'acme/budget-model';
// 1000 prompt tokens at 1 USD/Mtok and a standard contributor: a charge of 0.001 USD x markup.
const event = (id: string, occurredAt: string, extra: Record<string, unknown> = {}) => ({
  event_id: id,
  user_id: 'u_b',
  contributor_id: 'c_std',
  model: MODEL,
  occurred_at: occurredAt,
  usage: { prompt_tokens: 1000, completion_tokens: 0, cached_tokens: 0, reasoning_tokens: 0 },
  ...extra,
});

describe('budgets', () => {
  const t = testAppForSuite('budgets');
  let clock: SpendClock;
  let chargeUsd: string;

  beforeAll(async () => {
    await seedBilling(t);
    // A price in force since 2024, so leap day 2024-02-29 events are priced.
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: MODEL, input_usd_per_mtok: '1', output_usd_per_mtok: '1', effective_from: '2024-01-01T00:00:00Z' }).expect(201);
    await t.admin(t.http.post('/v1/admin/users/u_b/credits')).send({ amount_usd: '100', reference: 'seed-u_b' }).expect(201);
    clock = t.app.get(SpendClock);
    const probe = await t.admin(t.http.post('/v1/usage-events')).send(event('probe', '2024-06-15T12:00:00Z')).expect(201);
    chargeUsd = probe.body.charge_usd;
  });
  afterEach(async () => {
    clock.standAt(null);
    await expectLedgerClean(t);
  });

  const budgets = async (userId = 'u_b') => (await t.admin(t.http.get(`/v1/users/${userId}/budgets`)).expect(200)).body.data as Array<Record<string, unknown>>;
  const budgetOf = async (id: string, userId = 'u_b') => (await budgets(userId)).find((b) => b.budget_id === id)!;

  it('creates (201), replaces (200), lists and deletes a budget; bad input is a 400 that changes nothing', async () => {
    const put = (body: Record<string, unknown>) => t.admin(t.http.put('/v1/admin/users/u_crud/budgets/b1')).send(body);
    const created = await put({ limit_usd: '10', period: 'month', action: 'block', alert_at: ['0.5', '1'] }).expect(201);
    expect(created.body).toMatchObject({ budget_id: 'b1', limit_usd: '10', period: 'month', key_id: null, model: null, action: 'block', spent_usd: '0', held_usd: '0', remaining_usd: '10' });
    await put({ limit_usd: '12.5', period: 'day', action: 'notify' }).expect(200);
    for (const bad of [{ limit_usd: 10, period: 'day', action: 'block' }, { limit_usd: '1', period: 'year', action: 'block' }, { limit_usd: '1', period: 'day', action: 'stop' }, { limit_usd: '1', period: 'day', action: 'block', alert_at: ['0'] }, { limit_usd: '-1', period: 'day', action: 'block' }]) {
      const res = await put(bad).expect(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
    expect(await budgets('u_crud')).toEqual([expect.objectContaining({ budget_id: 'b1', limit_usd: '12.5', period: 'day', action: 'notify' })]);
    await t.admin(t.http.delete('/v1/admin/users/u_crud/budgets/b1')).expect(204);
    await t.admin(t.http.delete('/v1/admin/users/u_crud/budgets/b1')).expect(404);
    expect(await budgets('u_crud')).toEqual([]);
  });

  it('refuses a hold past a block budget with 402 budget_exceeded and what remains; a notify budget never refuses', async () => {
    clock.standAt(new Date('2024-06-15T18:00:00Z'));
    await t.admin(t.http.put('/v1/admin/users/u_b/budgets/daily')).send({ limit_usd: '0.01', period: 'day', action: 'block' }).expect(201);
    await t.admin(t.http.put('/v1/admin/users/u_b/budgets/watch')).send({ limit_usd: '0.000001', period: 'day', action: 'notify' }).expect(201);
    const daily = await budgetOf('daily');
    expect(daily).toMatchObject({ spent_usd: chargeUsd, held_usd: '0', period_start: '2024-06-15T00:00:00.000Z', period_end: '2024-06-16T00:00:00.000Z' });
    const remaining = daily.remaining_usd as string;
    const refused = await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'hb-over', user_id: 'u_b', amount_usd: '0.01' }).expect(402);
    expect(refused.body.error).toMatchObject({ code: 'budget_exceeded', details: { budget_id: 'daily', remaining_usd: remaining } });
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'hb-fit', user_id: 'u_b', amount_usd: remaining }).expect(201);
    expect(await budgetOf('daily')).toMatchObject({ held_usd: remaining, remaining_usd: '0' });
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'hb-more', user_id: 'u_b', amount_usd: '0.000000000000000001' }).expect(402);
    await t.admin(t.http.post('/v1/holds/hb-fit/release')).expect(200);
    expect(await budgetOf('daily')).toMatchObject({ held_usd: '0', remaining_usd: remaining });
    // A usage event is never refused, even past the limit; remaining stays at 0, never below.
    for (let i = 0; i < 12; i += 1) await t.admin(t.http.post('/v1/usage-events')).send(event(`over-${i}`, '2024-06-15T13:00:00Z')).expect(201);
    expect(await budgetOf('daily')).toMatchObject({ remaining_usd: '0' });
    await t.admin(t.http.delete('/v1/admin/users/u_b/budgets/daily')).expect(204);
    await t.admin(t.http.delete('/v1/admin/users/u_b/budgets/watch')).expect(204);
  });

  it('applies a key- or model-scoped budget only to what names them, and nets refunds', async () => {
    clock.standAt(new Date('2024-07-10T12:00:00Z'));
    await t.admin(t.http.put('/v1/admin/users/u_b/budgets/key-a')).send({ limit_usd: '0.005', period: 'month', key_id: 'key-a', action: 'block' }).expect(201);
    await t.admin(t.http.put('/v1/admin/users/u_b/budgets/model-x')).send({ limit_usd: '0.005', period: 'month', model: 'other/model', action: 'block' }).expect(201);
    const stored = await t.admin(t.http.post('/v1/usage-events')).send(event('k1', '2024-07-02T00:00:00Z', { key_id: 'key-a' })).expect(201);
    expect(stored.body.key_id).toBe('key-a');
    // The same event_id with another key is another payload: a conflict, not a replay.
    await t.admin(t.http.post('/v1/usage-events')).send(event('k1', '2024-07-02T00:00:00Z', { key_id: 'key-z' })).expect(409);
    await t.admin(t.http.post('/v1/usage-events')).send(event('k2', '2024-07-03T00:00:00Z', { key_id: 'key-b' })).expect(201);
    await t.admin(t.http.post('/v1/usage-events')).send(event('k3', '2024-07-03T00:00:00Z')).expect(201);
    expect(await budgetOf('key-a')).toMatchObject({ spent_usd: chargeUsd, key_id: 'key-a' });
    expect(await budgetOf('model-x')).toMatchObject({ spent_usd: '0' });
    // A hold without a key counts against neither scoped budget: any amount the balance allows.
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'hs-plain', user_id: 'u_b', amount_usd: '1' }).expect(201);
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'hs-b', user_id: 'u_b', amount_usd: '1', key_id: 'key-b' }).expect(201);
    expect((await t.admin(t.http.get('/v1/holds/hs-b')).expect(200)).body).toMatchObject({ key_id: 'key-b', model: null });
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'hs-b', user_id: 'u_b', amount_usd: '1' }).expect(409);
    const refused = await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'hs-a', user_id: 'u_b', amount_usd: '0.005', key_id: 'key-a' }).expect(402);
    expect(refused.body.error.details.budget_id).toBe('key-a');
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'hs-x', user_id: 'u_b', amount_usd: '0.006', model: 'other/model' }).expect(402);
    // Refunding the key's event frees its budget again.
    await t.admin(t.http.post('/v1/admin/usage-events/k1/refunds')).send({ refund_id: 'rk1', reason: 'test' }).expect(201);
    expect(await budgetOf('key-a')).toMatchObject({ spent_usd: '0' });
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'hs-a2', user_id: 'u_b', amount_usd: '0.005', key_id: 'key-a' }).expect(201);
    expect(await budgetOf('key-a')).toMatchObject({ held_usd: '0.005', remaining_usd: '0' });
    for (const id of ['hs-plain', 'hs-b', 'hs-a2']) await t.admin(t.http.post(`/v1/holds/${id}/release`)).expect(200);
    await t.admin(t.http.delete('/v1/admin/users/u_b/budgets/key-a')).expect(204);
    await t.admin(t.http.delete('/v1/admin/users/u_b/budgets/model-x')).expect(204);
  });

  it('never lets racing holds pass a limit together (60 concurrent holds on one budget)', async () => {
    await t.admin(t.http.post('/v1/admin/users/u_race/credits')).send({ amount_usd: '1000', reference: 'race-credit' }).expect(201);
    await t.admin(t.http.put('/v1/admin/users/u_race/budgets/cap')).send({ limit_usd: '1', period: 'total', action: 'block' }).expect(201);
    await t.admin(t.http.put('/v1/admin/users/u_race/budgets/cap-k')).send({ limit_usd: '0.5', period: 'day', key_id: 'k', action: 'block' }).expect(201);
    const responses = await Promise.all(
      Array.from({ length: 60 }, (_, i) => t.admin(t.http.post('/v1/holds')).send({ hold_id: `race-b-${i}`, user_id: 'u_race', amount_usd: '0.1', ...(i % 2 ? { key_id: 'k' } : {}) })),
    );
    const granted = responses.filter((r) => r.status === 201);
    expect(granted).toHaveLength(10);
    expect(granted.filter((r) => r.body.key_id === 'k').length).toBeLessThanOrEqual(5);
    expect(responses.filter((r) => r.status === 402).every((r) => r.body.error.code === 'budget_exceeded')).toBe(true);
    expect(await budgetOf('cap', 'u_race')).toMatchObject({ held_usd: '1', remaining_usd: '0', period_start: null, period_end: null });
  });

  describe('period boundaries (UTC, the clock standing at the edge)', () => {
    beforeAll(async () => {
      const at = ['2024-02-25T23:59:59.999Z', '2024-02-26T00:00:00.000Z', '2024-02-28T23:59:59.999Z', '2024-02-29T00:00:00.000Z', '2024-02-29T23:59:59.999Z', '2024-03-01T00:00:00.000Z', '2024-01-31T23:59:59.999Z', '2024-02-01T00:00:00.000Z'];
      await t.admin(t.http.post('/v1/usage-events/batch')).send({ events: at.map((occurredAt, i) => event(`edge-${i}`, occurredAt, { user_id: 'u_edge' })) }).expect(200);
      for (const [id, period] of [['d', 'day'], ['w', 'week'], ['m', 'month'], ['t', 'total']]) {
        await t.admin(t.http.put(`/v1/admin/users/u_edge/budgets/${id}`)).send({ limit_usd: '1', period, action: 'block' }).expect(201);
      }
    });
    const spentEvents = async (id: string) => {
      const b = await budgetOf(id, 'u_edge');
      return { start: b.period_start, end: b.period_end, events: Number(b.spent_usd) / Number(chargeUsd) };
    };

    it('a day runs from UTC midnight to the next (leap day included)', async () => {
      clock.standAt(new Date('2024-02-29T23:59:59.999Z'));
      expect(await spentEvents('d')).toEqual({ start: '2024-02-29T00:00:00.000Z', end: '2024-03-01T00:00:00.000Z', events: 2 });
      clock.standAt(new Date('2024-03-01T00:00:00.000Z'));
      expect(await spentEvents('d')).toEqual({ start: '2024-03-01T00:00:00.000Z', end: '2024-03-02T00:00:00.000Z', events: 1 });
    });

    it('a week starts on Monday (ISO), whatever the day the clock stands on', async () => {
      clock.standAt(new Date('2024-03-03T23:59:59.999Z')); // a Sunday
      expect(await spentEvents('w')).toEqual({ start: '2024-02-26T00:00:00.000Z', end: '2024-03-04T00:00:00.000Z', events: 5 });
      clock.standAt(new Date('2024-02-25T12:00:00.000Z')); // the Sunday before
      expect(await spentEvents('w')).toEqual({ start: '2024-02-19T00:00:00.000Z', end: '2024-02-26T00:00:00.000Z', events: 1 });
    });

    it('a month ends at the first instant of the next (February of a leap year)', async () => {
      clock.standAt(new Date('2024-02-29T23:59:59.999Z'));
      expect(await spentEvents('m')).toEqual({ start: '2024-02-01T00:00:00.000Z', end: '2024-03-01T00:00:00.000Z', events: 6 });
      clock.standAt(new Date('2024-01-31T23:59:59.999Z'));
      expect(await spentEvents('m')).toEqual({ start: '2024-01-01T00:00:00.000Z', end: '2024-02-01T00:00:00.000Z', events: 1 });
      expect(await spentEvents('t')).toEqual({ start: null, end: null, events: 8 });
    });
  });
});
