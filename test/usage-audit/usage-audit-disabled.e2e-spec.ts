// USAGE_AUDIT_ENABLED=false (the bench's audit-off API): the stream route bills a stream exactly as
// before but hands it to no audit, so no count job reaches the queue.
import { Queue } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { choiceChunk, sseBody } from '../../src/modules/streams/testing/sse-test-helpers.js';
import { UsageAuditProducer } from '../../src/modules/usage-audit/usage-audit.producer.js';
import { QUEUE_USAGE_AUDIT } from '../../src/queue/queue-names.js';
import { GPT4O } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let t: TestApp;
let queue: Queue;

beforeAll(async () => {
  t = await startTestApp('usage_audit_off', { USAGE_AUDIT_ENABLED: 'false' });
  queue = new Queue(QUEUE_USAGE_AUDIT, { connection: { url: 'redis://127.0.0.1:6379' }, prefix: t.queuePrefix });
  await t.admin(t.http.post('/v1/admin/prices')).send({ model: GPT4O, input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
  await t.admin(t.http.post('/v1/admin/users/u_a/credits')).send({ amount_usd: '10', reference: 'seed-u_a' }).expect(201);
  await t.admin(t.http.put('/v1/admin/contributors/c_a')).send({ tier: 'standard', payout_address: `0x${randomBytes(20).toString('hex')}` }).expect(201);
}, 60_000);
afterAll(async () => {
  await queue?.obliterate({ force: true }).catch(() => undefined);
  await queue?.close();
  await t?.close();
});

it('bills a stream with provider usage and queues no audit job for it', async () => {
  const body = sseBody([
    choiceChunk({ content: 'The ledger settles contributor payouts every night.' }, { model: 'gpt-4o' }),
    choiceChunk({}, { model: 'gpt-4o', finish_reason: 'stop' }),
    { object: 'chat.completion.chunk', model: 'gpt-4o', choices: [], usage: { prompt_tokens: 100, completion_tokens: 9, total_tokens: 109 } },
  ]);
  const res = await t.admin(t.http.post(`/v1/usage-events/stream?event_id=off-1&user_id=u_a&contributor_id=c_a&model=${encodeURIComponent(GPT4O)}`)).set('Content-Type', 'text/event-stream').send(body).expect(201);
  expect(res.body).toMatchObject({ status: 'priced', usage: { completion_tokens: 9 } });
  const producer = t.app.get(UsageAuditProducer);
  await producer.flush();
  expect(producer.dropped).toBe(0);
  const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized');
  expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(0);
});
