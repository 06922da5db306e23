// How a gateway with a signed key publishes a usage event on the queue: a Standard Webhooks
// signature over the payload's JSON text, which travels as text inside the job (a parsed object
// re-serialized by another client need not give the same bytes). The text is the whole payload,
// so every billing field is signed (a job has no method, path or query to re-aim: HTTP requests
// need RFC 9421 for those, see http-message-signature.ts).
import type { Queue } from 'bullmq';
import { randomUUID } from 'node:crypto';
import { signStandardWebhook } from '../common/signing/standard-webhooks.js';
import { jobOptions, type JobPayload } from './jobs.js';
import { JOB_USAGE_EVENT } from './queue-names.js';
import type { SignedUsageJob } from './signed-usage-job.js';
import { usageJobId } from './usage-job-id.js';

/** The job data for one signed usage event (job id = usageJobId(event_id), as for unsigned ones). */
export function signedUsageJob(signer: { keyId: string; signingSecret: string }, payload: { event_id: string } & Record<string, unknown>, options: { now?: Date } = {}): SignedUsageJob {
  const body = JSON.stringify(payload);
  // A fresh id per job: the worker refuses an id another job already used (replay).
  const headers = signStandardWebhook(signer.signingSecret, { id: `job_${randomUUID()}`, timestamp: options.now ?? new Date(), body });
  return {
    signed: { key_id: signer.keyId, webhook_id: headers['webhook-id'], webhook_timestamp: headers['webhook-timestamp'], webhook_signature: headers['webhook-signature'], body },
  };
}

/**
 * Signs and publishes one usage event. keyId is the `id` POST /v1/admin/api-keys returned for the
 * signed gateway key; the worker verifies with that key's signing secret.
 */
export function publishSignedUsageEvent(queue: Queue, signer: { keyId: string; signingSecret: string }, payload: { event_id: string } & Record<string, unknown>, options: { now?: Date } = {}) {
  const data = signedUsageJob(signer, payload, options);
  return queue.add(JOB_USAGE_EVENT, data, { ...jobOptions(JOB_USAGE_EVENT, data as JobPayload<typeof JOB_USAGE_EVENT>), jobId: usageJobId(payload.event_id), ...(options.now ? { timestamp: options.now.getTime() } : {}) });
}
