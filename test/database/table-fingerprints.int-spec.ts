// The fingerprints a group commit reads together (price catalog, tier history) go out as one
// statement, and each answer is what its own query would have said, as of after the call.
import pg from 'pg';
import { TableFingerprints, tableFingerprintSql } from '../../src/database/table-fingerprints.js';
import { createTestDatabase } from '../support/test-db.js';

/**
 * An idle client the server ends (FATAL 57P01, seen once in CI under load) is an 'error' event of
 * the pool, which unheard fails the file; the pool replaces the client at the next query, and the
 * assertions are on the answers. The service's own pools hear it the same way (database.service.ts).
 */
function withIdleErrorsHeard(pool: pg.Pool): pg.Pool {
  pool.on('error', () => undefined);
  return pool;
}

const A = { name: 'fp_a', sql: `SELECT count(*)::text || ':' || coalesce(max(id), 0)::text FROM fp_a` };
const B = { name: 'fp_b', sql: `SELECT count(*)::text || ':' || coalesce(max(id), 0)::text FROM fp_b` };

describe('TableFingerprints', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  const sent: string[] = [];
  /** The real pool, counting the statements that reach it. */
  const counting = { query: (config: pg.QueryConfig) => (sent.push(config.text), pool.query(config)) } as unknown as pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase('fingerprints');
    pool = withIdleErrorsHeard(new pg.Pool({ connectionString: db.url, max: 2 }));
    await pool.query('CREATE TABLE fp_a (id bigserial PRIMARY KEY); CREATE TABLE fp_b (id bigserial PRIMARY KEY)');
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });
  beforeEach(() => {
    sent.length = 0;
  });

  it('answers reads of one tick with one statement, each as its own query would', async () => {
    await pool.query('INSERT INTO fp_a DEFAULT VALUES; INSERT INTO fp_a DEFAULT VALUES; INSERT INTO fp_b DEFAULT VALUES');
    const fingerprints = new TableFingerprints(counting);
    const [a, b, again] = await Promise.all([fingerprints.read(A), fingerprints.read(B), fingerprints.read(A)]);
    expect(sent).toHaveLength(1);
    expect(a).toBe((await pool.query<{ v: string }>(`SELECT (${A.sql}) AS v`)).rows[0]!.v);
    expect([a, b, again]).toEqual(['2:2', '1:1', '2:2']);
  });

  it('sees every commit made before the call, and reads of later ticks are later statements', async () => {
    const fingerprints = new TableFingerprints(counting);
    const before = await fingerprints.read(B);
    await pool.query('INSERT INTO fp_b DEFAULT VALUES');
    const after = await fingerprints.read(B);
    expect(sent).toHaveLength(2);
    expect(before).not.toBe(after);
    expect(after).toBe(`${Number(before.split(':')[0]) + 1}:${Number(before.split(':')[1]) + 1}`);
  });

  it('a failing statement rejects every read it was answering', async () => {
    const fingerprints = new TableFingerprints(counting);
    const missing = { name: 'fp_missing', sql: 'SELECT count(*)::text FROM fp_no_such_table' };
    const results = await Promise.allSettled([fingerprints.read(A), fingerprints.read(missing)]);
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(sent).toHaveLength(1);
    // The next tick is a new statement, unaffected.
    expect(await fingerprints.read(A)).toMatch(/^\d+:\d+$/);
  });
});

// prices and contributor_tiers carry a version row (migration 20261203001100): the fingerprint
// changes with every committed change of the table and only then, in the change's own snapshot.
describe('tableFingerprintSql (the version rows)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let pool: pg.Pool;
  const fingerprint = async (client: Pick<pg.Pool, 'query'> = pool) =>
    (await client.query<{ v: string }>(`SELECT ${tableFingerprintSql('contributor_tiers')} AS v`)).rows[0]!.v;
  const insertTier = (client: Pick<pg.Pool, 'query'>, n: number) =>
    client.query(`INSERT INTO contributor_tiers (contributor_id, tier, effective_from) VALUES ($1, 'standard', now())`, [`fp-c${n}`]);

  beforeAll(async () => {
    db = await createTestDatabase('fingerprint_rows');
    pool = withIdleErrorsHeard(new pg.Pool({ connectionString: db.url, max: 4 }));
    await pool.query(`INSERT INTO contributors (id, tier, payout_address) SELECT 'fp-c' || i, 'standard', '0x' || lpad(to_hex(i), 40, '0') FROM generate_series(1, 9) i`);
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('changes with each committed statement, not with a rolled-back one, and is seen by the writer first', async () => {
    const start = await fingerprint();
    expect(start).toMatch(/^v\d+$/);
    const writer = await pool.connect();
    try {
      await writer.query('BEGIN');
      await insertTier(writer, 1);
      const inside = await fingerprint(writer);
      expect(inside).not.toBe(start);
      expect(await fingerprint()).toBe(start); // not committed: others still see the old one
      await writer.query('ROLLBACK');
      expect(await fingerprint()).toBe(start);
      await insertTier(writer, 2);
      const after = await fingerprint();
      expect(after).not.toBe(start);
      expect(after).not.toBe(inside);
      // A statement that changes no row leaves it (a replayed request changes no state).
      await writer.query(`INSERT INTO contributor_tiers (contributor_id, tier, effective_from) SELECT contributor_id, tier, effective_from FROM contributor_tiers WHERE false`);
      await writer.query('DELETE FROM contributor_tiers WHERE false');
      expect(await fingerprint()).toBe(after);
      await writer.query(`UPDATE contributor_tiers SET tier = tier WHERE contributor_id = 'fp-c2'`);
      expect(await fingerprint()).not.toBe(after);
    } finally {
      writer.release();
    }
  });

  it('two concurrent writers queue on the row: the value after both differs from every earlier one', async () => {
    const seen = new Set([await fingerprint()]);
    const [a, b] = [await pool.connect(), await pool.connect()];
    try {
      await a.query('BEGIN');
      await b.query('BEGIN');
      await insertTier(a, 3);
      const second = insertTier(b, 4); // waits for a's row lock
      await new Promise((resolve) => setTimeout(resolve, 50));
      await a.query('COMMIT');
      await second;
      seen.add(await fingerprint());
      await b.query('COMMIT');
      const final = await fingerprint();
      expect(seen.has(final)).toBe(false);
    } finally {
      a.release();
      b.release();
    }
  });

  it('falls back to count:max(id) without the row', async () => {
    await pool.query(`DELETE FROM table_versions WHERE name = 'contributor_tiers'`);
    const counted = (await pool.query<{ v: string }>(`SELECT count(*)::text || ':' || coalesce(max(id), 0)::text AS v FROM contributor_tiers`)).rows[0]!.v;
    expect(await fingerprint()).toBe(counted);
    await insertTier(pool, 5); // the trigger writes the row again
    expect(await fingerprint()).toMatch(/^v\d+$/);
  });
});
