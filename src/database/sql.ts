import type { QueryConfig } from 'pg';

// Conversions at the repository boundary: NUMERIC/BIGINT arrive as text and become bigint.
export function toBigInt(value: string | number | bigint | null | undefined): bigint {
  if (value === null || value === undefined) throw new Error('expected a numeric value, got null');
  return BigInt(value);
}

export function toBigIntOrNull(value: string | number | bigint | null | undefined): bigint | null {
  return value === null || value === undefined ? null : BigInt(value);
}

/** A Prisma Decimal (decimal.js) holding a NUMERIC(38,0) value. */
export interface PrismaDecimal {
  toFixed(): string;
}

/**
 * Prisma returns NUMERIC as a Decimal; its toFixed() prints an integer exactly (toString may use
 * exponent notation, which BigInt cannot read).
 */
export function prismaDecimalToBigInt(value: PrismaDecimal): bigint {
  return BigInt(value.toFixed());
}

/**
 * The text of a Postgres array literal, for a `$n::text[]` (or jsonb[]...) parameter: every
 * element quoted (NULL for null), so no element text needs any other escaping than `"` and `\`.
 * The group commit builds ~20 of these per group, of up to 2,000 elements each (issue 35: the
 * per-element quoting was ~8% of the API's CPU at batch 1000): a column of texts without `"` or
 * `\` (ids, models, hashes) and a column of nulls are each one join, with no string per element.
 */
export function arrayLiteral(elements: ReadonlyArray<string | null>): string {
  let texts = 0;
  for (let i = 0; i < elements.length; i += 1) {
    const element = elements[i];
    if (element === null || element === undefined) continue;
    if (element.indexOf('"') !== -1 || element.indexOf('\\') !== -1) return quotedArrayLiteral(elements);
    texts += 1;
  }
  if (elements.length === 0) return '{}';
  if (texts === elements.length) return `{"${elements.join('","')}"}`;
  if (texts === 0) return `{${'NULL,'.repeat(elements.length - 1)}NULL}`;
  return quotedArrayLiteral(elements);
}

/** arrayLiteral element by element: each quoted and escaped (exported for its test). */
export function quotedArrayLiteral(elements: ReadonlyArray<string | null>): string {
  const quoted: string[] = new Array(elements.length);
  for (let i = 0; i < elements.length; i += 1) {
    const element = elements[i];
    quoted[i] = element === null || element === undefined ? 'NULL' : quoteArrayElement(element);
  }
  return `{${quoted.join(',')}}`;
}

/**
 * An array literal of elements that need no quoting: numbers, decimal integer text, ISO
 * timestamps, hex, fixed lowercase words. Never for free text (ids, JSON): use arrayLiteral.
 */
export function plainArrayLiteral(elements: ReadonlyArray<string | number | null>): string {
  // Without nulls (most columns), one join: it writes numbers as String() does.
  let nulls = false;
  for (let i = 0; i < elements.length && !nulls; i += 1) nulls = elements[i] === null || elements[i] === undefined;
  if (!nulls) return `{${elements.join(',')}}`;
  const texts: Array<string | number> = new Array(elements.length);
  for (let i = 0; i < elements.length; i += 1) texts[i] = elements[i] ?? 'NULL';
  return `{${texts.join(',')}}`;
}

/**
 * A statement the ingestion path runs many times a second, sent as a named prepared statement:
 * each pooled connection parses and plans it once, then only binds and executes it (Postgres CPU
 * per single-event request fell ~146 -> ~100 us). The name must always carry the same text.
 */
export interface PreparedStatement {
  (values: unknown[]): QueryConfig<unknown[]>;
  readonly statementName: string;
  /** The SQL as sent (for snapshots of composed statements). */
  readonly text: string;
}

export function preparedStatement(name: string, text: string): PreparedStatement {
  return Object.assign((values: unknown[]) => ({ name, text, values }), { statementName: name, text });
}

const ESCAPED = /["\\]/g;

/** One array literal element, quoted. */
export function quoteArrayElement(text: string): string {
  return text.indexOf('"') === -1 && text.indexOf('\\') === -1 ? `"${text}"` : `"${text.replace(ESCAPED, '\\$&')}"`;
}
