import { z } from 'zod';
import { DomainError } from '../errors/index.js';

export const PAGE_SIZE_DEFAULT = 50;
export const PAGE_SIZE_MAX = 500;

export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(PAGE_SIZE_MAX).default(PAGE_SIZE_DEFAULT),
  cursor: z.string().max(512).optional(),
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
