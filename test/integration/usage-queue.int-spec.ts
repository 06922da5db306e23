import { Queue } from 'bullmq';
import { publishUsageEvent } from '../../src/queue/usage-events.producer.js';
import { QUEUE_USAGE_EVENTS, QUEUE_USAGE_EVENTS_DEAD } from '../../src/queue/queue-names.js';
import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startTestWorker, waitFor } from '../support/test-worker.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('usage-events queue (real Redis, real worker)', () => {
  let t: TestApp;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let queue: Queue;
  let dead: Queue;

  beforeAll(async () => {
    t = await startTestApp('usage_queue');
    await seedBilling(t);
    worker = await startTestWorker(t.databaseUrl);
    const connection = { url: REDIS_URL };
    queue = new Queue(QUEUE_USAGE_EVENTS, { connection, prefix: worker.queuePrefix });
    dead = new Queue(QUEUE_USAGE_EVENTS_DEAD, { connection, prefix: worker.queuePrefix });
  });
  afterAll(async () => {
    await queue?.obliterate({ force: true }).catch(() => undefined);
    await dead?.obliterate({ force: true }).catch(() => undefined);
    await queue?.close();
    await dead?.close();
    await worker?.close();
    await t?.close();
  });

  it('bills a job pushed twice exactly once', async () => {
    const payload = exampleEvent({ event_id: 'queued-1' });
    await publishUsageEvent(queue, payload);
    await publishUsageEvent(queue, payload);
    const stored = await waitFor(async () => {
      const res = await t.admin(t.http.get('/v1/usage-events/queued-1'));
      return res.status === 200 ? res.body : null;
    });
    expect(stored).toMatchObject({ status: 'priced', charge_usd: '0.008125', source: 'queue' });
    // A third push after completion is a replay: the ledger dedupes by event_id.
    const job = await queue.getJob('queued-1');
    await waitFor(async () => (await job?.isCompleted()) ?? false);
    await job!.remove();
    await publishUsageEvent(queue, payload);
    await waitFor(async () => (await (await queue.getJob('queued-1'))?.isCompleted()) ?? false);
    const balance = await t.admin(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(balance.body.balance_usd).toBe('99.991875');
    await expectLedgerClean(t);
  });

  it('sends an invalid payload to the dead-letter queue with its validation error, without retrying', async () => {
    await publishUsageEvent(queue, { event_id: 'queued-bad', user_id: 'u_42', contributor_id: 'c_std', model: 'x', usage: { prompt_tokens: -1, completion_tokens: 1 } });
    const deadJob = await waitFor(async () => dead.getJob('dead-queued-bad'));
    expect(deadJob.data).toMatchObject({ job_id: 'queued-bad', code: 'validation_failed' });
    expect(JSON.stringify(deadJob.data.details)).toContain('usage.prompt_tokens');
    const original = await queue.getJob('queued-bad');
    await waitFor(async () => (await original?.isFailed()) ?? false);
    expect(original!.attemptsMade).toBe(1);
    await t.admin(t.http.get('/v1/usage-events/queued-bad')).expect(404);
  });

  it('dead-letters an unknown contributor instead of retrying forever', async () => {
    await publishUsageEvent(queue, exampleEvent({ event_id: 'queued-nobody', contributor_id: 'c_nobody' }));
    const deadJob = await waitFor(async () => dead.getJob('dead-queued-nobody'));
    expect(deadJob.data.code).toBe('unknown_contributor');
  });

  it('dead-letters a job of another name (no handler on this queue) instead of leaving it unbilled', async () => {
    await queue.add('usage-event-v2', exampleEvent({ event_id: 'queued-renamed' }), { jobId: 'queued-renamed', attempts: 5 });
    const deadJob = await waitFor(async () => dead.getJob('dead-queued-renamed'));
    expect(deadJob.data).toMatchObject({ job_id: 'queued-renamed', code: 'unknown_job' });
    const original = await queue.getJob('queued-renamed');
    await waitFor(async () => (await original?.isFailed()) ?? false);
    expect(original!.attemptsMade).toBe(1);
    await t.admin(t.http.get('/v1/usage-events/queued-renamed')).expect(404);
  });
});
