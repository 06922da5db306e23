// The api.md error contract: {"error": {"code", "message", "details"?}}, the code matching the
// status, no stack trace.
import type { Response } from 'supertest';

const STATUS_BY_CODE: Record<string, number[]> = {
  validation_failed: [400],
  unauthenticated: [401],
  bad_signature: [401],
  insufficient_funds: [402],
  forbidden: [403],
  not_found: [404],
  idempotency_conflict: [409],
  conflict: [409],
  payload_too_large: [413, 431],
  unsupported_media_type: [415],
  unsupported_stream_format: [400],
  unsupported_response_format: [400],
  unknown_contributor: [422],
  unprocessable: [422],
  settlement_disabled: [422],
  payout_address_refused: [422],
  address_proof_invalid: [422],
  refund_exceeds_charge: [422],
  not_priced: [422],
  rate_limited: [429],
  unavailable: [503],
};

const STACK_TRACE = /\n\s+at\s|\.ts:\d+|\.js:\d+:\d+|node_modules|Error: /;

/** null when the response is a well-formed api.md 4xx error, else what is wrong with it. */
export function errorShapeProblem(res: Pick<Response, 'status' | 'headers' | 'text'>): string | null {
  if (!String(res.headers['content-type'] ?? '').startsWith('application/json')) return `content-type ${String(res.headers['content-type'])}`;
  let body: unknown;
  try {
    body = JSON.parse(res.text);
  } catch {
    return 'body is not JSON';
  }
  if (!body || typeof body !== 'object' || Array.isArray(body) || Object.keys(body).join() !== 'error') return 'body is not {"error": ...}';
  const error = (body as { error: unknown }).error;
  if (!error || typeof error !== 'object') return 'error is not an object';
  const { code, message, details, ...rest } = error as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `unexpected error fields ${Object.keys(rest).join(',')}`;
  if (typeof code !== 'string' || !(code in STATUS_BY_CODE)) return `unknown code ${String(code)}`;
  if (!STATUS_BY_CODE[code]!.includes(res.status)) return `code ${code} with status ${res.status}`;
  if (typeof message !== 'string' || message.length === 0) return 'message is not a non-empty string';
  if (STACK_TRACE.test(message) || (details !== undefined && STACK_TRACE.test(JSON.stringify(details)))) return 'stack trace or internals in the error';
  return null;
}
