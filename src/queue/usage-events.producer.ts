// How a gateway publishes a usage event on the queue (also used by tests and the demo).
import type { JobsOptions, Queue } from 'bullmq';
import { QUEUE_USAGE_EVENTS } from './queue-names.js';

export const USAGE_JOB_NAME = 'usage-event';
export const USAGE_JOB_ATTEMPTS = 20;
export const USAGE_JOB_BACKOFF_MS = 1_000;

/** Job id = event_id: BullMQ drops a second add while the first is kept; the ledger dedupes anyway. */
export function usageJobOptions(eventId: string): JobsOptions {
  return {
    jobId: eventId,
    attempts: USAGE_JOB_ATTEMPTS,
    backoff: { type: 'exponential', delay: USAGE_JOB_BACKOFF_MS },
    removeOnComplete: { age: 24 * 3600, count: 100_000 },
    removeOnFail: false,
  };
}

export function publishUsageEvent(queue: Queue, payload: { event_id: string } & Record<string, unknown>) {
  return queue.add(USAGE_JOB_NAME, payload, usageJobOptions(payload.event_id));
}

export { QUEUE_USAGE_EVENTS };
