// The usage audit's end-to-end set-up shared by its specs: the API and the real worker on one test
// database and queue prefix, a GPT-4o price, a funded user u_a, standard contributors, and an admin
// webhook for contributor.usage_anomaly (kept in the outbox: nothing listens on port 9).
import { randomBytes } from 'node:crypto';
import { UsageAuditProducer } from '../../../src/modules/usage-audit/usage-audit.producer.js';
import { UsageAuditService } from '../../../src/modules/usage-audit/usage-audit.service.js';
import { DatabaseService } from '../../../src/database/database.service.js';
import { GPT4O } from '../../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../../support/test-app.js';
import { startTestWorker, waitFor, type TestWorker } from '../../support/test-worker.js';

/** Stream posts in flight at once. */
const POST_CONCURRENCY = 8;

export interface AuditStack {
  t: TestApp;
  worker: TestWorker;
  audit: UsageAuditService;
}

export async function startAuditStack(label: string, appEnv: Record<string, string>, options: { userCreditUsd: string; contributors: string[] }): Promise<AuditStack> {
  const t = await startTestApp(label, { ...appEnv, WEBHOOK_ALLOW_PRIVATE: 'true' });
  const worker = await startTestWorker(t.databaseUrl, { QUEUE_PREFIX: t.queuePrefix, WEBHOOK_ALLOW_PRIVATE: 'true' });
  await t.admin(t.http.post('/v1/admin/prices')).send({ model: GPT4O, input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', effective_from: '2026-01-01T00:00:00Z' }).expect(201);
  await t.admin(t.http.post('/v1/admin/users/u_a/credits')).send({ amount_usd: options.userCreditUsd, reference: 'seed-u_a' }).expect(201);
  for (const id of options.contributors) {
    await t.admin(t.http.put(`/v1/admin/contributors/${id}`)).send({ tier: 'standard', payout_address: `0x${randomBytes(20).toString('hex')}` }).expect(201);
  }
  await t.admin(t.http.post('/v1/admin/webhooks')).send({ url: 'http://127.0.0.1:9/hook', events: ['contributor.usage_anomaly'] }).expect(201);
  return { t, worker, audit: worker.worker.get(UsageAuditService) };
}

/** Sends the posts POST_CONCURRENCY at a time, then waits until the worker has stored a sample of each. */
export async function postAndCount(t: TestApp, posts: Array<() => Promise<unknown>>, timeoutMs: number): Promise<void> {
  for (let i = 0; i < posts.length; i += POST_CONCURRENCY) await Promise.all(posts.slice(i, i + POST_CONCURRENCY).map((p) => p()));
  await t.app.get(UsageAuditProducer).flush();
  const db = t.app.get(DatabaseService);
  await waitFor(async () => (await db.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_audit_samples')).rows[0]!.n === posts.length, timeoutMs);
}
