// How a gateway with a signed key publishes a usage event on the queue: the same Standard Webhooks
// signature as over HTTP, over the payload's JSON text, which travels as text inside the job (a
// parsed object re-serialized by another client need not give the same bytes).
import type { Queue } from 'bullmq';
import { z } from 'zod';
import { signGatewayRequest } from './gateway-signing.js';
import { usageJobOptions, USAGE_JOB_NAME } from './usage-events.producer.js';

/** Longest signed payload text (a usage event is at most a few KiB; metadata included). */
export const SIGNED_JOB_BODY_BYTES_MAX = 1024 * 1024;

/** The job data of a signed usage event. */
export const signedUsageJobSchema = z
  .object({
    signed: z
      .object({
        key_id: z.string().uuid(),
        webhook_id: z.string().max(128),
        webhook_timestamp: z.string().max(16),
        webhook_signature: z.string().max(1024),
        body: z.string().max(SIGNED_JOB_BODY_BYTES_MAX),
      })
      .strict(),
  })
  .strict();
export type SignedUsageJob = z.output<typeof signedUsageJobSchema>;

export function isSignedUsageJob(data: unknown): boolean {
  return typeof data === 'object' && data !== null && 'signed' in data;
}

/**
 * Signs and publishes one usage event. key_id is the `id` POST /v1/admin/api-keys returned for the
 * signed gateway key; the worker verifies with that key's signing secret. Job id = event_id.
 */
export function publishSignedUsageEvent(queue: Queue, signer: { keyId: string; signingSecret: string }, payload: { event_id: string } & Record<string, unknown>, options: { now?: Date } = {}) {
  const body = JSON.stringify(payload);
  const headers = signGatewayRequest(signer.signingSecret, body, { now: options.now });
  const data: SignedUsageJob = {
    signed: {
      key_id: signer.keyId,
      webhook_id: headers['webhook-id'],
      webhook_timestamp: headers['webhook-timestamp'],
      webhook_signature: headers['webhook-signature'],
      body,
    },
  };
  return queue.add(USAGE_JOB_NAME, data, { ...usageJobOptions(payload.event_id), ...(options.now ? { timestamp: options.now.getTime() } : {}) });
}
