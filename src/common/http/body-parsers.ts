import type { FastifyInstance, FastifyRequest } from 'fastify';
import { isUtf8 } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { DomainError } from '../errors/domain-error.js';
import { inexactJsonNumber, jsonBodyProblem, mayHoldUnstorableText } from './json-body-checks.js';

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/**
 * Routes that read their own body as a stream (request.raw): SSE ingestion, and the LiteLLM price
 * import (its numbers must keep their decimal text; JSON.parse would turn them into binary floats),
 * and the LiteLLM push (several payload formats, and a limit of its own: LITELLM_BODY_LIMIT_BYTES).
 * Route patterns as registered, so letter case and a trailing slash in the URL do not matter.
 */
export const RAW_BODY_ROUTES = new Set(['/v1/usage-events/stream', '/v1/admin/prices/import', '/v1/integrations/litellm']);
/**
 * Batch routes whose entries are validated one by one: text Postgres cannot store (NUL, a lone
 * surrogate) in one entry makes that entry `rejected`, not the whole body a 400 (api.md "Ids").
 */
export const PER_ENTRY_TEXT_ROUTES = new Set(['/v1/usage-events/batch']);
/**
 * JSON routes read up to the stream limit (STREAM_BODY_LIMIT_BYTES) rather than BODY_LIMIT_BYTES:
 * a non-streamed response body is as large as its stream (a Gemini image answer inlines base64).
 */
export const LARGE_JSON_BODY_ROUTES = new Set(['/v1/usage-events/response']);
/** Strict JSON (as Express's parser was): the top level is an object or an array. */
const STRICT_JSON_START = /^[\x20\x09\x0a\x0d]*[[{]/;

export function mediaType(contentType: string | undefined): string {
  // What gateways send, answered without splitting and copying the header on every request.
  if (contentType === 'application/json') return contentType;
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

function charsetOf(contentType: string | undefined): string | null {
  if (contentType === 'application/json') return null;
  const match = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType ?? '');
  return match ? match[1]!.toLowerCase() : null;
}

export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json');
}

const unsupported = (message: string) => new DomainError('unsupported_media_type', message);
const malformed = () => new DomainError('validation_failed', 'request body is not valid JSON', [{ field: '(body)', message: 'malformed JSON' }]);

/**
 * Reads the whole body, at most limitBytes. Past the limit it keeps draining without storing (so
 * the 413 goes out on a healthy connection) and fails at the end.
 */
function readBody(payload: IncomingMessage, limitBytes: number, done: (error: Error | null, body?: Buffer) => void): void {
  const declared = Number(payload.headers['content-length'] ?? 'NaN');
  const chunks: Buffer[] = [];
  let receivedBytes = 0;
  let finished = false;
  const finish = (error: Error | null, body?: Buffer) => {
    if (finished) return;
    finished = true;
    done(error, body);
  };
  const tooLarge = () => new DomainError('payload_too_large', `request body exceeds ${limitBytes} bytes`);
  if (declared > limitBytes) {
    payload.resume();
    return finish(tooLarge());
  }
  payload.on('data', (chunk: Buffer) => {
    receivedBytes += chunk.length;
    if (receivedBytes <= limitBytes) chunks.push(chunk);
  });
  payload.on('end', () => {
    if (receivedBytes > limitBytes) return finish(tooLarge());
    finish(null, chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, receivedBytes));
  });
  payload.on('aborted', () => finish(new DomainError('validation_failed', 'request body was cut off')));
  payload.on('error', () => finish(new DomainError('validation_failed', 'request body was cut off')));
}

function hasBody(request: FastifyRequest): boolean {
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** What String#trim removes that can start a body: ASCII whitespace, NBSP, BOM, and the rest of Unicode's spaces. */
function isJsonWhitespace(code: number): boolean {
  return code <= 0x20 || code === 0xa0 || code === 0xfeff || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x3000 || code === 0x85;
}

/** Parses a JSON body's bytes: UTF-8 only, strict, and only text Postgres can store. */
export function parseJsonBody(bytes: Buffer, options: { textPerEntry?: boolean } = {}): unknown {
  if (!isUtf8(bytes)) throw unsupported('request body must be UTF-8 JSON');
  const text = bytes.toString('utf8');
  // Only a body that starts with whitespace can be blank: no trimmed copy of every JSON body.
  if (text === '' || (isJsonWhitespace(text.charCodeAt(0)) && text.trim() === '')) return {};
  if (!STRICT_JSON_START.test(text)) throw malformed();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw malformed();
  }
  // Both checks below need a walk of the parsed body; the byte scan says when one can matter.
  const problem = mayHoldUnstorableText(bytes) ? jsonBodyProblem(body, { text: options.textPerEntry !== true }) : null;
  if (problem) throw new DomainError('validation_failed', 'request validation failed', [problem]);
  const inexact = inexactJsonNumber(text);
  if (inexact !== null) {
    throw new DomainError('validation_failed', 'request validation failed', [
      { field: '(body)', message: `the number ${inexact.slice(0, 40)} cannot be kept exactly (beyond double precision): send it as a string` },
    ]);
  }
  return body;
}

/**
 * The one body parser: JSON only, with a size limit, errors in the api.md shape (413, 415, 400)
 * through Nest's exception filter. Raw-body routes and methods without a body are passed through
 * unread.
 */
export function registerBodyParser(fastify: FastifyInstance, bodyLimitBytes: number, largeBodyLimitBytes = bodyLimitBytes): void {
  fastify.removeAllContentTypeParsers();
  // Declared up front so every request object has the same shape (Fastify's advice for decorations).
  if (!fastify.hasRequestDecorator('rawBody')) fastify.decorateRequest('rawBody', null);
  fastify.addContentTypeParser('*', (request: FastifyRequest, payload: IncomingMessage, done: (error: Error | null, body?: unknown) => void) => {
    if (!BODY_METHODS.has(request.method) || RAW_BODY_ROUTES.has(request.routeOptions.url ?? '')) return done(null, undefined);
    if (!hasBody(request)) return done(null, undefined);
    const contentType = request.headers['content-type'];
    if (!isJsonMediaType(mediaType(contentType))) {
      payload.resume();
      return done(unsupported('request body must be application/json'));
    }
    const charset = charsetOf(contentType);
    if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
      payload.resume();
      return done(unsupported('request body must be UTF-8 JSON'));
    }
    const encoding = (request.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding !== 'identity') {
      payload.resume();
      return done(unsupported(`content-encoding ${encoding} is not supported`));
    }
    const limitBytes = LARGE_JSON_BODY_ROUTES.has(request.routeOptions.url ?? '') ? largeBodyLimitBytes : bodyLimitBytes;
    readBody(payload, limitBytes, (error, bytes) => {
      if (error) return done(error);
      try {
        // Kept for signed gateway keys, whose signature covers these exact bytes (a reference, no copy).
        (request as FastifyRequest & { rawBody?: Buffer }).rawBody = bytes!;
        done(null, parseJsonBody(bytes!, { textPerEntry: PER_ENTRY_TEXT_ROUTES.has(request.routeOptions.url ?? '') }));
      } catch (parseError) {
        done(parseError as Error);
      }
    });
  });
}
