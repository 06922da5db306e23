// The migration to monthly partitions converts a populated database as the previous release left
// it: every row kept with its id and every column, the id sequence continuing, one key per event,
// and the Prisma client still reading the table.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { migrate } from '../../scripts/lib/migrate.js';
import { PrismaClient } from '../../src/generated/prisma/client.js';
import { databaseUrl, dropDatabase } from '../support/test-db.js';

const PARTITIONING_MIGRATION = '20261201190000_usage_events_partitioned';

/**
 * Every row of usage_events as text, in id order, with its column names, less the columns given (those
 * later migrations add, e.g. key_id, null in old rows): equal means nothing was lost or changed.
 */
const ROWS_DIGEST = `SELECT count(*) AS n, coalesce(max(id), 0) AS max_id, md5(coalesce(string_agg((to_jsonb(e) - $1::text[])::text, E'\\n' ORDER BY id), '')) AS digest FROM usage_events e`;
const COLUMNS = `SELECT coalesce(array_agg(column_name::text), '{}') AS names FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'usage_events'`;

describe('migration 20261201190000: usage_events partitioned by month', () => {
  const name = `lt_partmig_${randomBytes(4).toString('hex')}`;
  const url = databaseUrl(name);
  let db: pg.Client;

  beforeAll(async () => {
    await migrate(url, { before: PARTITIONING_MIGRATION });
    db = new pg.Client({ connectionString: url });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await dropDatabase(name);
  });

  it('keeps every row, id and column; continues the sequence; keys every event; Prisma still reads it', async () => {
    const before = await db.query<{ relkind: string }>(`SELECT relkind FROM pg_class WHERE relname = 'usage_events'`);
    expect(before.rows[0]!.relkind).toBe('r');
    // Rows as the previous schema takes them: priced and unpriced, over three months and years
    // apart (2025-06 is outside the months created ahead), with metadata, stream and holds.
    await db.query(`
      INSERT INTO usage_events (event_id, request_hash, user_id, contributor_id, model, occurred_at, received_at, prompt_tokens, completion_tokens,
        cached_tokens, reasoning_tokens, hold_id, metadata, source, status, price_id, contributor_tier, user_markup, payout_multiplier,
        official_atto, charge_atto, payout_atto, margin_atto, priced_at, stream)
      SELECT 'old-' || lpad(i::text, 5, '0'), md5(i::text), 'u_' || (i % 7), 'c_' || (i % 3), 'm/' || (i % 2),
        (ARRAY['2025-06-15T12:00:00Z', '2026-09-30T23:59:59.999999Z', '2026-10-01T00:00:00Z', '2026-11-20T08:00:00Z']::timestamptz[])[1 + i % 4],
        '2026-11-20T09:00:00Z', 100 + i, 20 + i, i % 50, 0, CASE WHEN i % 11 = 0 THEN 'hold-' || i END,
        CASE WHEN i % 2 = 0 THEN jsonb_build_object('n', i) END, 'api',
        CASE WHEN i % 13 = 0 THEN 'unpriced' ELSE 'priced' END,
        CASE WHEN i % 13 = 0 THEN NULL ELSE 1 END, CASE WHEN i % 13 = 0 THEN NULL ELSE 'standard' END, '1.3', '1.1',
        CASE WHEN i % 13 = 0 THEN NULL ELSE 1000000::numeric * i END, CASE WHEN i % 13 = 0 THEN NULL ELSE 1300000::numeric * i END,
        CASE WHEN i % 13 = 0 THEN NULL ELSE 1100000::numeric * i END, CASE WHEN i % 13 = 0 THEN NULL ELSE 200000::numeric * i END,
        CASE WHEN i % 13 = 0 THEN NULL ELSE '2026-11-20T09:00:00Z'::timestamptz END,
        CASE WHEN i % 5 = 0 THEN jsonb_build_object('finish_reason', 'stop') END
      FROM generate_series(1, 2000) AS i`);
    // A gap in the ids (a rolled-back insert) must stay a gap.
    await db.query(`DELETE FROM usage_events WHERE event_id = 'old-00500'`);
    const columnsBefore = (await db.query<{ names: string[] }>(COLUMNS)).rows[0]!.names;
    const old = (await db.query<{ n: string; max_id: string; digest: string }>(ROWS_DIGEST, [[]])).rows[0]!;
    expect(old.n).toBe('1999');

    await migrate(url);

    const added = (await db.query<{ names: string[] }>(COLUMNS)).rows[0]!.names.filter((name) => !columnsBefore.includes(name));
    const after = (await db.query<{ n: string; max_id: string; digest: string }>(ROWS_DIGEST, [added])).rows[0]!;
    expect(after).toEqual(old);
    const kind = await db.query<{ relkind: string }>(`SELECT relkind FROM pg_class WHERE relname = 'usage_events'`);
    expect(kind.rows[0]!.relkind).toBe('p');
    const parts = await db.query<{ relname: string; n: string }>(
      `SELECT c.relname, (SELECT count(*) FROM usage_events e WHERE e.tableoid = c.oid) AS n
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'usage_events'::regclass ORDER BY 1`,
    );
    const byName = new Map(parts.rows.map((r) => [r.relname, Number(r.n)]));
    // old-00500 (deleted) was a 2025-06 event.
    expect(byName.get('usage_events_2025_06')).toBe(499);
    expect(byName.get('usage_events_2026_09')).toBe(500);
    expect(byName.get('usage_events_2026_10')).toBe(500);
    expect(byName.get('usage_events_2026_11')).toBe(500);
    expect(byName.get('usage_events_default')).toBe(0);
    // The current month and the next three exist whatever the data.
    const now = new Date();
    for (let i = 0; i <= 3; i += 1) {
      const m = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + i, 1));
      expect(byName.has(`usage_events_${m.toISOString().slice(0, 7).replace('-', '_')}`)).toBe(true);
    }
    // One key per event, pointing at its row.
    const keys = await db.query<{ keys: string; joined: string }>(
      `SELECT (SELECT count(*) FROM usage_event_keys) AS keys,
              (SELECT count(*) FROM usage_event_keys k JOIN usage_events e ON e.id = k.id AND e.occurred_at = k.occurred_at AND e.event_id = k.event_id AND e.request_hash = k.request_hash) AS joined`,
    );
    expect(keys.rows[0]).toEqual({ keys: '1999', joined: '1999' });
    // The sequence continues after the highest id and belongs to the new table.
    const next = await db.query<{ id: string; owner: string }>(
      `SELECT nextval('usage_events_id_seq') AS id, (SELECT c.relname FROM pg_depend d JOIN pg_class c ON c.oid = d.refobjid
        WHERE d.objid = 'usage_events_id_seq'::regclass AND d.deptype = 'a') AS owner`,
    );
    expect(BigInt(next.rows[0]!.id)).toBeGreaterThan(BigInt(old.max_id));
    expect(next.rows[0]!.owner).toBe('usage_events');
    // The constraints came along.
    await expect(db.query(`INSERT INTO usage_events (event_id, request_hash, user_id, contributor_id, model, occurred_at, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, status)
      VALUES ('bad', 'h', 'u', 'c', 'm', now(), 1, 1, 5, 0, 'unpriced')`)).rejects.toThrow(/usage_events_(tokens|kinds)_check/);

    // Prisma reads the partitioned table (and the keys table) through the generated client.
    const pool = new pg.Pool({ connectionString: url, max: 2 });
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    try {
      expect(await prisma.usageEvent.count()).toBe(1999);
      const row = await prisma.usageEvent.findFirst({ where: { eventId: 'old-00013' } });
      expect(row).toMatchObject({ status: 'unpriced', occurredAt: new Date('2026-09-30T23:59:59.999Z') });
      expect(await prisma.usageEventKey.count()).toBe(1999);
    } finally {
      await prisma.$disconnect();
      await pool.end();
    }
  }, 120_000);

  it('creates a month partition later, moving the rows that waited in the default partition', async () => {
    await db.query(`INSERT INTO usage_events (event_id, request_hash, user_id, contributor_id, model, occurred_at, prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, status)
      VALUES ('stray-1', 'h', 'u', 'c', 'm', '2024-02-10T00:00:00Z', 1, 1, 0, 0, 'unpriced'), ('stray-2', 'h', 'u', 'c', 'm', '2024-03-10T00:00:00Z', 1, 1, 0, 0, 'unpriced')`);
    const inDefault = await db.query<{ n: string }>(`SELECT count(*) AS n FROM usage_events_default`);
    expect(inDefault.rows[0]!.n).toBe('2');
    const created = await db.query<{ created: boolean }>(`SELECT usage_events_ensure_partition('2024-02-29T23:00:00Z') AS created`);
    expect(created.rows[0]!.created).toBe(true);
    const again = await db.query<{ created: boolean }>(`SELECT usage_events_ensure_partition('2024-02-01T00:00:00Z') AS created`);
    expect(again.rows[0]!.created).toBe(false);
    const where = await db.query<{ event_id: string; part: string }>(`SELECT event_id, tableoid::regclass::text AS part FROM usage_events WHERE event_id LIKE 'stray-%' ORDER BY 1`);
    expect(where.rows).toEqual([
      { event_id: 'stray-1', part: 'usage_events_2024_02' },
      { event_id: 'stray-2', part: 'usage_events_default' },
    ]);
    // The moved partition has every index of the table (today the primary key, the status index
    // and the BRIN index on occurred_at of migration 20261202150000).
    const count = async (table: string) => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM pg_indexes WHERE tablename = $1`, [table])).rows[0]!.n);
    expect(await count('usage_events')).toBeGreaterThanOrEqual(2);
    expect(await count('usage_events_2024_02')).toBe(await count('usage_events'));
  }, 60_000);
});
