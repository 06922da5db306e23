// Job options of the webhook queues (one place, as src/queue/ keeps queue and job names).
import type { JobsOptions } from 'bullmq';

/**
 * One dispatch job per endpoint at a time: the job id is the endpoint's, so a second add while one
 * waits or runs is dropped (the relay adds again on its next tick if work is still due). Finished
 * jobs are removed at once so the id is free again. A failed job (the database was down) is not
 * retried by BullMQ: the next relay tick enqueues the endpoint again.
 */
export function dispatchJobOptions(endpointId: string): JobsOptions {
  return { jobId: `dispatch-${endpointId}`, attempts: 1, removeOnComplete: true, removeOnFail: true };
}

/** Endpoints enqueued per relay tick at most. */
export const DISPATCH_JOBS_PER_TICK_MAX = 1_000;
/** Outbox events fanned out per relay statement. */
export const RELAY_BATCH_EVENTS_MAX = 500;
/** Relay statements per tick at most (then the next tick goes on). */
export const RELAY_BATCHES_PER_TICK_MAX = 20;
/** Endpoints dispatched at once per worker process. */
export const WEBHOOK_DISPATCH_CONCURRENCY = 8;
/**
 * A dispatch job whose worker died is picked up again after at most this long (BullMQ's stalled
 * check). Each attempt is at most 10 s and the lock is renewed while the job runs.
 */
export const WEBHOOK_DISPATCH_LOCK_MS = 15_000;
