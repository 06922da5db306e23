import { z } from 'zod';
import { DomainError } from '../errors/index.js';
import { idSchema } from '../validation/fields.js';

export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 500;

/**
 * Longest cursor taken: the base64url of a sort key and an id of 256 characters of up to 4 bytes
 * each, JSON-escaped (a cursor this API returns must come back; 512 was too short for such ids).
 */
export const CURSOR_LENGTH_MAX = 4096;

export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(PAGE_SIZE_MAX).default(PAGE_SIZE_DEFAULT),
  cursor: z.string().max(CURSOR_LENGTH_MAX).optional(),
});

/** Opaque, stable cursors: base64url of a small JSON object (the sort key of the last row). */
export function encodeCursor(value: Record<string, string | number>): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');
}

export function decodeCursor<T extends Record<string, unknown>>(cursor: string | undefined, schema: z.ZodType<T>): T | null {
  if (cursor === undefined) return null;
  try {
    return schema.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw new DomainError('validation_failed', 'invalid cursor', [{ field: 'cursor', message: 'not a cursor returned by this API' }]);
  }
}

// Fields of cursors, bounded as the SQL that reads them needs: a cursor is opaque but forgeable
// (base64url of JSON), and a forged one past a column's range reached Postgres (an int8 id past
// 2^63-1 or a time past year 9999 was a 500, a payable past NUMERIC(38,0) a 422). Anything outside
// these is a 400 like any malformed cursor.
const INT8_MAX = 2n ** 63n - 1n;
/** Microseconds since 1970 of 9999-12-31T23:59:59.999999Z, the last instant the API reads or writes. */
const TIMESTAMP_MICROS_MAX = 253_402_300_799_999_999n;

/** A bigint row id (bigserial): 0..2^63-1 as decimal text. */
export const cursorRowIdSchema = z
  .string()
  .regex(/^\d{1,19}$/)
  .refine((text) => BigInt(text) <= INT8_MAX, 'out of range');

/** A timestamp as microseconds since 1970, within the years the API accepts (up to 9999). */
export const cursorMicrosSchema = z
  .string()
  .regex(/^\d{1,18}$/)
  .refine((text) => BigInt(text) <= TIMESTAMP_MICROS_MAX, 'out of range');

/** An atto-USD amount of a NUMERIC(38,0) column. */
export const cursorAttoSchema = z.string().regex(/^-?\d{1,38}$/);

/** An id (contributor, user): the same rule as in paths and bodies (api.md "Ids"). */
export const cursorIdSchema = idSchema;
