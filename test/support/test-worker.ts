import type { INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { randomBytes } from 'node:crypto';
import { WorkerModule } from '../../src/worker.module.js';

/** The real worker (BullMQ processors) on a test database, with its own queue prefix. */
export async function startTestWorker(databaseUrl: string, env: Partial<Record<string, string>> = {}) {
  const queuePrefix = env.QUEUE_PREFIX ?? `test-${randomBytes(4).toString('hex')}`;
  const worker: INestApplicationContext = await NestFactory.createApplicationContext(
    WorkerModule.forRoot({ DATABASE_URL: databaseUrl, QUEUE_PREFIX: queuePrefix, LOG_LEVEL: 'error', SETTLEMENT_SCHEDULER_ENABLED: 'false', ...env }),
    { logger: false },
  );
  await worker.init();
  return { worker, queuePrefix, close: () => worker.close() };
}

export { waitFor } from './wait-for.js';
