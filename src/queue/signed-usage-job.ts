// The job data of a signed usage event (see signed-usage-events.producer.ts): the payload's JSON
// text with its Standard Webhooks signature and the signing key's id.
import { z } from 'zod';

/** Longest signed payload text (a usage event is at most a few KiB; metadata included). */
export const SIGNED_JOB_BODY_BYTES_MAX = 1024 * 1024;

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

export function isSignedUsageJob(data: unknown): data is { signed: unknown } {
  return typeof data === 'object' && data !== null && 'signed' in data;
}
