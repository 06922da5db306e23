// What the `npm run archive` tests run on: a test app seeded for billing, a direct connection to
// its database (to settle months and read balances as the archive sees them) and a temporary
// folder for the archive files; close() releases all three.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { seedBilling } from './billing-fixtures.js';
import { startTestApp, type TestApp } from './test-app.js';

export interface ArchiveTestApp {
  t: TestApp;
  db: pg.Client;
  /** Where archiveUsage writes its files and manifest. */
  outDir: string;
  close(): Promise<void>;
}

export async function startArchiveTestApp(label: string, options: { userCreditUsd: string; env?: Partial<Record<string, string>> }): Promise<ArchiveTestApp> {
  const t = await startTestApp(label, options.env);
  const db = new pg.Client({ connectionString: t.databaseUrl });
  await db.connect();
  const outDir = await mkdtemp(join(tmpdir(), `${label.replace(/_/g, '-')}-`));
  await seedBilling(t, { userCreditUsd: options.userCreditUsd });
  return {
    t,
    db,
    outDir,
    close: async () => {
      await db.end();
      await t.close();
      await rm(outDir, { recursive: true, force: true });
    },
  };
}
