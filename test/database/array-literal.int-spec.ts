// The array literals the ingestion statements send (src/database/sql.ts) read back in Postgres as
// exactly the strings they were built from, for any text Postgres can store.
import fc from 'fast-check';
import pg from 'pg';
import { arrayLiteral, quoteArrayElement } from '../../src/database/sql.js';

const BASE_URL = process.env.TEST_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';
// Postgres text holds no NUL; lone surrogates are not UTF-8.
const storable = fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => !s.includes('\u0000') && s === Buffer.from(s, 'utf8').toString('utf8'));
const tricky = fc.constantFrom('', 'NULL', 'null', ' a ', '{', '}', ',', '"', '\\', '\\"', '{"a":1}', 'a,b', "'", '\t\n');

describe('array literals', () => {
  const client = new pg.Client({ connectionString: `${BASE_URL}/postgres` });
  beforeAll(() => client.connect());
  afterAll(() => client.end());

  it('round-trip any text[] (nulls included) through Postgres', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.option(fc.oneof(storable, tricky)), { maxLength: 20 }), async (values) => {
        const result = await client.query<{ a: Array<string | null> }>('SELECT $1::text[] AS a', [arrayLiteral(values)]);
        expect(result.rows[0]!.a).toEqual(values);
      }),
      { numRuns: 300 },
    );
  });

  it('nest: an element that is itself an array literal casts back to the inner array', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.oneof(storable, tricky), { minLength: 1, maxLength: 5 }), { minLength: 1, maxLength: 5 }), async (lists) => {
        const inner = lists.map((list) => `{${list.map(quoteArrayElement).join(',')}}`);
        const result = await client.query<{ a: string[] }>('SELECT (unnest($1::text[]))::text[] AS a', [arrayLiteral(inner)]);
        expect(result.rows.map((r) => r.a)).toEqual(lists);
      }),
      { numRuns: 200 },
    );
  });
});
