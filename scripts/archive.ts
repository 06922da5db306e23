// npm run archive -- --before YYYY-MM --out DIR
// Archives every whole month of usage_events before YYYY-MM to DIR (compressed NDJSON and a
// manifest), verifies the files, then drops the partitions: see scripts/lib/usage-archive.ts and
// docs/history.md. Exit 2 when refused (unpriced or unsettled months: nothing archived).
import { parseArgs } from 'node:util';
import { ArchiveRefused, archiveUsage } from './lib/usage-archive.js';

const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/ledger';

async function main(): Promise<number> {
  const { values } = parseArgs({ options: { before: { type: 'string' }, out: { type: 'string' } }, strict: true });
  if (!values.before || !values.out) {
    console.error('usage: npm run archive -- --before YYYY-MM --out DIR');
    return 2;
  }
  const maturityDays = Number(process.env.PAYOUT_MATURITY_DAYS ?? '0');
  if (!Number.isSafeInteger(maturityDays) || maturityDays < 0) throw new Error('PAYOUT_MATURITY_DAYS must be a whole number of days');
  const startedMs = Date.now();
  const archived = await archiveUsage({
    databaseUrl: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    before: values.before,
    outDir: values.out,
    maturityDays,
    log: (line) => console.log(line),
  });
  const rows = archived.reduce((n, m) => n + m.rows, 0n);
  const reclaimed = archived.reduce((n, m) => n + m.tableBytes, 0n);
  const seconds = (Date.now() - startedMs) / 1000;
  console.log(`archived ${archived.length} month(s), ${rows} events in ${seconds.toFixed(1)} s (${Math.round(Number(rows) / Math.max(0.001, seconds))} rows/s), ${reclaimed} bytes reclaimed`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error instanceof ArchiveRefused ? error.message : `archive failed: ${(error as Error).stack ?? error}`);
    process.exit(error instanceof ArchiveRefused ? 2 : 1);
  },
);
