// npm run seed:events -- --events 10000000 --contributors 1000 [--users N] [--models 8] [--days 90]
//   [--end-day YYYY-MM-DD] [--chunk 250000] [--no-migrate]
// Seeds DATABASE_URL with priced usage consistent with the ledger; see scripts/lib/seed-events.ts
// for exactly what is written. Migrates the database first (creating it if missing).
import { parseArgs } from 'node:util';
import { migrate } from './lib/migrate.js';
import { SEED_CHUNK_EVENTS_DEFAULT, seedEvents } from './lib/seed-events.js';
import { nextUtcMidnight } from './lib/utc-day.js';

const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/ledger';

const { values } = parseArgs({
  options: {
    events: { type: 'string', default: '1000000' },
    contributors: { type: 'string', default: '1000' },
    users: { type: 'string' },
    models: { type: 'string', default: '8' },
    days: { type: 'string', default: '90' },
    'end-day': { type: 'string' },
    chunk: { type: 'string', default: String(SEED_CHUNK_EVENTS_DEFAULT) },
    'no-migrate': { type: 'boolean', default: false },
  },
  strict: true,
});

const toInt = (name: string, text: string | undefined) => {
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new Error(`--${name} must be an integer, got ${text}`);
  return value;
};

async function main() {
  const databaseUrl = process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL;
  const contributors = toInt('contributors', values.contributors);
  // Default end: tomorrow (UTC), so the seeded days end with today and "last 30 days" hits data.
  const endDay = values['end-day'] ? new Date(`${values['end-day']}T00:00:00Z`) : nextUtcMidnight();
  if (!values['no-migrate']) await migrate(databaseUrl);
  const result = await seedEvents({
    databaseUrl,
    events: toInt('events', values.events),
    contributors,
    users: values.users === undefined ? Math.max(1, Math.min(contributors, Math.ceil(contributors / 5))) : toInt('users', values.users),
    models: toInt('models', values.models),
    days: toInt('days', values.days),
    endDay,
    chunkEvents: toInt('chunk', values.chunk),
    log: (line) => console.log(line),
  });
  console.log(JSON.stringify(result));
}

main().catch((error: unknown) => {
  console.error(`seed:events failed: ${(error as Error).message}`);
  process.exit(1);
});
