import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Queue } from 'bullmq';
import { randomBytes } from 'node:crypto';
import { QUEUE_USAGE_EVENTS, QUEUE_USAGE_EVENTS_DEAD } from '../../src/queue/queue-names.js';
import { WorkerModule } from '../../src/worker.module.js';

export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestWorker {
  worker: INestApplicationContext;
  queuePrefix: string;
  close(): Promise<void>;
}

/** The real worker (BullMQ processors) on a test database, with its own queue prefix. */
export async function startTestWorker(databaseUrl: string, env: Partial<Record<string, string>> = {}): Promise<TestWorker> {
  const queuePrefix = env.QUEUE_PREFIX ?? `test-${randomBytes(4).toString('hex')}`;
  const worker: INestApplicationContext = await NestFactory.createApplicationContext(
    WorkerModule.forRoot({ DATABASE_URL: databaseUrl, QUEUE_PREFIX: queuePrefix, LOG_LEVEL: 'error', SETTLEMENT_SCHEDULER_ENABLED: 'false', ...env }),
    { logger: false },
  );
  await worker.init();
  return { worker, queuePrefix, close: () => worker.close() };
}

/** The real worker plus the usage-events queue and its dead letters under its prefix (what a gateway publishes to). */
export interface WorkerWithUsageQueues extends TestWorker {
  queue: Queue;
  dead: Queue;
}

/** close() empties and closes both queues, then stops the worker. */
export async function startWorkerWithUsageQueues(databaseUrl: string, env: Partial<Record<string, string>> = {}): Promise<WorkerWithUsageQueues> {
  const started = await startTestWorker(databaseUrl, env);
  const connection = { url: TEST_REDIS_URL };
  const queue = new Queue(QUEUE_USAGE_EVENTS, { connection, prefix: started.queuePrefix });
  const dead = new Queue(QUEUE_USAGE_EVENTS_DEAD, { connection, prefix: started.queuePrefix });
  return {
    ...started,
    queue,
    dead,
    close: async () => {
      await queue.obliterate({ force: true }).catch(() => undefined);
      await dead.obliterate({ force: true }).catch(() => undefined);
      await queue.close();
      await dead.close();
      await started.close();
    },
  };
}

export { waitFor } from './wait-for.js';
