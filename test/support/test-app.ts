import type { INestApplication } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createHttpApp } from '../../src/http-app.js';
import { createTestDatabase } from './test-db.js';

export const TEST_ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export interface TestApp {
  app: INestApplication;
  http: ReturnType<typeof request>;
  databaseUrl: string;
  /** Its queue prefix: another replica of it must use the same one to share limits and replay ids. */
  queuePrefix: string;
  admin: (req: request.Test) => request.Test;
  close: () => Promise<void>;
}

/** The real HTTP app on its own fresh database (real Postgres and Redis). */
export async function startTestApp(label: string, env: Partial<Record<string, string>> = {}): Promise<TestApp> {
  const db = await createTestDatabase(label);
  // Its own queue prefix, so the shared rate limits and replay ids in Redis are its own too.
  const QUEUE_PREFIX = `test-${randomBytes(4).toString('hex')}`;
  const app = await createHttpApp({ DATABASE_URL: db.url, ADMIN_API_KEY: TEST_ADMIN_KEY, LOG_LEVEL: 'error', QUEUE_PREFIX, ...env });
  await app.init();
  // Fastify answers only once its plugins have loaded; supertest talks to the bare Node server.
  await app.getHttpAdapter().getInstance().ready();
  const http = request(app.getHttpServer());
  return {
    app,
    http,
    databaseUrl: db.url,
    queuePrefix: env.QUEUE_PREFIX ?? QUEUE_PREFIX,
    admin: (req) => req.set('Authorization', `Bearer ${TEST_ADMIN_KEY}`),
    close: async () => {
      await app.close();
      await db.drop();
    },
  };
}

/**
 * One test app for the enclosing describe: started in its beforeAll, closed in its afterAll. The
 * handle reads the started app, so use it inside tests and hooks (before the start it throws).
 */
export function testAppForSuite(label: string, env: Partial<Record<string, string>> = {}): TestApp {
  let started: TestApp | null = null;
  beforeAll(async () => {
    started = await startTestApp(label, env);
  });
  afterAll(async () => {
    await started?.close();
  });
  const current = (): TestApp => {
    if (!started) throw new Error(`test app ${label} is not started yet: use it inside a test or hook`);
    return started;
  };
  return {
    get app() {
      return current().app;
    },
    get http() {
      return current().http;
    },
    get databaseUrl() {
      return current().databaseUrl;
    },
    get queuePrefix() {
      return current().queuePrefix;
    },
    admin: (req) => current().admin(req),
    close: () => current().close(),
  };
}
