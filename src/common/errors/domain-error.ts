// Expected failures carry a code from api.md and map to HTTP in one filter. Services throw these,
// never HttpException. Broken invariants are plain Errors (assert) and become 500s.

export type ErrorCode =
  | 'validation_failed'
  | 'unauthenticated'
  | 'bad_signature'
  | 'forbidden'
  | 'not_found'
  | 'insufficient_funds'
  | 'budget_exceeded'
  | 'idempotency_conflict'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'unsupported_stream_format'
  | 'unsupported_response_format'
  | 'unknown_contributor'
  | 'event_archived'
  | 'unprocessable'
  | 'settlement_disabled'
  | 'webhook_url_refused'
  | 'payout_address_refused'
  | 'address_proof_invalid'
  | 'refund_exceeds_charge'
  | 'not_priced'
  | 'rate_limited'
  | 'unavailable'
  | 'internal_error';

/** Exported for the SDK generator (the SDK's typed errors are generated from it). */
export const STATUS_BY_CODE: Record<ErrorCode, number> = {
  validation_failed: 400,
  unauthenticated: 401,
  bad_signature: 401,
  insufficient_funds: 402,
  budget_exceeded: 402,
  forbidden: 403,
  not_found: 404,
  idempotency_conflict: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unsupported_stream_format: 400,
  unsupported_response_format: 400,
  unknown_contributor: 422,
  event_archived: 410,
  unprocessable: 422,
  settlement_disabled: 422,
  webhook_url_refused: 422,
  payout_address_refused: 422,
  address_proof_invalid: 422,
  refund_exceeds_charge: 422,
  not_priced: 422,
  rate_limited: 429,
  internal_error: 500,
  unavailable: 503,
};

export interface FieldIssue {
  field: string;
  message: string;
}

export class DomainError extends Error {
  readonly httpStatus: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = 'DomainError';
    this.httpStatus = STATUS_BY_CODE[code];
  }
}

/** 429 `rate_limited`; the filter turns retryAfterSeconds into the Retry-After header. */
export class RateLimitedError extends DomainError {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds: number) {
    super('rate_limited', message);
    this.name = 'RateLimitedError';
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterSeconds));
  }
}

export function validationFailed(issues: FieldIssue[], message = 'request validation failed'): DomainError {
  return new DomainError('validation_failed', message, issues);
}

export function notFound(what: string): DomainError {
  return new DomainError('not_found', `${what} not found`);
}

/** For broken invariants (bugs): fails loudly, never a client-facing 4xx. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new Error(`assertion failed: ${message}`);
}
