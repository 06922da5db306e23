// Reads a JSON request body as text, bounded, for routes listed in RAW_BODY_ROUTES (the global
// JSON parser would turn its numbers into binary floats).
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../../common/errors/index.js';
import { isJsonMediaType, mediaType } from '../../common/http/body-parsers.js';

/** LiteLLM's full catalog is about 1.5 MB; 8 MiB leaves room to grow and bounds memory. */
export const PRICE_IMPORT_BODY_LIMIT_BYTES = 8 * 1024 * 1024;

export async function readRawJsonBody(req: FastifyRequest, limitBytes: number): Promise<string> {
  if (!isJsonMediaType(mediaType(req.headers['content-type']))) {
    req.raw.resume();
    throw new DomainError('unsupported_media_type', 'request body must be application/json');
  }
  // A body parser already consumed the stream: the route is missing from RAW_BODY_ROUTES.
  if (req.raw.readableEnded) throw new Error('raw body route reached after the body was consumed');
  const declaredBytes = Number(req.headers['content-length'] ?? '0');
  if (declaredBytes > limitBytes) {
    req.raw.resume(); // discard the rest so the 413 can be sent on a healthy connection
    throw tooLarge(limitBytes);
  }
  const chunks: Buffer[] = [];
  let receivedBytes = 0;
  for await (const chunk of req.raw as AsyncIterable<Buffer>) {
    receivedBytes += chunk.length;
    // Keep draining without storing: breaking out would destroy the socket and lose the 413.
    if (receivedBytes <= limitBytes) chunks.push(chunk);
  }
  if (receivedBytes > limitBytes) throw tooLarge(limitBytes);
  if (receivedBytes === 0) throw new DomainError('validation_failed', 'request body is empty', [{ field: '(body)', message: 'required' }]);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks, receivedBytes));
  } catch {
    throw new DomainError('unsupported_media_type', 'request body must be UTF-8 JSON');
  }
}

function tooLarge(limitBytes: number): DomainError {
  return new DomainError('payload_too_large', `request body exceeds ${limitBytes} bytes`);
}
