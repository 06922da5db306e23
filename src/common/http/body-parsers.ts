import express, { type NextFunction, type Request, type Response } from 'express';
import { isUtf8 } from 'node:buffer';
import { sendError } from '../errors/error-body.js';
import { jsonBodyProblem, mayHoldUnstorableText } from './json-body-checks.js';

/** Bodies whose raw bytes hold a \u escape that may be NUL or a lone surrogate: walked after parsing. */
const SUSPECT_BODIES = new WeakSet<Request>();

/**
 * Runs on the raw bytes before parsing. Invalid UTF-8 is refused (body-parser would decode it to
 * U+FFFD and the request would be stored with it). Both checks are native and cost microseconds.
 */
function verifyBytes(req: Request, _res: Response, buffer: Buffer): void {
  if (!isUtf8(buffer)) throw Object.assign(new Error('request body is not valid UTF-8'), { type: 'encoding.invalid' });
  if (mayHoldUnstorableText(buffer)) SUSPECT_BODIES.add(req);
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
  const parse = express.json({ limit: bodyLimitBytes, strict: true, type: () => true, verify: verifyBytes });
  return (req: Request, res: Response, next: NextFunction) => {
    if (!BODY_METHODS.has(req.method) || isRawBodyRoute(req.path)) return next();
    if (!hasBody(req)) return next();
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    if (type !== 'application/json' && !type.endsWith('+json')) {
      return sendError(res, 415, 'unsupported_media_type', 'request body must be application/json');
    }
    parse(req, res, (error?: unknown) => {
      if (!error) {
        const problem = SUSPECT_BODIES.has(req) ? jsonBodyProblem(req.body) : null;
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
