// How a gateway publishes a usage event on the queue (also used by tests and the demo).
import type { Queue } from 'bullmq';
import { jobOptions, type JobPayload } from './jobs.js';
import { JOB_USAGE_EVENT, QUEUE_USAGE_EVENTS } from './queue-names.js';

/** The job's options come from the catalogue (job id = event_id; see jobs.ts). */
export function publishUsageEvent(queue: Queue, payload: { event_id: string } & Record<string, unknown>) {
  return queue.add(JOB_USAGE_EVENT, payload, jobOptions(JOB_USAGE_EVENT, payload as JobPayload<typeof JOB_USAGE_EVENT>));
}

export { QUEUE_USAGE_EVENTS };
