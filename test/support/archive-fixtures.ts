// What the `npm run archive` tests run on: a test app seeded for billing, a direct connection to
// its database (to settle months and read balances as the archive sees them) and a temporary
// folder for the archive files, made in the enclosing describe's beforeAll and released after it.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { seedBilling } from './billing-fixtures.js';
import { suiteSql } from './suite-sql.js';
import { testAppForSuite, type TestApp } from './test-app.js';

export interface ArchiveSuite {
  t: TestApp;
  db: pg.Client;
  /** Where archiveUsage writes its files and manifest (inside a test or hook). */
  readonly outDir: string;
}

export function archiveSuite(label: string, options: { userCreditUsd: string; env?: Partial<Record<string, string>> }): ArchiveSuite {
  const t = testAppForSuite(label, options.env);
  const db = suiteSql(t);
  let outDir: string | null = null;
  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), `${label.replace(/_/g, '-')}-`));
    await seedBilling(t, { userCreditUsd: options.userCreditUsd });
  });
  afterAll(async () => {
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });
  return {
    t,
    db,
    get outDir() {
      if (!outDir) throw new Error(`archive suite ${label} is not started yet: use it inside a test or hook`);
      return outDir;
    },
  };
}
