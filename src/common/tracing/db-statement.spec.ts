import fc from 'fast-check';
import { DB_QUERY_TEXT, DB_STATEMENT_MAX_CHARS, pgStatementHook, truncatedStatement } from './db-statement.js';

function recorder(): { attributes: Map<string, string>; setAttribute(key: string, value: string): void } {
  const attributes = new Map<string, string>();
  return { attributes, setAttribute: (key, value) => void attributes.set(key, value) };
}

describe('span statements', () => {
  it('keeps a short statement as is and cuts a long one to its start, naming its length', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 2000 }), fc.integer({ min: 1, max: 500 }), (text, max) => {
        const cut = truncatedStatement(text, max);
        if (text.length <= max) expect(cut).toBe(text);
        else {
          expect(cut.startsWith(text.slice(0, max))).toBe(true);
          expect(cut).toBe(`${text.slice(0, max)}... (${text.length} chars)`);
          expect(cut.length).toBeLessThan(max + 30);
        }
      }),
    );
  });

  it("replaces a long query text on the pg span (the group commit's statement), leaves a short one to the instrumentation", () => {
    const long = `WITH ins AS (INSERT INTO usage_events ${'x, '.repeat(2000)}) SELECT 1`;
    const span = recorder();
    pgStatementHook(span, { query: { text: long } });
    expect(span.attributes.get(DB_QUERY_TEXT)).toBe(`${long.slice(0, DB_STATEMENT_MAX_CHARS)}... (${long.length} chars)`);
    const short = recorder();
    pgStatementHook(short, { query: { text: 'SELECT 1' } });
    expect(short.attributes.size).toBe(0);
  });
});
