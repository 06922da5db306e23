import pg from 'pg';

const BASE_URL = process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';

export default async function globalTeardown() {
  const templateDb = process.env.TEST_TEMPLATE_DB;
  if (!templateDb) return;
  const admin = new pg.Client({ connectionString: `${BASE_URL}/postgres` });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS "${templateDb}" WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
