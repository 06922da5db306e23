// Reads a JSON request body as bytes, bounded, for routes listed in RAW_BODY_ROUTES (they parse
// it their own way: exact decimal text, or several payload formats and a larger limit).
import type { FastifyRequest } from 'fastify';
import { DomainError } from '../errors/index.js';
import { isJsonMediaType, mediaType } from './body-parsers.js';

/**
 * The whole body (one Buffer: chunks are concatenated once), at most limitBytes: past it the rest
 * is drained without being stored and the answer is a 413 on a healthy connection.
 */
export async function readRawJsonBytes(req: FastifyRequest, limitBytes: number): Promise<Buffer> {
  if (!isJsonMediaType(mediaType(req.headers['content-type']))) {
    req.raw.resume();
    throw new DomainError('unsupported_media_type', 'request body must be application/json');
  }
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  if (encoding !== 'identity') {
    req.raw.resume();
    throw new DomainError('unsupported_media_type', `content-encoding ${encoding} is not supported`);
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
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, receivedBytes);
}

function tooLarge(limitBytes: number): DomainError {
  return new DomainError('payload_too_large', `request body exceeds ${limitBytes} bytes`);
}
