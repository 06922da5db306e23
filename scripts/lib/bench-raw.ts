// Postgres write limits on this machine, measured on the same server and in the same run as the
// HTTP figures: COPY FROM STDIN, multi-row INSERT ... SELECT FROM unnest(...) in batches of 500,
// and one INSERT per transaction. One event-like row per event into a LOGGED scratch table with a
// bigserial key and a unique event_id, like usage_events.
import pg from 'pg';

const SCRATCH_TABLE = 'bench_raw_events';
const COPY_ROWS_PER_STATEMENT = 100_000;
const COPY_CHUNK_BYTES = 256 * 1024;
export const UNNEST_BATCH_ROWS = 500;

export interface RawLimitOptions {
  databaseUrl: string;
  copyRows: number;
  unnestRows: number;
  singleInsertSeconds: number;
}

export interface RawLimits {
  copyRowsPerSecond: number;
  unnestRowsPerSecond: number;
  singleInsertRowsPerSecond: number;
  copyRows: number;
  unnestRows: number;
  singleInsertRows: number;
}

const CREATE_SCRATCH = `
CREATE TABLE ${SCRATCH_TABLE} (
  id BIGSERIAL PRIMARY KEY,
  event_id TEXT NOT NULL UNIQUE,
  user_id TEXT NOT NULL,
  contributor_id TEXT NOT NULL,
  model TEXT NOT NULL,
  occurred_at TIMESTAMPTZ NOT NULL,
  prompt_tokens INTEGER NOT NULL,
  completion_tokens INTEGER NOT NULL,
  cached_tokens INTEGER NOT NULL,
  reasoning_tokens INTEGER NOT NULL,
  status TEXT NOT NULL,
  official_atto NUMERIC(38,0),
  charge_atto NUMERIC(38,0),
  payout_atto NUMERIC(38,0),
  margin_atto NUMERIC(38,0)
)`;
const COLUMNS = 'event_id, user_id, contributor_id, model, occurred_at, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, status, official_atto, charge_atto, payout_atto, margin_atto';

interface RawRow {
  eventId: string;
  userId: string;
  contributorId: string;
  model: string;
  occurredAt: string;
  prompt: number;
  completion: number;
  cached: number;
  official: string;
  charge: string;
  payout: string;
  margin: string;
}

const MODELS = ['gpt-4o', 'gpt-4o-mini', 'claude-sonnet-4-5', 'gemini-2.5-flash'];

function rawRow(prefix: string, n: number): RawRow {
  const official = 1_000_000n * BigInt(1000 + (n % 9000));
  const charge = (official * 13n) / 10n;
  const payout = (official * 11n) / 10n;
  return {
    eventId: `${prefix}-${n}`,
    userId: `u_${n % 1000}`,
    contributorId: `c_${n % 200}`,
    model: MODELS[n % MODELS.length]!,
    occurredAt: new Date(1_790_000_000_000 + n * 7).toISOString(),
    prompt: 200 + (n % 4000),
    completion: 20 + (n % 900),
    cached: n % 3 === 0 ? 50 : 0,
    official: official.toString(),
    charge: charge.toString(),
    payout: payout.toString(),
    margin: (charge - payout).toString(),
  };
}

/**
 * COPY ... FROM STDIN with the plain `pg` client (pg-copy-streams is not a dependency): a query
 * object implementing pg's Submittable protocol that answers CopyInResponse with our chunks.
 */
class CopyFromStdin {
  private rowCount = 0;
  private error: Error | null = null;
  readonly done: Promise<number>;
  private settle!: { resolve: (rows: number) => void; reject: (error: Error) => void };

  constructor(
    private readonly text: string,
    private readonly chunks: Buffer[],
  ) {
    this.done = new Promise((resolve, reject) => {
      this.settle = { resolve, reject };
    });
  }

  submit(connection: { query(text: string): void }): void {
    connection.query(this.text);
  }

  handleCopyInResponse(connection: { sendCopyFromChunk(chunk: Buffer): void; endCopyFrom(): void }): void {
    for (const chunk of this.chunks) connection.sendCopyFromChunk(chunk);
    connection.endCopyFrom();
  }

  handleCommandComplete(message: { text?: string }): void {
    this.rowCount = Number(/COPY (\d+)/.exec(message.text ?? '')?.[1] ?? 0);
  }

  handleError(error: Error): void {
    this.error = error;
  }

  handleReadyForQuery(): void {
    if (this.error) this.settle.reject(this.error);
    else this.settle.resolve(this.rowCount);
  }

  handleRowDescription(): void {}
  handleDataRow(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}
}

function copyText(rows: RawRow[]): Buffer[] {
  const lines = rows.map(
    (r) =>
      `${r.eventId}\t${r.userId}\t${r.contributorId}\t${r.model}\t${r.occurredAt}\t${r.prompt}\t${r.completion}\t${r.cached}\t0\tpriced\t${r.official}\t${r.charge}\t${r.payout}\t${r.margin}\n`,
  );
  const chunks: Buffer[] = [];
  let current = '';
  for (const line of lines) {
    current += line;
    if (current.length >= COPY_CHUNK_BYTES) {
      chunks.push(Buffer.from(current));
      current = '';
    }
  }
  if (current) chunks.push(Buffer.from(current));
  return chunks;
}

/** `rows` generated rows in batches of `batchRows` (the last one shorter), each encoded for one statement. */
function rowBatches<T>(rows: number, batchRows: number, prefix: string, encode: (batch: RawRow[]) => T): T[] {
  const batches: T[] = [];
  for (let start = 0; start < rows; start += batchRows) {
    const count = Math.min(batchRows, rows - start);
    batches.push(encode(Array.from({ length: count }, (_, i) => rawRow(prefix, start + i))));
  }
  return batches;
}

async function measureCopy(client: pg.Client, rows: number, prefix: string): Promise<number> {
  // Text is generated before the clock starts: the figure is the server's limit, not ours.
  const statements = rowBatches(rows, COPY_ROWS_PER_STATEMENT, prefix, copyText);
  const startedMs = performance.now();
  let copied = 0;
  for (const chunks of statements) {
    const copy = new CopyFromStdin(`COPY ${SCRATCH_TABLE} (${COLUMNS}) FROM STDIN`, chunks);
    client.query(copy as unknown as pg.QueryConfig);
    copied += await copy.done;
  }
  const seconds = (performance.now() - startedMs) / 1000;
  if (copied !== rows) throw new Error(`COPY wrote ${copied} rows, expected ${rows}`);
  return rows / seconds;
}

const UNNEST_INSERT = `INSERT INTO ${SCRATCH_TABLE} (${COLUMNS})
SELECT e, u, c, m, o, p, co, ca, 0, 'priced', f, ch, pa, ma
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::timestamptz[], $6::int[], $7::int[], $8::int[],
            $9::numeric[], $10::numeric[], $11::numeric[], $12::numeric[]) AS t(e, u, c, m, o, p, co, ca, f, ch, pa, ma)`;

function unnestParams(rows: RawRow[]): unknown[] {
  return [
    rows.map((r) => r.eventId), rows.map((r) => r.userId), rows.map((r) => r.contributorId), rows.map((r) => r.model),
    rows.map((r) => r.occurredAt), rows.map((r) => r.prompt), rows.map((r) => r.completion), rows.map((r) => r.cached),
    rows.map((r) => r.official), rows.map((r) => r.charge), rows.map((r) => r.payout), rows.map((r) => r.margin),
  ];
}

async function measureUnnest(client: pg.Client, rows: number, prefix: string): Promise<number> {
  const batches = rowBatches(rows, UNNEST_BATCH_ROWS, prefix, unnestParams);
  const startedMs = performance.now();
  // Each statement is its own transaction (autocommit): one commit per 500 rows.
  for (const params of batches) await client.query(UNNEST_INSERT, params);
  return rows / ((performance.now() - startedMs) / 1000);
}

async function measureSingleInserts(client: pg.Client, seconds: number, prefix: string): Promise<{ rows: number; perSecond: number }> {
  const sql = `INSERT INTO ${SCRATCH_TABLE} (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 0, 'priced', $9, $10, $11, $12)`;
  const deadlineMs = performance.now() + seconds * 1000;
  const startedMs = performance.now();
  let rows = 0;
  while (performance.now() < deadlineMs) {
    const r = rawRow(prefix, rows);
    await client.query(sql, [r.eventId, r.userId, r.contributorId, r.model, r.occurredAt, r.prompt, r.completion, r.cached, r.official, r.charge, r.payout, r.margin]);
    rows += 1;
  }
  return { rows, perSecond: rows / ((performance.now() - startedMs) / 1000) };
}

/** Runs the three raw measurements one after the other on one connection, then drops the table. */
export async function measureRawLimits(options: RawLimitOptions): Promise<RawLimits> {
  const client = new pg.Client({ connectionString: options.databaseUrl });
  await client.connect();
  try {
    await client.query(`DROP TABLE IF EXISTS ${SCRATCH_TABLE}`);
    await client.query(CREATE_SCRATCH);
    const copyRowsPerSecond = await measureCopy(client, options.copyRows, 'copy');
    const unnestRowsPerSecond = await measureUnnest(client, options.unnestRows, 'unnest');
    const single = await measureSingleInserts(client, options.singleInsertSeconds, 'single');
    return {
      copyRowsPerSecond,
      unnestRowsPerSecond,
      singleInsertRowsPerSecond: single.perSecond,
      copyRows: options.copyRows,
      unnestRows: options.unnestRows,
      singleInsertRows: single.rows,
    };
  } finally {
    await client.query(`DROP TABLE IF EXISTS ${SCRATCH_TABLE}`).catch(() => undefined);
    await client.end();
  }
}
