// "The key is shown once": after POST /v1/admin/api-keys, no response, audit entry, database
// column or log line holds the secret again.
import { createHash } from 'node:crypto';
import { DatabaseService } from '../../../src/database/database.service.js';
import { TEST_ADMIN_KEY } from '../../support/test-app.js';
import { createTestDatabase } from '../../support/test-db.js';
import { startAppProcess } from './app-process.js';
import type { SecurityFixture } from './security-fixture.js';

export function secretsFoundIn(texts: Iterable<string>, secrets: string[]): string[] {
  const found = new Set<string>();
  for (const text of texts) {
    for (const secret of secrets) if (text.includes(secret)) found.add(`${secret.slice(0, 12)}...`);
  }
  return [...found];
}

/** Every audit entry, through the API, page by page. */
export async function auditLogTexts(f: SecurityFixture): Promise<{ texts: string[]; entries: Array<Record<string, unknown>> }> {
  const texts: string[] = [];
  const entries: Array<Record<string, unknown>> = [];
  let cursor: string | null = null;
  for (let page = 0; page < 100; page += 1) {
    const res: { text: string; body: { data: unknown[]; next_cursor: string | null } } = await f.t.admin(f.t.http.get('/v1/admin/audit-log').query(cursor ? { limit: 500, cursor } : { limit: 500 })).expect(200);
    texts.push(res.text);
    entries.push(...(res.body.data as Array<Record<string, unknown>>));
    cursor = res.body.next_cursor;
    if (!cursor) break;
  }
  return { texts, entries };
}

/** Rows of the tables that could hold a key, as text; and whether each stored hash matches. */
export async function databaseTexts(f: SecurityFixture): Promise<{ texts: string[]; hashesMatch: boolean }> {
  const pool = f.t.app.get(DatabaseService).pool;
  const keys = await pool.query<{ row: string; key_hash: string }>('SELECT k::text AS row, k.key_hash FROM api_keys k');
  const audit = await pool.query<{ row: string }>('SELECT a::text AS row FROM audit_log a');
  const hashes = new Set(keys.rows.map((r) => r.key_hash));
  const hashesMatch = f.createdSecrets.every((secret) => hashes.has(createHash('sha256').update(secret, 'utf8').digest('hex')));
  return { texts: [...keys.rows.map((r) => r.row), ...audit.rows.map((r) => r.row)], hashesMatch };
}

/**
 * Runs the real service (src/main.ts) at LOG_LEVEL=trace, creates keys and uses them every way
 * (accepted, forbidden, bad body, revoked, wrong scheme), and returns what the process logged.
 */
export async function logsWhileUsingKeys(): Promise<{ output: string; secrets: string[] }> {
  const db = await createTestDatabase('sec_logs');
  const app = await startAppProcess({ DATABASE_URL: db.url, ADMIN_API_KEY: TEST_ADMIN_KEY, LOG_LEVEL: 'trace', AUTH_FAILURES_PER_MINUTE: '1000' });
  let secrets: string[] = [TEST_ADMIN_KEY];
  try {
    const call = (method: string, path: string, key: string | null, body?: unknown, scheme = 'Bearer') =>
      fetch(`${app.baseUrl}${path}`, {
        method,
        headers: { ...(key ? { authorization: `${scheme} ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const created = await call('POST', '/v1/admin/api-keys', TEST_ADMIN_KEY, { role: 'gateway', name: 'log probe' });
    if (created.status !== 201) throw new Error(`key creation failed: ${created.status} ${await created.text()}`);
    const { id, key } = (await created.json()) as { id: string; key: string };
    const contributor = (await (await call('POST', '/v1/admin/api-keys', TEST_ADMIN_KEY, { role: 'contributor', contributor_id: 'c_log' })).json()) as { key: string };
    await call('GET', '/v1/users/u_log/balance', key);
    await call('POST', '/v1/admin/api-keys', key, { role: 'admin' }); // 403
    await call('POST', '/v1/usage-events', key, { event_id: 'log-1' }); // 400
    await call('GET', '/v1/contributors/c_other/balance', contributor.key); // 403 (IDOR)
    await call('GET', '/v1/admin/overview', key, undefined, 'Basic'); // 401 malformed
    await call('DELETE', `/v1/admin/api-keys/${id}`, TEST_ADMIN_KEY);
    await call('GET', '/v1/users/u_log/balance', key); // 401 revoked
    await call('GET', '/v1/admin/audit-log', TEST_ADMIN_KEY);
    secrets = [key, contributor.key, TEST_ADMIN_KEY];
  } finally {
    await app.stop(); // shutdown logs included
    await db.drop();
  }
  return { output: app.output(), secrets };
}
