// npm run archive -- --before YYYY-MM --out DIR (docs/history.md, operations.md).
//
// For each monthly partition of usage_events older than the cut-off month, oldest first:
// 1. refuse the whole run (nothing archived) if any such month holds unpriced events, is not
//    settled (no settlement run finished after the month ended plus PAYOUT_MATURITY_DAYS, or a
//    settlement is still open), or has rows waiting in the default partition;
// 2. export the partition to DIR/usage_events_YYYY_MM.ndjson.gz (one JSON object per event, in id
//    order, money and ids as decimal strings), hashing the compressed bytes as they are written;
// 3. re-read the file from disk: its sha256, row count, id order and the sums of official, charge,
//    payout and margin must equal the database's; then record the month in DIR/manifest.json;
// 4. in one transaction: detach the partition, re-sum it (nothing may have changed since the
//    export), record the month in usage_archives and its per contributor/day/model sums in
//    usage_archived_rollups (the rollup check's stand-in for the dropped rows), each priced event's
//    model in usage_archived_events (refunds after archive), drop it.
// Kept: usage_event_keys (idempotency: a replay of an archived event is a 410 with its amounts),
// the journal (balances, the ledger check), contributor_usage_daily (earnings, statements), and
// each priced event's model in usage_archived_events (a refund of an archived event needs it).
// Deleted with the month: its rows of user_spend_daily (budgets count the stored events only).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import pg from 'pg';
import { DAY_MS } from './utc-day.js';

const EXPORT_CHUNK_ROWS = 20_000;

export interface ArchiveOptions {
  databaseUrl: string;
  /** YYYY-MM: months strictly before it are archived. */
  before: string;
  outDir: string;
  /** Days after occurred_at before earnings become payable (PAYOUT_MATURITY_DAYS). */
  maturityDays: number;
  log?: (line: string) => void;
}

export interface MonthSums {
  rows: bigint;
  officialAtto: bigint;
  chargeAtto: bigint;
  payoutAtto: bigint;
  marginAtto: bigint;
  minId: bigint | null;
  maxId: bigint | null;
}

export interface ArchivedMonth extends MonthSums {
  month: string;
  file: string;
  sha256: string;
  fileBytes: number;
  tableBytes: bigint;
  seconds: number;
}

export interface ManifestMonth {
  file: string;
  format: 'ndjson.gz';
  rows: string;
  official_atto: string;
  charge_atto: string;
  payout_atto: string;
  margin_atto: string;
  min_id: string | null;
  max_id: string | null;
  sha256: string;
  bytes: number;
  archived_at: string;
}

export class ArchiveRefused extends Error {}

const MONTH_RE = /^(\d{4})-(0[1-9]|1[0-2])$/;

export function monthStart(month: string): Date {
  const m = MONTH_RE.exec(month);
  if (!m) throw new ArchiveRefused(`--before must be YYYY-MM, got ${month}`);
  return new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1));
}

const nextMonth = (start: Date) => new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1));
const partitionName = (month: string) => `usage_events_${month.replace('-', '_')}`;

const SUMS_SQL = (table: string) => `SELECT count(*) AS rows, coalesce(sum(official_atto), 0) AS official, coalesce(sum(charge_atto), 0) AS charge,
  coalesce(sum(payout_atto), 0) AS payout, coalesce(sum(margin_atto), 0) AS margin, min(id) AS min_id, max(id) AS max_id FROM "${table}"`;

async function sumsOf(client: pg.ClientBase, table: string): Promise<MonthSums> {
  const r = (await client.query<Record<string, string | null>>(SUMS_SQL(table))).rows[0]!;
  return {
    rows: BigInt(r.rows!),
    officialAtto: BigInt(r.official!),
    chargeAtto: BigInt(r.charge!),
    payoutAtto: BigInt(r.payout!),
    marginAtto: BigInt(r.margin!),
    minId: r.min_id == null ? null : BigInt(r.min_id),
    maxId: r.max_id == null ? null : BigInt(r.max_id),
  };
}

const sameSums = (a: MonthSums, b: MonthSums) =>
  a.rows === b.rows && a.officialAtto === b.officialAtto && a.chargeAtto === b.chargeAtto && a.payoutAtto === b.payoutAtto && a.marginAtto === b.marginAtto && a.minId === b.minId && a.maxId === b.maxId;

const describeSums = (s: MonthSums) => `${s.rows} rows, official ${s.officialAtto}, charge ${s.chargeAtto}, payout ${s.payoutAtto}, margin ${s.marginAtto} atto`;

/** Monthly partitions strictly before the cut-off, oldest first (YYYY-MM). */
async function monthsBefore(client: pg.ClientBase, cutoff: Date): Promise<string[]> {
  const result = await client.query<{ relname: string }>(
    `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
     WHERE i.inhparent = 'usage_events'::regclass AND c.relname ~ '^usage_events_[0-9]{4}_[0-9]{2}$' ORDER BY c.relname`,
  );
  return result.rows
    .map((r) => r.relname.slice('usage_events_'.length).replace('_', '-'))
    .filter((month) => monthStart(month).getTime() < cutoff.getTime());
}

/** Why a month may not be archived, or null. */
async function refusal(client: pg.ClientBase, month: string, maturityDays: number): Promise<string | null> {
  const table = partitionName(month);
  const unpriced = await client.query<{ n: string }>(`SELECT count(*) AS n FROM "${table}" WHERE status = 'unpriced'`);
  if (BigInt(unpriced.rows[0]!.n) > 0n) return `${month}: ${unpriced.rows[0]!.n} unpriced events (price them first: POST /v1/admin/usage-events/reprice)`;
  const start = monthStart(month);
  const lo = start.toISOString();
  const hi = nextMonth(start).toISOString();
  const stray = await client.query<{ n: string }>(`SELECT count(*) AS n FROM usage_events_default WHERE occurred_at >= $1 AND occurred_at < $2`, [lo, hi]);
  if (BigInt(stray.rows[0]!.n) > 0n) return `${month}: ${stray.rows[0]!.n} events of the month are in the default partition (the usage-partitions job moves them)`;
  const empty = await client.query(`SELECT 1 FROM "${table}" LIMIT 1`);
  if (empty.rowCount === 0) return null;
  const open = await client.query<{ n: string }>(`SELECT count(*) AS n FROM settlements WHERE status IN ('pending_approval', 'queued', 'submitting')`);
  if (BigInt(open.rows[0]!.n) > 0n) return `${month}: a settlement is still open (wait until it is finished)`;
  const payableBy = new Date(nextMonth(start).getTime() + maturityDays * DAY_MS);
  const settled = await client.query<{ n: string }>(
    `SELECT count(*) AS n FROM settlements WHERE status IN ('confirmed', 'partially_failed') AND created_at >= $1`,
    [payableBy.toISOString()],
  );
  if (BigInt(settled.rows[0]!.n) === 0n) return `${month}: unsettled (no settlement finished after ${payableBy.toISOString()}, when its last earnings became payable)`;
  return null;
}

/** Hashes (and counts) the bytes passing through. */
function hashing(hash: ReturnType<typeof createHash>, counter: { bytes: number }) {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      hash.update(chunk);
      counter.bytes += chunk.length;
      callback(null, chunk);
    },
  });
}

/** The partition as NDJSON, gzip-compressed, in id order; returns the compressed file's sha256 and size. */
async function exportMonth(client: pg.ClientBase, table: string, path: string, total: bigint, log: (line: string) => void): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  const counter = { bytes: 0 };
  const gzip = createGzip({ level: 6 });
  const done = pipeline(gzip, hashing(hash, counter), createWriteStream(path));
  let afterId = -1n;
  let written = 0n;
  const startedMs = Date.now();
  for (;;) {
    const rows = await client.query<{ id: string; line: string }>(
      `SELECT e.id, (to_jsonb(e) || jsonb_build_object('id', e.id::text, 'price_id', e.price_id::text, 'official_atto', e.official_atto::text,
         'charge_atto', e.charge_atto::text, 'payout_atto', e.payout_atto::text, 'margin_atto', e.margin_atto::text))::text AS line
       FROM "${table}" e WHERE e.id > $1::bigint ORDER BY e.id LIMIT $2`,
      [afterId.toString(), EXPORT_CHUNK_ROWS],
    );
    if (rows.rows.length === 0) break;
    const text = rows.rows.map((r) => r.line).join('\n') + '\n';
    if (!gzip.write(text)) await new Promise((resolve) => gzip.once('drain', resolve));
    afterId = BigInt(rows.rows.at(-1)!.id);
    written += BigInt(rows.rows.length);
    const seconds = Math.max(0.001, (Date.now() - startedMs) / 1000);
    log(`  export ${table}: ${written}/${total} rows (${total === 0n ? 100 : Number((written * 1000n) / total) / 10}%), ${Math.round(Number(written) / seconds)} rows/s`);
  }
  gzip.end();
  await done;
  return { sha256: hash.digest('hex'), bytes: counter.bytes };
}

/** Re-reads an archive file from disk: its sha256, and the count, id order and money sums of its rows. */
export async function readArchiveFile(path: string): Promise<MonthSums & { sha256: string }> {
  const sha256 = createHash('sha256').update(await readFile(path)).digest('hex');
  const sums: MonthSums = { rows: 0n, officialAtto: 0n, chargeAtto: 0n, payoutAtto: 0n, marginAtto: 0n, minId: null, maxId: null };
  const lines = createInterface({ input: createReadStream(path).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '') continue;
    const row = JSON.parse(line) as Record<string, string | null>;
    const id = BigInt(row.id!);
    if (sums.maxId !== null && id <= sums.maxId) throw new Error(`${path}: ids out of order at ${id}`);
    sums.minId ??= id;
    sums.maxId = id;
    sums.rows += 1n;
    sums.officialAtto += BigInt(row.official_atto ?? '0');
    sums.chargeAtto += BigInt(row.charge_atto ?? '0');
    sums.payoutAtto += BigInt(row.payout_atto ?? '0');
    sums.marginAtto += BigInt(row.margin_atto ?? '0');
  }
  return { ...sums, sha256 };
}

async function readManifest(path: string): Promise<{ months: Record<string, ManifestMonth> }> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as { months: Record<string, ManifestMonth> };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { months: {} };
    throw error;
  }
}

async function writeManifest(path: string, manifest: { months: Record<string, ManifestMonth> }): Promise<void> {
  await writeFile(`${path}.tmp`, `${JSON.stringify({ description: 'usage_events archived by npm run archive (docs/history.md)', ...manifest }, null, 2)}\n`);
  await rename(`${path}.tmp`, path);
}

/** Detaches, re-verifies, records and drops one partition, in one transaction. */
async function dropMonth(client: pg.ClientBase, month: string, exported: MonthSums, file: { name: string; sha256: string; bytes: number }): Promise<bigint> {
  const table = partitionName(month);
  await client.query('BEGIN');
  try {
    await client.query(`SET LOCAL lock_timeout = '10s'`);
    await client.query(`SET LOCAL statement_timeout = 0`);
    const tableBytes = BigInt((await client.query<{ b: string }>(`SELECT pg_total_relation_size($1::regclass) AS b`, [table])).rows[0]!.b);
    await client.query(`ALTER TABLE usage_events DETACH PARTITION "${table}"`);
    const now = await sumsOf(client, table);
    if (!sameSums(now, exported)) throw new Error(`${month} changed after its export (${describeSums(now)} vs ${describeSums(exported)}): nothing dropped, run the archive again`);
    await client.query(
      `INSERT INTO usage_archives (month, events, official_atto, charge_atto, payout_atto, margin_atto, min_id, max_id, file, sha256, bytes, table_bytes)
       VALUES ($1::date, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [`${month}-01`, now.rows.toString(), now.officialAtto.toString(), now.chargeAtto.toString(), now.payoutAtto.toString(), now.marginAtto.toString(),
        now.minId?.toString() ?? null, now.maxId?.toString() ?? null, file.name, file.sha256, file.bytes, tableBytes.toString()],
    );
    await client.query(
      `INSERT INTO usage_archived_rollups (month, contributor_id, day, model, events, prompt_tokens, completion_tokens, official_atto, earned_atto, charge_atto, margin_atto,
         cached_tokens, cache_write_tokens, audio_tokens)
       SELECT $1::date, contributor_id, (occurred_at AT TIME ZONE 'UTC')::date, model, count(*), sum(prompt_tokens), sum(completion_tokens),
              sum(official_atto), sum(payout_atto), sum(charge_atto), sum(margin_atto),
              sum(cached_tokens), sum(cache_write_5m_tokens + cache_write_1h_tokens), sum(prompt_audio_tokens + completion_audio_tokens)
       FROM "${table}" WHERE status = 'priced' GROUP BY 2, 3, 4`,
      [`${month}-01`],
    );
    // What a refund of an archived event needs beyond its journal entry and key: its model.
    await client.query(`INSERT INTO usage_archived_events (event_id, month, model) SELECT event_id, $1::date, model FROM "${table}" WHERE status = 'priced'`, [`${month}-01`]);
    // Budgets read the events still stored (a total budget leaves archived months out): so does their spend rollup.
    await client.query(`DELETE FROM user_spend_daily WHERE day >= $1::date AND day < ($1::date + interval '1 month')::date`, [`${month}-01`]);
    await client.query(`DROP TABLE "${table}"`);
    await client.query('COMMIT');
    return tableBytes;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

export async function archiveUsage(o: ArchiveOptions): Promise<ArchivedMonth[]> {
  const log = o.log ?? (() => undefined);
  const cutoff = monthStart(o.before);
  const client = new pg.Client({ connectionString: o.databaseUrl });
  await client.connect();
  try {
    await client.query(`SET statement_timeout = 0`);
    const months = await monthsBefore(client, cutoff);
    if (months.length === 0) {
      log(`nothing to archive before ${o.before}`);
      return [];
    }
    const refusals = (await Promise.all(months.map((m) => refusal(client, m, o.maturityDays)))).filter((r): r is string => r !== null);
    if (refusals.length > 0) throw new ArchiveRefused(`refused, nothing archived:\n${refusals.map((r) => `  ${r}`).join('\n')}`);
    await mkdir(o.outDir, { recursive: true });
    const manifestPath = join(o.outDir, 'manifest.json');
    const archived: ArchivedMonth[] = [];
    for (const [index, month] of months.entries()) {
      const startedMs = Date.now();
      const table = partitionName(month);
      log(`[${index + 1}/${months.length}] ${month}: summing ${table}`);
      const sums = await sumsOf(client, table);
      log(`  ${describeSums(sums)}`);
      const name = `${table}.ndjson.gz`;
      const path = join(o.outDir, name);
      const written = await exportMonth(client, table, `${path}.tmp`, sums.rows, log);
      await rename(`${path}.tmp`, path);
      const reread = await readArchiveFile(path);
      if (reread.sha256 !== written.sha256) throw new Error(`${path}: sha256 on disk ${reread.sha256} differs from the one written ${written.sha256}`);
      if (!sameSums(reread, sums)) throw new Error(`${path}: the file holds ${describeSums(reread)}, the partition ${describeSums(sums)}`);
      const fileBytes = (await stat(path)).size;
      log(`  verified ${name}: ${reread.rows} rows, sha256 ${reread.sha256}, ${fileBytes} bytes`);
      const manifest = await readManifest(manifestPath);
      manifest.months[month] = {
        file: name,
        format: 'ndjson.gz',
        rows: sums.rows.toString(),
        official_atto: sums.officialAtto.toString(),
        charge_atto: sums.chargeAtto.toString(),
        payout_atto: sums.payoutAtto.toString(),
        margin_atto: sums.marginAtto.toString(),
        min_id: sums.minId?.toString() ?? null,
        max_id: sums.maxId?.toString() ?? null,
        sha256: reread.sha256,
        bytes: fileBytes,
        archived_at: new Date().toISOString(),
      };
      await writeManifest(manifestPath, manifest);
      const tableBytes = await dropMonth(client, month, sums, { name, sha256: reread.sha256, bytes: fileBytes });
      const seconds = (Date.now() - startedMs) / 1000;
      log(`  dropped ${table}: ${tableBytes} bytes reclaimed, ${Math.round(Number(sums.rows) / Math.max(0.001, seconds))} rows/s overall`);
      archived.push({ month, ...sums, file: name, sha256: reread.sha256, fileBytes, tableBytes, seconds });
    }
    return archived;
  } finally {
    await client.end();
  }
}
