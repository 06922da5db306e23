// Reads a JSON request body as bytes, bounded, for routes listed in RAW_BODY_ROUTES (they parse
// it their own way: exact decimal text, or several payload formats and a larger limit).
import type { FastifyRequest } from 'fastify';
import { assert, DomainError } from '../errors/index.js';
import { isJsonMediaType, mediaType } from './body-parsers.js';

/**
 * The whole body (one Buffer: chunks are concatenated once), at most limitBytes: past it the rest
 * is drained without being stored and the answer is a 413 on a healthy connection.
 */
export async function readRawJsonBytes(req: FastifyRequest, limitBytes: number): Promise<Buffer> {
  const chunks = await readRawJsonChunks(req, limitBytes);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** Bodies up to this size are gathered into one reused buffer by withRawJsonBytes (a LiteLLM push of 500 payloads is ~2.8 MB). */
export const POOLED_BODY_BYTES_MAX = 4 * 1024 * 1024;
/** The reused buffer, allocated at the first pooled body. One suffices: it is used only synchronously. */
let pooledBody: Buffer | null = null;

/**
 * readRawJsonBytes for a route that uses its body synchronously: `use` gets the bytes and what it
 * returns must hold no view of them (strings and parsed values are copies), since a body of up to
 * POOLED_BODY_BYTES_MAX is gathered into a buffer that the next request reuses. Why: a fresh
 * multi-megabyte Buffer.concat per request is external memory to V8, and its churn cost the LiteLLM
 * push's API CPU in its GC threads (issue 35, docs/performance-analysis.md).
 */
export async function withRawJsonBytes<T>(req: FastifyRequest, limitBytes: number, use: (bytes: Buffer) => T): Promise<T> {
  const chunks = await readRawJsonChunks(req, limitBytes);
  const totalBytes = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  if (chunks.length === 1 || totalBytes > POOLED_BODY_BYTES_MAX) return use(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, totalBytes));
  pooledBody ??= Buffer.allocUnsafe(POOLED_BODY_BYTES_MAX);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(pooledBody, at);
  const result = use(pooledBody.subarray(0, totalBytes));
  // A promise would read the buffer after the next request has overwritten it.
  assert(!(result instanceof Promise), 'withRawJsonBytes: use must be synchronous');
  return result;
}

/** The body's chunks as received (at least one, together at most limitBytes), or the coded error. */
async function readRawJsonChunks(req: FastifyRequest, limitBytes: number): Promise<Buffer[]> {
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
  return chunks;
}

function tooLarge(limitBytes: number): DomainError {
  return new DomainError('payload_too_large', `request body exceeds ${limitBytes} bytes`);
}
