// Migrates a template database once per test run (real Postgres; see test/support/test-db.ts).
// The name is unique per run so concurrent runs on one machine never touch each other's data.
// Plain JS: jest loads global setup outside its ESM transform, so the migration runs through tsx.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

const BASE_URL = process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';

export default async function globalSetup() {
  // Every project that lists this setup calls it; one template per run is enough.
  if (process.env.TEST_TEMPLATE_DB) return;
  const templateDb = `lt_template_${randomBytes(4).toString('hex')}`;
  const result = spawnSync('node_modules/.bin/tsx', ['scripts/migrate.ts'], {
    env: { ...process.env, DATABASE_URL: `${BASE_URL}/${templateDb}` },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`test template migration failed: ${result.stderr || result.stdout}`);
  // Workers are started after this and inherit the variable.
  process.env.TEST_TEMPLATE_DB = templateDb;
}
