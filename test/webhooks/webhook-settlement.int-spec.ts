// A settlement on Anvil announces itself: settlement.created, then settlement.confirmed, and one
// payout.paid per line, each delivered exactly once to a healthy receiver (verified with the
// standardwebhooks package). A contributor's own endpoint receives only its own line's events.
import { startTestWorker, waitFor } from '../support/test-worker.js';
import { WEBHOOK_EVENT_SCHEMAS, type WebhookEventType } from '../../src/modules/webhooks/webhook-event-types.js';
import { creditPayable, registerContributors, startSettlementHarness, USD_ATTO, type SettlementHarness } from '../settlement/support/settlement-harness.js';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.js';
import { WEBHOOK_TEST_ENV } from './support/webhook-harness.js';

let h: SettlementHarness;
let worker: Awaited<ReturnType<typeof startTestWorker>>;
let ops: WebhookReceiver;
let contributor: WebhookReceiver;

const CONTRIBUTORS = ['wh-a', 'wh-b', 'wh-c'];

beforeAll(async () => {
  h = await startSettlementHarness('webhook_settlement', { ...WEBHOOK_TEST_ENV });
  ops = await startWebhookReceiver('/ops');
  contributor = await startWebhookReceiver('/wh-b');
  const adminEndpoint = await h.t.admin(h.t.http.post('/v1/admin/webhooks')).send({ url: ops.url, events: ['settlement.created', 'settlement.confirmed', 'settlement.failed', 'payout.paid', 'payout.failed'] }).expect(201);
  ops.secret = adminEndpoint.body.secret;
  await registerContributors(h, CONTRIBUTORS);
  const key = await h.t.admin(h.t.http.post('/v1/admin/api-keys')).send({ role: 'contributor', contributor_id: 'wh-b' }).expect(201);
  const own = await h.t.http.post('/v1/contributors/wh-b/webhooks').set('Authorization', `Bearer ${key.body.key}`).send({ url: contributor.url, events: ['settlement.created', 'settlement.confirmed', 'payout.paid'] }).expect(201);
  contributor.secret = own.body.secret;
  worker = await startTestWorker(h.t.databaseUrl, h.env);
});
afterAll(async () => {
  await worker?.close();
  await h?.close();
  await ops?.close();
  await contributor?.close();
});

function typesOf(receiver: WebhookReceiver): string[] {
  return receiver.received.map((r) => r.body.type);
}

describe('settlement webhooks', () => {
  it('announces created -> confirmed and one payout.paid per line, each exactly once', async () => {
    await creditPayable(h, CONTRIBUTORS.map((id, i) => ({ contributorId: id, payoutAtto: BigInt(i + 2) * USD_ATTO })));
    const created = await h.t.admin(h.t.http.post('/v1/admin/settlements')).send({}).expect(201);
    const settlementId = created.body.settlement_id;
    await waitFor(async () => ops.received.some((r) => r.body.type === 'settlement.confirmed'), 90_000);
    await waitFor(async () => contributor.received.some((r) => r.body.type === 'settlement.confirmed'), 30_000);
    await new Promise((resolve) => setTimeout(resolve, 3_000)); // anything extra would arrive by now

    expect(ops.received.every((r) => r.verified && r.answeredStatus === 200)).toBe(true);
    for (const r of [...ops.received, ...contributor.received]) expect(WEBHOOK_EVENT_SCHEMAS[r.body.type as WebhookEventType].safeParse(r.body.data).success).toBe(true);
    // In order: the settlement was created before its lines were paid, and confirmed after.
    expect(typesOf(ops)).toEqual(['settlement.created', 'payout.paid', 'payout.paid', 'payout.paid', 'settlement.confirmed']);
    expect(new Set(ops.received.map((r) => r.id)).size).toBe(5);
    expect(ops.received[0]!.body.data).toMatchObject({ settlement_id: settlementId, status: 'queued', payout_count: 3, total_usdc: '9' });
    const paid = ops.received.filter((r) => r.body.type === 'payout.paid').map((r) => r.body.data);
    expect(paid.map((d) => [d.contributor_id, d.amount_usdc]).sort()).toEqual([['wh-a', '2'], ['wh-b', '3'], ['wh-c', '4']]);
    for (const d of paid) expect(d).toMatchObject({ settlement_id: settlementId, tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/), reason: null });
    expect(ops.received.at(-1)!.body.data).toMatchObject({ settlement_id: settlementId, status: 'confirmed', paid_count: 3, failed_count: 0 });

    // The contributor's endpoint: its own line only, no totals, nothing about the others.
    expect(contributor.received.every((r) => r.verified)).toBe(true);
    expect(typesOf(contributor)).toEqual(['settlement.created', 'payout.paid', 'settlement.confirmed']);
    expect(contributor.received[0]!.body.data).toEqual({ settlement_id: settlementId, status: 'queued', line: expect.objectContaining({ contributor_id: 'wh-b', amount_usdc: '3', status: 'queued' }) });
    expect(contributor.received[1]!.body.data).toMatchObject({ contributor_id: 'wh-b', amount_usdc: '3' });
    expect(JSON.stringify(contributor.received)).not.toContain('wh-a');
    expect(JSON.stringify(contributor.received)).not.toContain('wh-c');
  }, 180_000);
});
