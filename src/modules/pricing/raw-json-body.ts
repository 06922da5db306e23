// Reads a JSON request body as text, bounded, for routes listed in RAW_BODY_ROUTES (the global
// JSON parser would turn its numbers into binary floats).
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../common/errors/index.js';
import { readRawJsonBytes } from '../../common/http/raw-body.js';

/** LiteLLM's full catalog is about 1.5 MB; 8 MiB leaves room to grow and bounds memory. */
export const PRICE_IMPORT_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export async function readRawJsonBody(req: FastifyRequest, limitBytes: number): Promise<string> {
  const bytes = await readRawJsonBytes(req, limitBytes);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw new DomainError('unsupported_media_type', 'request body must be UTF-8 JSON');
  }
}
