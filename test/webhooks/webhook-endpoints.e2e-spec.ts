// Endpoint management over HTTP: the secret shown once, validation, contributor scoping, and the
// SSRF guard (private, loopback and link-local addresses refused, also when a name resolves to
// one, and again at delivery time). No request ever leaves this machine: refused addresses are
// never connected to, and only loopback receivers are used.
import { startWebhookReceiver } from './support/webhook-receiver.js';
import { holdExpired, startWebhookHarness, type WebhookHarness } from './support/webhook-harness.js';
import { waitFor } from '../support/test-worker.js';
import { expectDeclaredAnswer } from '../support/declared-answer.js';
import { webhookEndpointResponseSchema, webhookEventTypesResponseSchema, webhookListResponseSchema } from '../../src/modules/webhooks/webhooks.schemas.js';

let h: WebhookHarness;
let contributorKey: string;

beforeAll(async () => {
  // Private addresses are NOT allowed here: the production setting.
  h = await startWebhookHarness('webhook_endpoints', { WEBHOOK_ALLOW_PRIVATE: 'false' });
  await h.t.admin(h.t.http.put('/v1/admin/contributors/c_hook')).send({ tier: 'standard', payout_address: '0x1111111111111111111111111111111111111111' }).expect(201);
  contributorKey = (await h.t.admin(h.t.http.post('/v1/admin/api-keys')).send({ role: 'contributor', contributor_id: 'c_hook' }).expect(201)).body.key;
});
afterAll(async () => {
  await h?.close();
});

const asContributor = (req: import('supertest').Test) => req.set('Authorization', `Bearer ${contributorKey}`);

describe('webhook endpoints', () => {
  it.each([
    ['http://127.0.0.1:8080/hook', 'loopback'],
    ['http://localhost:8080/hook', 'loopback'],
    ['http://[::1]/hook', 'loopback'],
    ['http://169.254.169.254/latest/meta-data', 'link-local'],
    ['https://10.0.0.7/hook', 'private'],
    ['https://192.168.1.10/hook', 'private'],
    ['https://[fd00::1]/hook', 'unique local'],
    ['https://[::ffff:127.0.0.1]/hook', 'loopback'],
    ['http://0.0.0.0:3000/', 'this network'],
  ])('refuses %s (%s) with 422 webhook_url_refused, storing nothing', async (url, reason) => {
    const res = await h.t.admin(h.t.http.post('/v1/admin/webhooks')).send({ url, events: ['hold.expired'] }).expect(422);
    expect(res.body.error.code).toBe('webhook_url_refused');
    expect(res.body.error.message).toContain(reason);
    expect(await h.sql('SELECT id FROM webhook_endpoints')).toEqual([]);
  });

  it('validates the body: scheme, credentials, event types', async () => {
    const post = (body: Record<string, unknown>) => h.t.admin(h.t.http.post('/v1/admin/webhooks')).send(body);
    for (const body of [
      { url: 'ftp://93.184.216.34/x', events: ['hold.expired'] },
      { url: 'https://user:pw@93.184.216.34/x', events: ['hold.expired'] },
      { url: 'https://93.184.216.34/x', events: ['no.such_type'] },
      { url: 'https://93.184.216.34/x', events: [] },
      { url: 'https://93.184.216.34/x', events: ['hold.expired', 'hold.expired'] },
      { url: 'https://93.184.216.34/x', events: ['hold.expired'], extra: 1 },
    ]) {
      const res = await post(body).expect(400);
      expect(res.body.error.code).toBe('validation_failed');
    }
  });

  it('shows the whsec_ secret only at creation; lists, reads and deletes', async () => {
    const created = await h.t.admin(h.t.http.post('/v1/admin/webhooks')).send({ url: 'https://93.184.216.34/hooks', events: ['settlement.confirmed', 'payout.paid'], description: 'ops' }).expect(201);
    expect(created.body).toMatchObject({ url: 'https://93.184.216.34/hooks', events: ['settlement.confirmed', 'payout.paid'], status: 'active', contributor_id: null });
    expect(created.body.secret).toMatch(/^whsec_/);
    const list = await h.t.admin(h.t.http.get('/v1/admin/webhooks')).expect(200);
    expect(list.body.data.map((e: { id: string }) => e.id)).toContain(created.body.id);
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    expectDeclaredAnswer(webhookListResponseSchema, list.body);
    const one = await h.t.admin(h.t.http.get(`/v1/admin/webhooks/${created.body.id}`)).expect(200);
    expect(one.body.secret).toBeUndefined();
    expectDeclaredAnswer(webhookEndpointResponseSchema, one.body);
    const audit = await h.sql<{ after: unknown }>(`SELECT after FROM audit_log WHERE action = 'webhook.create'`);
    expect(JSON.stringify(audit)).not.toContain(created.body.secret);
    await h.t.admin(h.t.http.delete(`/v1/admin/webhooks/${created.body.id}`)).expect(204);
    await h.t.admin(h.t.http.get(`/v1/admin/webhooks/${created.body.id}`)).expect(404);
    await h.t.admin(h.t.http.delete(`/v1/admin/webhooks/${created.body.id}`)).expect(404);
    await h.t.admin(h.t.http.get('/v1/admin/webhooks/not-a-uuid')).expect(404);
  });

  it('serves every event type with a JSON Schema and an example', async () => {
    const res = await h.t.admin(h.t.http.get('/v1/admin/webhooks/event-types')).expect(200);
    expect(res.body.data.map((t: { type: string }) => t.type)).toContain('user.balance_low');
    for (const entry of res.body.data) expect(entry.schema).toMatchObject({ type: 'object' });
    expectDeclaredAnswer(webhookEventTypesResponseSchema, res.body);
  });

  it('lets a contributor key register only payout.* and settlement.* endpoints for itself', async () => {
    const mine = await asContributor(h.t.http.post('/v1/contributors/c_hook/webhooks')).send({ url: 'https://93.184.216.34/mine', events: ['payout.paid', 'settlement.confirmed'] }).expect(201);
    expect(mine.body).toMatchObject({ contributor_id: 'c_hook', secret: expect.stringMatching(/^whsec_/) });
    const refused = await asContributor(h.t.http.post('/v1/contributors/c_hook/webhooks')).send({ url: 'https://93.184.216.34/mine', events: ['user.balance_low'] }).expect(400);
    expect(refused.body.error.details).toEqual([{ field: 'events', message: 'not allowed: user.balance_low' }]);
    await asContributor(h.t.http.post('/v1/contributors/c_other/webhooks')).send({ url: 'https://93.184.216.34/x', events: ['payout.paid'] }).expect(403);
    await asContributor(h.t.http.post('/v1/admin/webhooks')).send({ url: 'https://93.184.216.34/x', events: ['payout.paid'] }).expect(403);
    const list = await asContributor(h.t.http.get('/v1/contributors/c_hook/webhooks')).expect(200);
    expect(list.body.data.map((e: { id: string }) => e.id)).toEqual([mine.body.id]);
    expectDeclaredAnswer(webhookListResponseSchema, list.body);
    // An admin endpoint is not the contributor's to read.
    const adminOwned = await h.t.admin(h.t.http.post('/v1/admin/webhooks')).send({ url: 'https://93.184.216.34/admin', events: ['payout.paid'] }).expect(201);
    await asContributor(h.t.http.get(`/v1/contributors/c_hook/webhooks/${adminOwned.body.id}`)).expect(404);
    // Disabled (as after a day of failures), the contributor puts it back in service itself.
    await h.sql(`UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'the endpoint answered 410 Gone' WHERE id = $1`, [mine.body.id]);
    const disabled = await asContributor(h.t.http.get(`/v1/contributors/c_hook/webhooks/${mine.body.id}`)).expect(200);
    expect(disabled.body).toMatchObject({ status: 'disabled', disabled_reason: 'the endpoint answered 410 Gone' });
    expectDeclaredAnswer(webhookEndpointResponseSchema, disabled.body);
    const enabled = await asContributor(h.t.http.post(`/v1/contributors/c_hook/webhooks/${mine.body.id}/enable`)).expect(200);
    expect(enabled.body).toMatchObject({ status: 'active', disabled_reason: null });
    expectDeclaredAnswer(webhookEndpointResponseSchema, enabled.body);
    await asContributor(h.t.http.post(`/v1/contributors/c_hook/webhooks/${adminOwned.body.id}/enable`)).expect(404);
    await asContributor(h.t.http.delete(`/v1/contributors/c_hook/webhooks/${mine.body.id}`)).expect(204);
    await h.t.admin(h.t.http.delete(`/v1/admin/webhooks/${adminOwned.body.id}`)).expect(204);
  });

  it('refuses at delivery time a name that now resolves to a loopback address (DNS rebinding), connecting nowhere', async () => {
    const receiver = await startWebhookReceiver();
    try {
      // As if hooks.example had resolved to a public address at registration and was re-pointed
      // since: the row is written directly, naming the receiver by a name that resolves to 127.0.0.1.
      const port = new URL(receiver.url).port;
      await h.sql(
        `INSERT INTO webhook_endpoints (id, url, event_types, secret, created_by) VALUES ('0c7d4a1e-5b6f-4e8a-9d2c-1f3e5a7b9c0d', $1, '{hold.expired}', 'whsec_${Buffer.alloc(32, 1).toString('base64')}', 'test')`,
        [`http://localhost:${port}/hooks`],
      );
      await h.startWorker();
      await h.emit([holdExpired('rebind-1')]);
      const attempt = await waitFor(async () => {
        const rows = await h.sql<{ error: string | null }>(`SELECT error FROM webhook_attempts WHERE finished_at IS NOT NULL`);
        return rows[0];
      });
      expect(attempt.error).toContain('resolves to a refused address');
      expect(attempt.error).toContain('loopback');
      expect(receiver.received).toEqual([]);
    } finally {
      await h.stopWorker();
      await receiver.close();
    }
  });
});
