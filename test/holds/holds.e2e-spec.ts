import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { HoldsService } from '../../src/modules/holds/holds.service.js';

describe('holds: reserve, capture, release, expire', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp('holds');
    await seedBilling(t, { userCreditUsd: '10' });
  });
  afterEach(async () => {
    await expectLedgerClean(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('never reserves more than the available balance under 100 concurrent holds', async () => {
    await t.admin(t.http.post('/v1/admin/users/u_race/credits')).send({ amount_usd: '10', reference: 'race' }).expect(201);
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) => t.admin(t.http.post('/v1/holds')).send({ hold_id: `race-${i}`, user_id: 'u_race', amount_usd: '1' })),
    );
    expect(responses.filter((r) => r.status === 201)).toHaveLength(10);
    const refused = responses.filter((r) => r.status === 402);
    expect(refused).toHaveLength(90);
    expect(refused[0]!.body.error.code).toBe('insufficient_funds');
    const balance = await t.admin(t.http.get('/v1/users/u_race/balance')).expect(200);
    expect(balance.body).toEqual({ user_id: 'u_race', balance_usd: '10', held_usd: '10', available_usd: '0', granted_usd: '0', grants: [] });
  });

  it('is idempotent by hold_id and refuses reuse with another amount', async () => {
    const first = await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_idem', user_id: 'u_42', amount_usd: '0.5' }).expect(201);
    expect(first.body).toMatchObject({ hold_id: 'h_idem', status: 'active', amount_usd: '0.5' });
    const again = await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_idem', user_id: 'u_42', amount_usd: '0.5' }).expect(200);
    expect(again.body.expires_at).toBe(first.body.expires_at);
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_idem', user_id: 'u_42', amount_usd: '0.6' }).expect(409);
    await t.admin(t.http.post('/v1/holds/h_idem/release')).expect(200);
  });

  it('captures the actual charge and releases the rest when an event names the hold', async () => {
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_1', user_id: 'u_42', amount_usd: '1' }).expect(201);
    const held = await t.admin(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(held.body).toMatchObject({ balance_usd: '10', held_usd: '1', available_usd: '9' });
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ hold_id: 'h_1' })).expect(201);
    const after = await t.admin(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(after.body).toEqual({ user_id: 'u_42', balance_usd: '9.991875', held_usd: '0', available_usd: '9.991875', granted_usd: '0', grants: [] });
    const hold = await t.admin(t.http.get('/v1/holds/h_1')).expect(200);
    expect(hold.body).toMatchObject({ status: 'captured', captured_event_id: 'gw1-req-123', captured_usd: '0.008125' });
    const release = await t.admin(t.http.post('/v1/holds/h_1/release')).expect(409);
    expect(release.body.error.code).toBe('conflict');
  });

  it('releases a hold once; a second release changes nothing', async () => {
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_rel', user_id: 'u_42', amount_usd: '2' }).expect(201);
    const released = await t.admin(t.http.post('/v1/holds/h_rel/release')).expect(200);
    expect(released.body).toMatchObject({ hold_id: 'h_rel', status: 'released' });
    await t.admin(t.http.post('/v1/holds/h_rel/release')).expect(200);
    const balance = await t.admin(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(balance.body.held_usd).toBe('0');
    await t.admin(t.http.post('/v1/holds/h_none/release')).expect(404);
  });

  it('bills a completed stream past the balance, then refuses new holds', async () => {
    await t.admin(t.http.post('/v1/admin/users/u_poor/credits')).send({ amount_usd: '0.001', reference: 'poor' }).expect(201);
    await t.admin(t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'poor-1', user_id: 'u_poor' })).expect(201);
    const balance = await t.admin(t.http.get('/v1/users/u_poor/balance')).expect(200);
    expect(balance.body.balance_usd).toBe('-0.007125');
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_poor', user_id: 'u_poor', amount_usd: '0.000001' }).expect(402);
  });

  it('expires holds past their lifetime and frees the amount', async () => {
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_exp', user_id: 'u_42', amount_usd: '3', expires_in_seconds: 1 }).expect(201);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    // Creating another hold expires the user's due holds first (the worker also does it on a schedule).
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_after', user_id: 'u_42', amount_usd: '0.1' }).expect(201);
    const hold = await t.admin(t.http.get('/v1/holds/h_exp')).expect(200);
    expect(hold.body.status).toBe('expired');
    const balance = await t.admin(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(balance.body.held_usd).toBe('0.1');
  });

  it('expires due holds in the scheduled job the worker runs', async () => {
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_job', user_id: 'u_42', amount_usd: '0.2', expires_in_seconds: 1 }).expect(201);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const before = await t.admin(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(await t.app.get(HoldsService).expireDue()).toBe(1);
    const after = await t.admin(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(before.body.held_usd).toBe('0.3');
    expect(after.body.held_usd).toBe('0.1');
    expect((await t.admin(t.http.get('/v1/holds/h_job')).expect(200)).body.status).toBe('expired');
  });

  it('validates hold input', async () => {
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_bad', user_id: 'u_42', amount_usd: 1 }).expect(400);
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_bad', user_id: 'u_42', amount_usd: '0' }).expect(400);
    await t.admin(t.http.post('/v1/holds')).send({ hold_id: 'h_bad', user_id: 'u_42', amount_usd: '-1' }).expect(400);
  });
});
