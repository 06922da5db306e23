// npm run db:migrate: apply prisma/migrations to DATABASE_URL, creating the database if missing.
import { migrate } from './lib/migrate.js';

const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/ledger';
const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
const redacted = databaseUrl.replace(/\/\/([^:@/]+):[^@/]*@/, '//$1:***@');

try {
  const result = await migrate(databaseUrl);
  for (const name of result.applied) console.log(`applied ${name}`);
  console.log(`database ${redacted}: ${result.applied.length} applied, ${result.alreadyApplied.length} already applied`);
} catch (error) {
  console.error(`db:migrate failed: ${(error as Error).message}`);
  process.exit(1);
}
