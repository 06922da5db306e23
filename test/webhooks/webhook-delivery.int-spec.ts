// Delivery end to end on real Postgres, Redis and BullMQ: the outbox, the relay, the per-endpoint
// dispatcher and a real local receiver verifying signatures with the standardwebhooks package.
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { holdExpired, startWebhookHarness, type WebhookHarness } from './support/webhook-harness.js';
import { waitFor } from '../support/test-worker.js';
import { expectDeclaredAnswer } from '../support/declared-answer.js';
import { webhookDeliveryListResponseSchema, webhookDeliveryResponseSchema, webhookEndpointResponseSchema } from '../../src/modules/webhooks/webhooks.schemas.js';

let h: WebhookHarness;
let receiver: WebhookReceiver;
let endpointId: string;

async function register(url: string, events: string[] = ['hold.expired']): Promise<string> {
  const res = await h.t.admin(h.t.http.post('/v1/admin/webhooks')).send({ url, events, description: 'test receiver' }).expect(201);
  receiver.secret = res.body.secret;
  return res.body.id;
}

async function deliveries(id = endpointId) {
  return (await h.t.admin(h.t.http.get(`/v1/admin/webhooks/${id}/deliveries?limit=100`)).expect(200)).body.data as Array<Record<string, any>>;
}

async function deliveryOf(messageId: string, id = endpointId) {
  return (await deliveries(id)).find((d) => d.event.id === messageId);
}

async function messageIdOf(holdId: string): Promise<string> {
  const rows = await h.sql<{ message_id: string }>(`SELECT message_id FROM webhook_events WHERE data->>'hold_id' = $1`, [holdId]);
  return rows[0]!.message_id;
}

/** A receiver of the test's own with a hold.expired endpoint, answering `fallback`; closed after `use`. */
async function withOwnReceiver(fallback: number, use: (own: WebhookReceiver, ownEndpointId: string) => Promise<void>): Promise<void> {
  const own = await startWebhookReceiver();
  try {
    const res = await h.t.admin(h.t.http.post('/v1/admin/webhooks')).send({ url: own.url, events: ['hold.expired'] }).expect(201);
    own.secret = res.body.secret;
    own.fallback = fallback;
    await use(own, res.body.id);
  } finally {
    await own.close();
  }
}

/** The endpoint as the admin API shows it once the dispatcher has disabled it. */
function endpointOnceDisabled(id: string, timeoutMs?: number) {
  return waitFor(async () => {
    const res = await h.t.admin(h.t.http.get(`/v1/admin/webhooks/${id}`)).expect(200);
    return res.body.status === 'disabled' && res.body;
  }, timeoutMs);
}

beforeAll(async () => {
  h = await startWebhookHarness('webhook_delivery');
  receiver = await startWebhookReceiver();
  endpointId = await register(receiver.url);
  await h.startWorker();
});
afterAll(async () => {
  await h?.close();
  await receiver?.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  receiver.script = [];
  receiver.fallback = 200;
});

describe('webhook delivery', () => {
  it('delivers a committed event once, signed (verified by standardwebhooks), with the documented body, and logs it', async () => {
    await h.emit([holdExpired('dl-ok-1')]);
    await waitFor(async () => receiver.received.length >= 1 && (await deliveryOf(await messageIdOf('dl-ok-1')))?.status === 'delivered');
    const [got] = receiver.received;
    expect(got).toMatchObject({ verified: true, id: await messageIdOf('dl-ok-1') });
    expect(got!.id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(got!.body).toEqual({ type: 'hold.expired', timestamp: expect.any(String), data: { hold_id: 'dl-ok-1', user_id: 'u_42', amount_usd: '1.5', expires_at: '2026-12-01T10:00:00.000Z' } });
    const delivery = await deliveryOf(got!.id);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 1, last_status_code: 200, event: { type: 'hold.expired' } });
    expect(delivery!.attempt_log).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, error: null, latency_ms: expect.any(Number) })]);
    // Nothing more arrives: once means once.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(receiver.received).toHaveLength(1);
  });

  it('never delivers an event whose transaction rolled back', async () => {
    const outbox = h.t.app.get((await import('../../src/modules/webhooks/webhook-outbox.service.js')).WebhookOutbox);
    await expect(
      h.db.transaction(async (client) => {
        await outbox.emit(client, [holdExpired('dl-rolled-back')]);
        throw new Error('the fact failed after its event was written');
      }),
    ).rejects.toThrow('the fact failed');
    await h.emit([holdExpired('dl-after-rollback')]);
    await waitFor(async () => receiver.received.some((r) => r.body.data.hold_id === 'dl-after-rollback'));
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received.map((r) => r.body.data.hold_id)).toEqual(['dl-after-rollback']);
    expect(await h.sql(`SELECT 1 FROM webhook_events WHERE data->>'hold_id' = 'dl-rolled-back'`)).toEqual([]);
  });

  it('retries 500, 500, 500 with backoff and the same webhook-id, then 200 ends delivered', async () => {
    receiver.script = [500, 500, 500, 200];
    await h.emit([holdExpired('dl-retry-1')]);
    const messageId = await messageIdOf('dl-retry-1');
    await waitFor(async () => (await deliveryOf(messageId))?.status === 'delivered', 30_000);
    expect(receiver.received.map((r) => r.id)).toEqual([messageId, messageId, messageId, messageId]);
    expect(receiver.received.every((r) => r.verified)).toBe(true);
    // Each attempt is signed afresh (its own timestamp), the body is the same bytes.
    expect(new Set(receiver.received.map((r) => r.rawBody)).size).toBe(1);
    const delivery = await deliveryOf(messageId);
    expect(delivery).toMatchObject({ status: 'delivered', attempts: 4, last_status_code: 200 });
    expect(delivery!.attempt_log.map((a: { status_code: number }) => a.status_code)).toEqual([500, 500, 500, 200]);
  });

  it('keeps an endpoint in event order: later events wait while the first is retried', async () => {
    receiver.script = [503, 503, 200];
    await h.emit([holdExpired('dl-order-1'), holdExpired('dl-order-2'), holdExpired('dl-order-3')]);
    await waitFor(async () => receiver.received.filter((r) => r.answeredStatus === 200).length >= 3, 30_000);
    expect(receiver.received.map((r) => `${r.body.data.hold_id}:${r.answeredStatus}`)).toEqual(['dl-order-1:503', 'dl-order-1:503', 'dl-order-1:200', 'dl-order-2:200', 'dl-order-3:200']);
  });

  it('times out a receiver that hangs (10 s) and retries it', async () => {
    receiver.script = ['hang', 200];
    await h.emit([holdExpired('dl-hang-1')]);
    const messageId = await messageIdOf('dl-hang-1');
    await waitFor(async () => (await deliveryOf(messageId))?.status === 'delivered', 40_000);
    const delivery = await deliveryOf(messageId);
    expect(delivery!.attempt_log).toEqual([
      expect.objectContaining({ attempt: 1, status_code: null, error: 'timed out after 10000 ms' }),
      expect.objectContaining({ attempt: 2, status_code: 200 }),
    ]);
    expect(delivery!.attempt_log[0].latency_ms).toBeGreaterThanOrEqual(10_000);
    expect(receiver.received.map((r) => r.id)).toEqual([messageId, messageId]);
  }, 60_000);

  it('marks a delivery failed past its retry window, and a manual retry sends it again with the same id', async () => {
    receiver.fallback = 500;
    await h.emit([holdExpired('dl-fail-1')]);
    const messageId = await messageIdOf('dl-fail-1');
    await waitFor(async () => ((await deliveryOf(messageId))?.attempts ?? 0) >= 1);
    // The retry window (WEBHOOK_RETRY_HOURS) runs out: the next failed attempt is the last.
    await h.sql(`UPDATE webhook_deliveries SET deadline_at = now() WHERE event_id = (SELECT id FROM webhook_events WHERE message_id = $1)`, [messageId]);
    await waitFor(async () => (await deliveryOf(messageId))?.status === 'failed', 20_000);
    const failed = await deliveryOf(messageId);
    expect(failed).toMatchObject({ status: 'failed', last_status_code: 500, next_attempt_at: null });
    expect(failed!.failed_at).not.toBeNull();
    expectDeclaredAnswer(webhookDeliveryListResponseSchema, (await h.t.admin(h.t.http.get(`/v1/admin/webhooks/${endpointId}/deliveries?limit=100`)).expect(200)).body);
    receiver.fallback = 200;
    const retried = await h.t.admin(h.t.http.post(`/v1/admin/webhooks/${endpointId}/deliveries/${failed!.delivery_id}/retry`)).expect(200);
    expect(retried.body).toMatchObject({ status: 'pending', delivery_id: failed!.delivery_id });
    expectDeclaredAnswer(webhookDeliveryResponseSchema, retried.body);
    await waitFor(async () => (await deliveryOf(messageId))?.status === 'delivered');
    expect(new Set(receiver.received.map((r) => r.id))).toEqual(new Set([messageId]));
    expect(receiver.received.at(-1)!.answeredStatus).toBe(200);
  });

  it('disables an endpoint failing for a day, says why, and sends what waited once it is enabled again', async () => {
    await withOwnReceiver(502, async (other, otherEndpointId) => {
      await h.sql(`UPDATE webhook_endpoints SET failing_since = now() - interval '25 hours' WHERE id = $1`, [otherEndpointId]);
      await h.emit([holdExpired('dl-disable-1')]);
      const disabled = await endpointOnceDisabled(otherEndpointId, 20_000);
      expect(disabled.disabled_reason).toMatch(/^every delivery failed since .* \(last: HTTP 502\)$/);
      expect(other.received).toHaveLength(1);
      // While disabled nothing is sent, new events still wait for it.
      await h.emit([holdExpired('dl-disable-2')]);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(other.received).toHaveLength(1);
      other.fallback = 200;
      const enabled = await h.t.admin(h.t.http.post(`/v1/admin/webhooks/${otherEndpointId}/enable`)).expect(200);
      expect(enabled.body).toMatchObject({ status: 'active', disabled_reason: null, failing_since: null });
      expectDeclaredAnswer(webhookEndpointResponseSchema, enabled.body);
      await waitFor(async () => other.received.filter((r) => r.answeredStatus === 200).length >= 2, 20_000);
      expect(other.received.filter((r) => r.answeredStatus === 200).map((r) => r.body.data.hold_id)).toEqual(['dl-disable-1', 'dl-disable-2']);
      await h.t.admin(h.t.http.delete(`/v1/admin/webhooks/${otherEndpointId}`)).expect(204);
    });
  });

  it('disables an endpoint at once when it answers 410 Gone', async () => {
    await withOwnReceiver(410, async (gone, goneEndpointId) => {
      await h.emit([holdExpired('dl-gone-1')]);
      const disabled = await endpointOnceDisabled(goneEndpointId);
      expect(disabled.disabled_reason).toBe('the endpoint answered 410 Gone');
      await h.t.admin(h.t.http.delete(`/v1/admin/webhooks/${goneEndpointId}`)).expect(204);
    });
  });
});
