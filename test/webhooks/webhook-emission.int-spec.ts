// The events of api.md emitted where their facts happen (write path, holds, ledger check), each
// delivered to a real receiver that verifies it with standardwebhooks and checked against the
// type's documented schema.
import { WEBHOOK_EVENT_SCHEMAS, type WebhookEventType } from '../../src/modules/webhooks/webhook-event-types.js';
import { GPT4O, exampleEvent, seedBilling } from '../support/billing-fixtures.js';
import { waitFor } from '../support/test-worker.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { startWebhookHarness, type WebhookHarness } from './support/webhook-harness.js';

let h: WebhookHarness;
let receiver: WebhookReceiver;

function received(type: WebhookEventType) {
  const events = receiver.verifiedOf(type);
  for (const e of events) expect(WEBHOOK_EVENT_SCHEMAS[type].safeParse(e.body.data).success).toBe(true);
  return events;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 2_500));

beforeAll(async () => {
  // Low-balance threshold 5 USD; u_42 starts with 6.
  h = await startWebhookHarness('webhook_emission', { USER_LOW_BALANCE_USD: '5' });
  await seedBilling(h.t, { userCreditUsd: '6' });
  receiver = await startWebhookReceiver();
  const res = await h.t.admin(h.t.http.post('/v1/admin/webhooks')).send({ url: receiver.url, events: ['user.balance_low', 'usage.unpriced', 'hold.expired', 'ledger.check_failed'] }).expect(201);
  receiver.secret = res.body.secret;
  await h.startWorker();
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});

describe('webhook events from the write path, holds and the ledger check', () => {
  it('fires user.balance_low once per crossing, not per event (one-statement and batch paths)', async () => {
    // Each event charges 0.008125 USD. 6 USD -> below 5 needs 124 events; send 200 over both paths.
    const single = Array.from({ length: 60 }, (_, i) => exampleEvent({ event_id: `low-s-${i}` }));
    await Promise.all(single.map((e) => h.t.admin(h.t.http.post('/v1/usage-events')).send(e).expect(201)));
    const batch = Array.from({ length: 140 }, (_, i) => exampleEvent({ event_id: `low-b-${i}` }));
    await h.t.admin(h.t.http.post('/v1/usage-events/batch')).send({ events: batch }).expect(200);
    await waitFor(async () => received('user.balance_low').length >= 1);
    await settle();
    const low = received('user.balance_low');
    expect(low).toHaveLength(1);
    expect(low[0]!.body.data).toMatchObject({ user_id: 'u_42', threshold_usd: '5' });
    const [previous, balance] = [Number(low[0]!.body.data.previous_balance_usd), Number(low[0]!.body.data.balance_usd)];
    expect(previous).toBeGreaterThanOrEqual(5);
    expect(balance).toBeLessThan(5);

    // A top-up above the threshold, then charges below it again: a second crossing, a second event.
    await h.t.admin(h.t.http.post('/v1/admin/users/u_42/credits')).send({ amount_usd: '1', reference: 'top-up-1' }).expect(201);
    const more = Array.from({ length: 200 }, (_, i) => exampleEvent({ event_id: `low-c-${i}` }));
    for (let i = 0; i < more.length; i += 50) {
      await Promise.all(more.slice(i, i + 50).map((e) => h.t.admin(h.t.http.post('/v1/usage-events')).send(e).expect(201)));
    }
    await waitFor(async () => received('user.balance_low').length >= 2);
    await settle();
    expect(received('user.balance_low')).toHaveLength(2);
  });

  it('fires usage.unpriced for the first unpriced event of a model in the hour only', async () => {
    const unpriced = (i: number, model: string) => exampleEvent({ event_id: `unp-${model}-${i}`, model, occurred_at: new Date().toISOString() });
    await Promise.all([0, 1, 2].map((i) => h.t.admin(h.t.http.post('/v1/usage-events')).send(unpriced(i, 'acme/new-a')).expect(202)));
    await h.t.admin(h.t.http.post('/v1/usage-events/batch')).send({ events: [unpriced(3, 'acme/new-a'), unpriced(4, 'acme/new-b'), unpriced(5, 'acme/new-b')] }).expect(200);
    await h.t.admin(h.t.http.post('/v1/usage-events')).send(exampleEvent({ event_id: 'priced-after', model: GPT4O })).expect(201);
    await waitFor(async () => received('usage.unpriced').length >= 2);
    await settle();
    const events = received('usage.unpriced');
    expect(events.map((e) => e.body.data.model).sort()).toEqual(['acme/new-a', 'acme/new-b']);
    for (const e of events) expect(e.body.data.hour).toMatch(/^\d{4}-\d\d-\d\dT\d\d:00:00\.000Z$/);
  });

  it('fires hold.expired when a hold expires, once', async () => {
    await h.t.admin(h.t.http.post('/v1/admin/users/u_hold/credits')).send({ amount_usd: '10', reference: 'hold-seed' }).expect(201);
    await h.t.admin(h.t.http.post('/v1/holds')).send({ hold_id: 'exp-1', user_id: 'u_hold', amount_usd: '2', expires_in_seconds: 1 }).expect(201);
    // The worker's 15 s expiry schedule takes it; a new hold of the user would too (lazily).
    await waitFor(async () => received('hold.expired').length >= 1, 30_000);
    await settle();
    const expired = received('hold.expired');
    expect(expired).toHaveLength(1);
    expect(expired[0]!.body.data).toMatchObject({ hold_id: 'exp-1', user_id: 'u_hold', amount_usd: '2' });
  });

  it('fires ledger.check_failed when the check fails, once per hour however often it runs', async () => {
    // A stored balance that no longer matches its postings (as a bad manual fix would leave it).
    await h.sql(`UPDATE accounts SET balance_atto = balance_atto + 1 WHERE code = 'user:u_hold'`);
    for (let i = 0; i < 3; i += 1) expect((await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200)).body.ok).toBe(false);
    await waitFor(async () => received('ledger.check_failed').length >= 1);
    await settle();
    const failed = received('ledger.check_failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.body.data).toMatchObject({ mismatched_accounts: 1, failed_checks: ['ledger'] });
    await h.sql(`UPDATE accounts SET balance_atto = balance_atto - 1 WHERE code = 'user:u_hold'`);
    expect((await h.t.admin(h.t.http.get('/v1/admin/ledger/check')).expect(200)).body.ok).toBe(true);
  });

  it('delivers only what was subscribed to', () => {
    expect(receiver.received.every((r) => ['user.balance_low', 'usage.unpriced', 'hold.expired', 'ledger.check_failed'].includes(r.body.type))).toBe(true);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
  });
});
