// For measurement scripts: a scratch database, and the part of DatabaseService the spend repositories use (pool, transaction), over a bare pg.Pool:
// for measurement scripts that run repositories without the Nest app.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate } from './migrate.js';
import type { DatabaseService, SqlClient } from '../../src/database/database.service.js';

export function poolDatabase(pool: pg.Pool): DatabaseService {
  const transaction = async <T>(fn: (client: SqlClient) => Promise<T>): Promise<T> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const value = await fn(client);
      await client.query('COMMIT');
      return value;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
  return { pool, transaction } as unknown as DatabaseService;
}

/**
 * A fresh, migrated database named `<label>_<random>` for `fn`, dropped after it (connections and
 * all) whether it succeeds or fails; a failure is printed and sets the exit code.
 */
export async function withScratchDatabase(baseUrl: string, label: string, fn: (url: string) => Promise<void>): Promise<void> {
  const name = `${label}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: `${baseUrl}/postgres` });
  await admin.connect();
  try {
    await migrate(`${baseUrl}/${name}`);
    await fn(`${baseUrl}/${name}`);
  } catch (error) {
    console.error(`bench failed: ${(error as Error).message}`);
    process.exitCode = 1;
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  }
}
