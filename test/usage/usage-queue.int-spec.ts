import { Queue, Worker } from 'bullmq';
import fc from 'fast-check';
import { jobOptions } from '../../src/queue/jobs.js';
import { deadLettersOf, publishUsageEvent, republishDeadLetter } from '../../src/queue/usage-events.producer.js';
import { JOB_USAGE_EVENT } from '../../src/queue/queue-names.js';
import { usageJobId } from '../../src/queue/usage-job-id.js';
import { exampleEvent, expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startWorkerWithUsageQueues, TEST_REDIS_URL as REDIS_URL, waitFor, type WorkerWithUsageQueues } from '../support/test-worker.js';

const CONTRIBUTOR_ADDRESS = '0x3333333333333333333333333333333333333333';

describe('usage-events queue (real Redis, real worker)', () => {
  let t: TestApp;
  let worker: WorkerWithUsageQueues;

  beforeAll(async () => {
    t = await startTestApp('usage_queue');
    await seedBilling(t);
    worker = await startWorkerWithUsageQueues(t.databaseUrl);
  });
  /** The one letter of an event's failed job, once it is written. */
  const letterOf = async (eventId: string) => (await waitFor(async () => ((await deadLettersOf(worker.dead, eventId)).length > 0 ? deadLettersOf(worker.dead, eventId) : null)))[0]!;
  /** Stored and billed through the API, or null. */
  const storedEvent = async (eventId: string) => {
    const res = await t.admin(t.http.get(`/v1/usage-events/${encodeURIComponent(eventId)}`));
    return res.status === 200 ? res.body : null;
  };

  afterAll(async () => {
    await worker?.close();
    await t?.close();
  });

  it('bills a job pushed twice exactly once', async () => {
    const payload = exampleEvent({ event_id: 'queued-1' });
    await publishUsageEvent(worker.queue, payload);
    await publishUsageEvent(worker.queue, payload);
    const stored = await waitFor(async () => {
      const res = await t.admin(t.http.get('/v1/usage-events/queued-1'));
      return res.status === 200 ? res.body : null;
    });
    expect(stored).toMatchObject({ status: 'priced', charge_usd: '0.008125', source: 'queue' });
    // A third push after completion is a replay: the ledger dedupes by event_id.
    const job = await worker.queue.getJob('queued-1');
    await waitFor(async () => (await job?.isCompleted()) ?? false);
    await job!.remove();
    await publishUsageEvent(worker.queue, payload);
    await waitFor(async () => (await (await worker.queue.getJob('queued-1'))?.isCompleted()) ?? false);
    const balance = await t.admin(t.http.get('/v1/users/u_42/balance')).expect(200);
    expect(balance.body.balance_usd).toBe('99.991875');
    await expectLedgerClean(t);
  });

  it('sends an invalid payload to the dead-letter queue with its validation error, without retrying', async () => {
    await publishUsageEvent(worker.queue, { event_id: 'queued-bad', user_id: 'u_42', contributor_id: 'c_std', model: 'x', usage: { prompt_tokens: -1, completion_tokens: 1 } });
    const deadJob = await letterOf('queued-bad');
    expect(deadJob.data).toMatchObject({ job_id: 'queued-bad', code: 'validation_failed' });
    expect(JSON.stringify(deadJob.data.details)).toContain('usage.prompt_tokens');
    // Failed on its first attempt, then removed: the letter is the record and the job id is free.
    await waitFor(async () => (await worker.queue.getJobState('queued-bad')) === 'unknown');
    await t.admin(t.http.get('/v1/usage-events/queued-bad')).expect(404);
  });

  it('dead-letters an unknown contributor instead of retrying forever', async () => {
    await publishUsageEvent(worker.queue, exampleEvent({ event_id: 'queued-nobody', contributor_id: 'c_nobody' }));
    const deadJob = await letterOf('queued-nobody');
    expect(deadJob.data.code).toBe('unknown_contributor');
  });

  it('dead-letters a job of another name (no handler on this queue) instead of leaving it unbilled', async () => {
    await worker.queue.add('usage-event-v2', exampleEvent({ event_id: 'queued-renamed' }), { jobId: 'queued-renamed', attempts: 5 });
    const deadJob = await letterOf('queued-renamed');
    expect(deadJob.data).toMatchObject({ job_id: 'queued-renamed', code: 'unknown_job' });
    await waitFor(async () => (await worker.queue.getJobState('queued-renamed')) === 'unknown');
    await t.admin(t.http.get('/v1/usage-events/queued-renamed')).expect(404);
  });

  // Issue 14 item 3: the failed job was kept under the event's job id, so this republish (what the
  // README told gateways to do) was dropped by BullMQ and the event never billed.
  it('bills a dead-lettered event republished with the same job id once its contributor is registered', async () => {
    const payload = exampleEvent({ event_id: 'queued-late-contributor', contributor_id: 'c_late' });
    await publishUsageEvent(worker.queue, payload);
    const letter = await letterOf('queued-late-contributor');
    expect(letter.data).toMatchObject({ code: 'unknown_contributor', job_id: 'queued-late-contributor', data: payload });
    await t.admin(t.http.put('/v1/admin/contributors/c_late')).send({ tier: 'standard', payout_address: CONTRIBUTOR_ADDRESS }).expect(201);
    await waitFor(async () => (await worker.queue.getJobState('queued-late-contributor')) === 'unknown');
    // A plain add, as a gateway without our helper does it.
    await worker.queue.add(JOB_USAGE_EVENT, letter.data.data, { jobId: 'queued-late-contributor', attempts: 20, backoff: { type: 'exponential', delay: 1000 } });
    const stored = await waitFor(() => storedEvent('queued-late-contributor'));
    expect(stored).toMatchObject({ status: 'priced', contributor_id: 'c_late', source: 'queue' });
    await expectLedgerClean(t);
  });

  it('republishDeadLetter: a second failure gets a letter of its own, the fixed republish is billed, letters are removed', async () => {
    const payload = exampleEvent({ event_id: 'queued-twice-dead', contributor_id: 'c_later' });
    await publishUsageEvent(worker.queue, payload);
    const first = await letterOf('queued-twice-dead');
    // Republished at once, before the cause is fixed: it fails again, with a new letter.
    await republishDeadLetter(worker.queue, first);
    const second = await letterOf('queued-twice-dead');
    expect(second.id).not.toBe(first.id);
    expect(second.data.code).toBe('unknown_contributor');
    await t.admin(t.http.put('/v1/admin/contributors/c_later')).send({ tier: 'premium', payout_address: CONTRIBUTOR_ADDRESS }).expect(201);
    await republishDeadLetter(worker.queue, second);
    expect(await waitFor(() => storedEvent('queued-twice-dead'))).toMatchObject({ status: 'priced', contributor_tier: 'premium' });
    expect(await deadLettersOf(worker.dead, 'queued-twice-dead')).toEqual([]);
  });

  it('republishDeadLetter clears a failed job kept under the id (failed before this fix, or stalled too often) instead of being dropped', async () => {
    // A queue of its own, with a worker that fails its job and keeps it, as usage jobs were kept.
    const connection = { url: REDIS_URL };
    const probe = new Queue('usage-kept-failed-probe', { connection, prefix: worker.queuePrefix });
    const failing = new Worker('usage-kept-failed-probe', async () => { throw new Error('boom'); }, { connection, prefix: worker.queuePrefix });
    try {
      const payload = exampleEvent({ event_id: 'kept-failed' });
      await probe.add(JOB_USAGE_EVENT, payload, { jobId: 'kept-failed', attempts: 1, removeOnFail: false });
      await waitFor(async () => (await probe.getJobState('kept-failed')) === 'failed');
      await failing.close();
      const letter = await worker.dead.add('dead-usage-event', { job_id: 'kept-failed', code: 'retries_exhausted', data: payload }, { jobId: 'dead-kept-failed-probe' });
      const job = await republishDeadLetter(probe, letter);
      expect(await probe.getJobState('kept-failed')).toBe('waiting');
      expect(job.data).toEqual(payload);
      expect(await worker.dead.getJob('dead-kept-failed-probe')).toBeUndefined();
    } finally {
      await failing.close();
      await probe.obliterate({ force: true });
      await probe.close();
    }
  });

  // Issue 14 item 7: BullMQ refuses a custom job id it reads as an integer, or with a ':', at add.
  it('queues events whose event_id BullMQ refuses as a job id (numeric, with ":", starting with "~")', async () => {
    const ids = ['1744536634', '-5', 'gw:1', 'a:b:c:d', '~tilde', '~1744536634', 'Jane Doe: 1', 'josé@exämple.org/7'];
    for (const eventId of ids) await publishUsageEvent(worker.queue, exampleEvent({ event_id: eventId }));
    for (const eventId of ids) expect(await waitFor(() => storedEvent(eventId))).toMatchObject({ event_id: eventId, status: 'priced', source: 'queue' });
    // The same event pushed again is still one job and one charge.
    await publishUsageEvent(worker.queue, exampleEvent({ event_id: '1744536634' }));
    expect((await worker.queue.getJob(usageJobId('1744536634')))?.data.event_id).toBe('1744536634');
    await expectLedgerClean(t);
  });

  it('BullMQ accepts usageJobId of any valid event_id at add (generated ids, real Redis)', async () => {
    // A queue nobody consumes: only add's own checks run.
    const probe = new Queue('usage-job-id-probe', { connection: { url: REDIS_URL }, prefix: worker.queuePrefix });
    const printable = fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 256 });
    // Any Unicode text without control characters up to 256 characters (api.md "Ids", issue 34).
    const unicode = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 256 }).filter((text) => !/\p{Cc}/u.test(text));
    const eventIds = fc.oneof(printable, unicode, fc.integer().map(String), fc.constantFrom(':', '~', '0', '%3A', 'alice+x@example.com', 'Jane Doe', ' 12', 'acme/team', 'josé@x:1'));
    try {
      await fc.assert(
        fc.asyncProperty(eventIds, async (eventId) => {
          const jobId = usageJobId(eventId);
          const job = await probe.add(JOB_USAGE_EVENT, { event_id: eventId }, { ...jobOptions(JOB_USAGE_EVENT, exampleEvent({ event_id: eventId }) as never) });
          return job.id === jobId;
        }),
        { numRuns: 300, seed: 20261201 },
      );
    } finally {
      await probe.obliterate({ force: true });
      await probe.close();
    }
  });
});
