// The journal_entries_balanced CHECK adds the amounts inline since migration 20261201120000; it
// must accept exactly the rows the original constraint accepted (ledger_sum() = 0 and the shape
// checks), for amounts of any length, with NULLs, other lower bounds or two dimensions.
import fc from 'fast-check';
import pg from 'pg';
import { createTestDatabase } from '../support/test-db.js';

const ORIGINAL_CHECK = `cardinality(c) >= 2 AND cardinality(c) = cardinality(a) AND array_position(a, NULL) IS NULL AND ledger_sum(a) = 0`;

/** Atto amounts up to NUMERIC(38,0) size; most arrays are made to balance, some are not. */
const amount = fc.bigInt({ min: -(10n ** 36n), max: 10n ** 36n });
const amounts = fc
  .tuple(fc.array(amount, { maxLength: 19 }), fc.boolean(), fc.bigInt({ min: -3n, max: 3n }))
  .map(([values, balance, skew]) => (balance ? [...values, -values.reduce((s, v) => s + v, 0n) + skew] : values));
const element = (value: bigint | null) => (value === null ? 'NULL' : value.toString());

const shaped = fc.oneof(
  { weight: 6, arbitrary: amounts.map((values) => `{${values.map(element).join(',')}}`) },
  {
    weight: 1,
    arbitrary: fc.tuple(amounts, fc.nat({ max: 19 })).map(([values, at]) => {
      const withNull: Array<bigint | null> = [...values];
      withNull.splice(Math.min(at, values.length), 0, null);
      return `{${withNull.map(element).join(',')}}`;
    }),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: -3, max: 3 }), amounts.filter((v) => v.length > 0)).map(([lower, values]) => `[${lower}:${lower + values.length - 1}]={${values.map(element).join(',')}}`),
  },
);

describe('journal_entries_balanced', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let client: pg.Client;
  let n = 0;
  beforeAll(async () => {
    db = await createTestDatabase('journal_check');
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  afterAll(async () => {
    await client.end();
    await db.drop();
  });

  async function accepted(amountsText: string): Promise<boolean> {
    n += 1;
    await client.query('SAVEPOINT row');
    try {
      await client.query(
        `INSERT INTO journal_entries (kind, ref, account_codes, amounts_atto)
         SELECT 'test', $1, array_fill('acct'::text, ARRAY[cardinality($2::numeric[])]), $2::numeric[]`,
        [`row-${n}`, amountsText],
      );
      await client.query('RELEASE SAVEPOINT row');
      return true;
    } catch (error) {
      await client.query('ROLLBACK TO SAVEPOINT row');
      expect((error as Error).message).toMatch(/journal_entries_balanced/);
      return false;
    }
  }

  it('accepts exactly what the original constraint accepted', async () => {
    await client.query('BEGIN');
    try {
      await fc.assert(
        fc.asyncProperty(shaped, async (amountsText) => {
          const original = await client.query<{ ok: boolean | null }>(
            `SELECT (${ORIGINAL_CHECK}) AS ok FROM (SELECT $1::numeric[] AS a) x, LATERAL (SELECT array_fill('acct'::text, ARRAY[cardinality(a)]) AS c) y`,
            [amountsText],
          );
          // A CHECK passes unless its expression is false.
          expect(await accepted(amountsText)).toBe(original.rows[0]!.ok !== false);
        }),
        { numRuns: 400 },
      );
    } finally {
      await client.query('ROLLBACK');
    }
  });

  it('refuses unbalanced entries of the lengths the ledger writes and accepts balanced ones', async () => {
    await client.query('BEGIN');
    try {
      expect(await accepted('{5,-4}')).toBe(false);
      expect(await accepted('{-130,110,21}')).toBe(false);
      expect(await accepted('[0:2]={7,-5,5}')).toBe(false);
      expect(await accepted('{-130,110,20}')).toBe(true);
      expect(await accepted(`{${[...Array(15).fill('1'), '-15'].join(',')}}`)).toBe(true);
      expect(await accepted(`{${[...Array(19).fill('1'), '-18'].join(',')}}`)).toBe(false);
    } finally {
      await client.query('ROLLBACK');
    }
  });
});
