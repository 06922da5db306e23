// Signed usage jobs on the BullMQ queue: the worker verifies them as the API verifies requests.
import { Queue } from 'bullmq';
import { publishSignedUsageEvent, signedUsageJob } from '../../src/queue/signed-usage-events.producer.js';
import { deadLettersOf, publishUsageEvent } from '../../src/queue/usage-events.producer.js';
import { JOB_USAGE_EVENT as USAGE_JOB_NAME } from '../../src/queue/queue-names.js';
import { jobOptions } from '../../src/queue/jobs.js';

const usageJobOptions = (jobId: string) => ({ ...jobOptions(USAGE_JOB_NAME, { event_id: jobId } as never), jobId });
import { exampleEvent, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import { startWorkerWithUsageQueues, waitFor, type WorkerWithUsageQueues } from '../support/test-worker.js';

let t: TestApp;
let worker: WorkerWithUsageQueues;
let signer: { keyId: string; signingSecret: string };

async function stored(eventId: string): Promise<boolean> {
  return (await t.admin(t.http.get(`/v1/usage-events/${eventId}`))).status === 200;
}

beforeAll(async () => {
  t = await startTestApp('signed_queue');
  await seedBilling(t);
  const key = await t.admin(t.http.post('/v1/admin/api-keys')).send({ role: 'gateway', signed: true }).expect(201);
  signer = { keyId: key.body.id, signingSecret: key.body.signing_secret };
  worker = await startWorkerWithUsageQueues(t.databaseUrl, { USAGE_QUEUE_SIGNED_ONLY: 'true' });
});
afterAll(async () => {
  await worker?.close();
  await t?.close();
});

describe('signed usage jobs', () => {
  it('bills a job signed with the gateway key', async () => {
    await publishSignedUsageEvent(worker.queue, signer, exampleEvent({ event_id: 'sq-ok-1' }));
    await waitFor(() => stored('sq-ok-1'));
  });

  it('dead-letters as bad_signature: an altered body, another secret, a stale timestamp, a replayed id, and (signed-only) an unsigned job', async () => {
    const job = await publishSignedUsageEvent(worker.queue, signer, exampleEvent({ event_id: 'sq-src' }));
    await waitFor(() => stored('sq-src'));
    const signed = (job.data as { signed: Record<string, string> }).signed;
    const cases: Array<[string, Record<string, unknown>, Record<string, unknown>]> = [
      ['sq-altered', { signed: { ...signed, body: signed.body!.replace('sq-src', 'sq-altered') } }, {}],
      ['sq-replayed', { signed: { ...signed, body: signed.body } }, {}],
    ];
    // The signed text is the whole payload: every billing field is covered, none can be re-aimed.
    const source = JSON.parse(signed.body!) as ReturnType<typeof exampleEvent>;
    const reaimed: Array<[string, Record<string, unknown>]> = [
      ['sq-other-user', { user_id: 'u_other' }],
      ['sq-other-contributor', { contributor_id: 'c_other' }],
      ['sq-more-tokens', { usage: { ...source.usage, prompt_tokens: 5_000_000 } }],
      ['sq-other-model', { model: 'openai/gpt-4o-mini' }],
      ['sq-other-hold', { hold_id: 'h_other' }],
    ];
    for (const [eventId, change] of reaimed) {
      cases.push([eventId, { signed: { ...signed, body: JSON.stringify({ ...source, event_id: eventId, ...change }) } }, {}]);
    }
    for (const [jobId, data] of cases) await worker.queue.add(USAGE_JOB_NAME, data, usageJobOptions(jobId));
    await publishSignedUsageEvent(worker.queue, { keyId: signer.keyId, signingSecret: `whsec_${Buffer.alloc(32, 9).toString('base64')}` }, exampleEvent({ event_id: 'sq-wrong-key' }));
    // Signed 6 minutes before it was queued (the job's own timestamp is the reference): refused.
    await worker.queue.add(USAGE_JOB_NAME, signedUsageJob(signer, exampleEvent({ event_id: 'sq-stale-6' }), { now: new Date(Date.now() - 6 * 60_000) }), usageJobOptions('sq-stale-6'));
    // Signed a minute before it was queued: within the 5 minutes, billed.
    await worker.queue.add(USAGE_JOB_NAME, signedUsageJob(signer, exampleEvent({ event_id: 'sq-recent' }), { now: new Date(Date.now() - 60_000) }), usageJobOptions('sq-recent'));
    await publishUsageEvent(worker.queue, exampleEvent({ event_id: 'sq-unsigned' }));
    const reaimedIds = reaimed.map(([eventId]) => eventId);
    for (const jobId of ['sq-altered', 'sq-replayed', 'sq-wrong-key', 'sq-stale-6', 'sq-unsigned', ...reaimedIds]) {
      const [deadJob] = await waitFor(async () => ((await deadLettersOf(worker.dead, jobId)).length > 0 ? deadLettersOf(worker.dead, jobId) : null));
      expect({ jobId, code: deadJob!.data.code }).toEqual({ jobId, code: 'bad_signature' });
    }
    for (const eventId of ['sq-altered', 'sq-wrong-key', 'sq-stale-6', 'sq-unsigned', ...reaimedIds]) expect(await stored(eventId)).toBe(false);
    await waitFor(() => stored('sq-recent'));
  });
});
