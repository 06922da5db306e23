// The fingerprints a group commit reads together (price catalog, tier history) go out as one
// statement, and each answer is what its own query would have said, as of after the call.
import pg from 'pg';
import { TableFingerprints } from '../../src/database/table-fingerprints.js';
import { createTestDatabase } from '../support/test-db.js';

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
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
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
