// Each test file gets its own database, cloned from a template migrated once by global-setup,
// so files run in parallel against a real Postgres without seeing each other's rows.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const TEST_PG_BASE_URL = process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';
export const TEMPLATE_DB = process.env.TEST_TEMPLATE_DB ?? 'ledger_test_template';
const CREATE_ATTEMPTS_MAX = 10;

export function databaseUrl(name: string): string {
  return `${TEST_PG_BASE_URL}/${name}`;
}

/** One statement on the server's maintenance database (`postgres`): CREATE / DROP DATABASE. */
export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl('postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Drops a test database even while connections to it are still open. */
export function dropDatabase(name: string): Promise<void> {
  return adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
}

/** Creates a fresh migrated database; returns its URL and a function that drops it. */
export async function createTestDatabase(label = 'test'): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const safeLabel = label.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 30);
  const name = `lt_${safeLabel}_${randomBytes(4).toString('hex')}`;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${TEMPLATE_DB}"`);
      break;
    } catch (error) {
      // Another file cloning the template at the same moment: wait and retry.
      if (attempt >= CREATE_ATTEMPTS_MAX || !/being accessed by other users/.test((error as Error).message)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
    }
  }
  return {
    name,
    url: databaseUrl(name),
    drop: () => dropDatabase(name),
  };
}
