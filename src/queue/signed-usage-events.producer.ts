// How a gateway with a signed key publishes a usage event on the queue: the same Standard Webhooks
// signature as over HTTP, over the payload's JSON text, which travels as text inside the job (a
// parsed object re-serialized by another client need not give the same bytes).
import type { Queue } from 'bullmq';
import { signGatewayRequest } from './gateway-signing.js';
import { jobOptions, type JobPayload } from './jobs.js';
import { JOB_USAGE_EVENT } from './queue-names.js';
import type { SignedUsageJob } from './signed-usage-job.js';
import { usageJobId } from './usage-job-id.js';

/** The job data for one signed usage event (job id = usageJobId(event_id), as for unsigned ones). */
export function signedUsageJob(signer: { keyId: string; signingSecret: string }, payload: { event_id: string } & Record<string, unknown>, options: { now?: Date } = {}): SignedUsageJob {
  const body = JSON.stringify(payload);
  const headers = signGatewayRequest(signer.signingSecret, body, { now: options.now });
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
