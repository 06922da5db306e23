// An API app and an in-process worker on one database and queue prefix, with webhook settings for
// tests (private addresses allowed: the receiver is on 127.0.0.1; fast retries).
import { randomBytes } from 'node:crypto';
import { DatabaseService } from '../../../src/database/database.service.js';
import { WebhookOutbox, type WebhookEventInput } from '../../../src/modules/webhooks/webhook-outbox.service.js';
import { startTestApp, type TestApp } from '../../support/test-app.js';
import { startTestWorker } from '../../support/test-worker.js';

export const WEBHOOK_TEST_ENV = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '100' } as const;

export interface WebhookHarness {
  t: TestApp;
  db: DatabaseService;
  env: Record<string, string>;
  startWorker(extra?: Record<string, string>): Promise<void>;
  stopWorker(): Promise<void>;
  /** Records events through the outbox in one committed transaction. */
  emit(events: WebhookEventInput[]): Promise<number>;
  sql<T extends Record<string, unknown>>(text: string, params?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export async function startWebhookHarness(label: string, env: Record<string, string> = {}): Promise<WebhookHarness> {
  const fullEnv: Record<string, string> = { ...WEBHOOK_TEST_ENV, QUEUE_PREFIX: `test-${randomBytes(4).toString('hex')}`, ...env };
  const t = await startTestApp(label, fullEnv);
  const db = t.app.get(DatabaseService);
  let worker: Awaited<ReturnType<typeof startTestWorker>> | null = null;
  const h: WebhookHarness = {
    t,
    db,
    env: { ...fullEnv, DATABASE_URL: t.databaseUrl },
    startWorker: async (extra = {}) => {
      worker = await startTestWorker(t.databaseUrl, { ...fullEnv, ...extra });
    },
    stopWorker: async () => {
      await worker?.close();
      worker = null;
    },
    emit: (events) => db.transaction((client) => t.app.get(WebhookOutbox).emit(client, events)),
    sql: async (text, params = []) => (await db.pool.query(text, params)).rows,
    close: async () => {
      await h.stopWorker();
      await t.close();
    },
  };
  return h;
}

export function holdExpired(holdId: string, overrides: Partial<WebhookEventInput<'hold.expired'>> = {}): WebhookEventInput<'hold.expired'> {
  return { type: 'hold.expired', data: { hold_id: holdId, user_id: 'u_42', amount_usd: '1.5', expires_at: '2026-12-01T10:00:00.000Z' }, occurredAt: new Date(), ...overrides };
}
