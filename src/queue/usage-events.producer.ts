// How a gateway publishes a usage event on the queue (also used by tests and the demo), and how it
// republishes one from a dead letter once the cause is fixed.
import type { Job, Queue } from 'bullmq';
import { jobOptions, type JobPayload } from './jobs.js';
import { JOB_USAGE_EVENT, QUEUE_USAGE_EVENTS } from './queue-names.js';
import { isSignedUsageJob } from './signed-usage-job.js';
import { usageJobId } from './usage-job-id.js';

/** The job's options come from the catalogue (job id = usageJobId(event_id); see jobs.ts). */
export function publishUsageEvent(queue: Queue, payload: { event_id: string } & Record<string, unknown>) {
  return queue.add(JOB_USAGE_EVENT, payload, jobOptions(JOB_USAGE_EVENT, payload as JobPayload<typeof JOB_USAGE_EVENT>));
}

/** How long republishDeadLetter waits for the failing job to leave its id (it is removed as it fails). */
const JOB_ID_FREE_WAIT_MS = 10_000;
const JOB_ID_FREE_POLL_MS = 50;

/**
 * Republishes the event of a dead letter (a job of `usage-events-dead`) under its job id, then
 * removes the letter; the event is then billed like any queued event (or dead-lettered again with a
 * new letter). Fails loudly rather than drop: a signed job must be signed again (its signature is
 * held against the enqueue time), and an id still held by a job that does not leave is an error.
 * A job already waiting or completed under that id means the event was republished already.
 */
export async function republishDeadLetter(queue: Queue, letter: Job<{ data: unknown }>): Promise<Job> {
  const data = letter.data.data;
  if (isSignedUsageJob(data)) throw new Error('a signed usage job cannot be republished as is: sign it again with publishSignedUsageEvent');
  const eventId = (data as { event_id?: unknown } | null)?.event_id;
  if (typeof eventId !== 'string') throw new Error('the dead letter holds no event_id: nothing to republish');
  const jobId = usageJobId(eventId);
  const deadline = Date.now() + JOB_ID_FREE_WAIT_MS;
  let state = await queue.getJobState(jobId);
  // The letter is written just before its job fails and is removed.
  while (state === 'active' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, JOB_ID_FREE_POLL_MS));
    state = await queue.getJobState(jobId);
  }
  // A failed job kept under the id (failed before dead letters freed it, or stalled too often).
  if (state === 'failed') await queue.remove(jobId);
  else if (state !== 'unknown') {
    const held = await queue.getJob(jobId);
    if (state === 'active' || !held) throw new Error(`job id ${jobId} is still held by a job in state ${state}: not republished`);
    await letter.remove();
    return held;
  }
  const job = await publishUsageEvent(queue, data as { event_id: string } & Record<string, unknown>);
  await letter.remove();
  return job;
}

/** The dead letters of one event, oldest first (letters wait in `usage-events-dead` until removed). */
export async function deadLettersOf(deadQueue: Queue, eventId: string): Promise<Job[]> {
  const jobId = usageJobId(eventId);
  const letters = (await deadQueue.getJobs(['waiting', 'prioritized', 'delayed'])) as Job[];
  return letters.filter((letter) => letter?.data?.job_id === jobId).sort((a, b) => a.timestamp - b.timestamp);
}

export { QUEUE_USAGE_EVENTS };
