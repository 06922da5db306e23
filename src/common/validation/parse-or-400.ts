import type { ZodError } from 'zod';
import { validationFailed, zodIssuesToFields } from '../errors/index.js';

/**
 * Parses a body or query inside a handler, after its access check (a contributor route checks the
 * contributor first, so another contributor's id is a 403 whatever the input): 400 with the fields.
 */
export function parseOr400<T>(schema: { safeParse(input: unknown): { success: true; data: T } | { success: false; error: ZodError } }, input: unknown): T {
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw validationFailed(zodIssuesToFields(parsed.error));
  return parsed.data;
}
