// The gateway's queue path, as a gateway would use it: publishUsageEvent on the usage-events queue.
import { Queue } from 'bullmq';
import { publishUsageEvent, QUEUE_USAGE_EVENTS } from '../../../src/queue/usage-events.producer.js';
import { QUEUE_USAGE_EVENTS_DEAD } from '../../../src/queue/queue-names.js';
import type { UsageBody } from './usage-oracle.js';
import { waitFor } from '../../support/test-worker.js';

const COUNTS_ATTEMPTS_MAX = 20;

export interface QueueClient {
  queue: Queue;
  dead: Queue;
  /** Resolves true when Redis took the job (a second add of a live job id is a no-op in BullMQ). */
  publish(event: UsageBody): Promise<boolean>;
  counts(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export function queueClient(input: { redisUrl: string; prefix: string }): QueueClient {
  // Fail fast while Redis is down instead of buffering the add in memory.
  const connection = { url: input.redisUrl, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2_000 };
  const queue = new Queue(QUEUE_USAGE_EVENTS, { connection, prefix: input.prefix });
  const dead = new Queue(QUEUE_USAGE_EVENTS_DEAD, { connection, prefix: input.prefix });
  queue.on('error', () => undefined);
  dead.on('error', () => undefined);
  return {
    queue,
    dead,
    publish: async (event) => {
      try {
        await publishUsageEvent(queue, event as unknown as { event_id: string } & Record<string, unknown>);
        return true;
      } catch {
        return false;
      }
    },
    counts: async () => {
      // Right after a Redis restart the client may still be reconnecting: try again shortly.
      for (let attempt = 1; ; attempt += 1) {
        try {
          return {
            ...(await queue.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed', 'prioritized', 'waiting-children')),
            dead: await dead.count(),
          };
        } catch (error) {
          if (attempt >= COUNTS_ATTEMPTS_MAX) throw error;
          await new Promise((resolve) => setTimeout(resolve, 500));
        }
      }
    },
    close: async () => {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await dead.obliterate({ force: true }).catch(() => undefined);
      await queue.close().catch(() => undefined);
      await dead.close().catch(() => undefined);
    },
  };
}

/** True when nothing is left to process (waiting, active, delayed, prioritized). */
export function queueDrained(counts: Record<string, number>): boolean {
  return (counts.waiting ?? 0) + (counts.active ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0) === 0;
}

/** Waits until the usage queue has nothing waiting, active or delayed; returns its counts then. */
export function waitQueueDrained(queue: QueueClient, timeoutMs: number, pollMs = 250): Promise<Record<string, number>> {
  return waitFor(async () => {
    const counts = await queue.counts();
    return queueDrained(counts) ? counts : null;
  }, timeoutMs, pollMs);
}
