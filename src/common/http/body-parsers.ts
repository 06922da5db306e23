import express, { type NextFunction, type Request, type Response } from 'express';
import { isUtf8 } from 'node:buffer';
import type { FieldIssue } from '../errors/domain-error.js';
import { sendError } from '../errors/error-body.js';

/** Deepest nesting a JSON body may have: far above any request of this API, far below the stack. */
export const JSON_DEPTH_MAX = 64;
const FIELD_NAME_LENGTH_MAX = 200;
// A UTF-16 code unit of a surrogate pair without its other half (JSON allows it as "\ud800").
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Text Postgres can store: no NUL (refused in text columns), no lone surrogate (refused in jsonb). */
function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !LONE_SURROGATE.test(text);
}

/**
 * The first problem of a parsed JSON body that no schema should have to handle: nesting deeper
 * than JSON_DEPTH_MAX (recursive code such as JSON.stringify overflows the stack near 10,000
 * levels) or a string or key Postgres cannot store (the write failed with a 500). Iterative, so
 * a 100,000-level body is refused without recursion.
 */
export function jsonBodyProblem(body: unknown): FieldIssue | null {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: body, path: '', depth: 0 }];
  const fieldName = (path: string) => (path || '(body)').slice(0, FIELD_NAME_LENGTH_MAX);
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (!isStorableText(value)) return { field: fieldName(path), message: 'must be valid Unicode text without NUL characters' };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= JSON_DEPTH_MAX) return { field: fieldName(path), message: `nested deeper than ${JSON_DEPTH_MAX} levels` };
    for (const [key, child] of Object.entries(value)) {
      if (!isStorableText(key)) return { field: fieldName(path), message: 'field names must be valid Unicode text without NUL characters' };
      stack.push({ value: child, path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return null;
}

/** body-parser would decode invalid UTF-8 to U+FFFD and accept it: refuse the bytes instead. */
function verifyUtf8(_req: Request, _res: Response, buffer: Buffer): void {
  if (!isUtf8(buffer)) throw Object.assign(new Error('request body is not valid UTF-8'), { type: 'encoding.invalid' });
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
/**
 * Routes that read their own body as a stream: SSE ingestion, and the LiteLLM price import (its
 * numbers must keep their decimal text; JSON.parse would turn them into binary floats).
 */
export const RAW_BODY_ROUTES = new Set(['/v1/usage-events/stream', '/v1/admin/prices/import']);

/** Express matches routes case-insensitively and ignores a trailing slash: so must this check. */
function isRawBodyRoute(path: string): boolean {
  return RAW_BODY_ROUTES.has(path.toLowerCase().replace(/\/+$/, ''));
}

function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * JSON only, with a size limit; errors in the api.md shape (413, 415, 400) instead of Express's
 * HTML, written here because body parsing runs before Nest's exception filter.
 */
export function jsonBodyMiddleware(bodyLimitBytes: number) {
  const parse = express.json({ limit: bodyLimitBytes, strict: true, type: () => true, verify: verifyUtf8 });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!BODY_METHODS.has(req.method) || isRawBodyRoute(req.path)) return next();
    if (!hasBody(req)) return next();
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json' && !type.endsWith('+json')) {
      return sendError(res, 415, 'unsupported_media_type', 'request body must be application/json');
    }
    parse(req, res, (error?: unknown) => {
      if (!error) {
        const problem = jsonBodyProblem(req.body);
        return problem ? sendError(res, 400, 'validation_failed', 'request validation failed', [problem]) : next();
      }
      const e = error as { type?: string; status?: number; message?: string };
      if (e.type === 'entity.too.large') {
        return sendError(res, 413, 'payload_too_large', `request body exceeds ${bodyLimitBytes} bytes`);
      }
      if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported' || e.type === 'encoding.invalid') {
        return sendError(res, 415, 'unsupported_media_type', 'request body must be UTF-8 JSON');
      }
      if (e.type === 'request.aborted') return sendError(res, 400, 'validation_failed', 'request body was cut off');
      return sendError(res, 400, 'validation_failed', 'request body is not valid JSON', [{ field: '(body)', message: 'malformed JSON' }]);
    });
  };
}
