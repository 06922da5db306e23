// The API's errors as typed exceptions: every code the server can answer with (generated from the
// server's own table, src/generated/error-codes.ts) maps to one LedgerError subclass, so a caller can
// `catch (e) { if (e instanceof LedgerInsufficientFundsError) ... }` or switch on `e.code`.
import { ERROR_STATUS_BY_CODE, type LedgerErrorCode } from './generated/error-codes.js';

export { ERROR_STATUS_BY_CODE, type LedgerErrorCode };

/** Codes the SDK itself raises: the ledger could not be reached, or answered something that is not the api.md error shape. */
export type SdkErrorCode = 'network_error' | 'unexpected_response';

export class LedgerError extends Error {
  constructor(
    readonly code: LedgerErrorCode | SdkErrorCode,
    /** The HTTP status (0 when no answer arrived). */
    readonly status: number,
    message: string,
    readonly details?: unknown,
    /** From Retry-After (429/503), when the server sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** Worth trying again later: the ledger was unreachable, overloaded or failing (429, 5xx, network). */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}

export class LedgerValidationError extends LedgerError {}
export class LedgerAuthError extends LedgerError {}
export class LedgerNotFoundError extends LedgerError {}
export class LedgerInsufficientFundsError extends LedgerError {}
/** 409: `idempotency_conflict` (same id, different payload) or `conflict`. */
export class LedgerConflictError extends LedgerError {}
/** 422 (`unknown_contributor`, `not_priced`, ...) and 410 `event_archived`. */
export class LedgerUnprocessableError extends LedgerError {}
export class LedgerPayloadError extends LedgerError {}
export class LedgerRateLimitedError extends LedgerError {}
export class LedgerUnavailableError extends LedgerError {}
export class LedgerNetworkError extends LedgerError {}

type ErrorClass = new (code: LedgerErrorCode | SdkErrorCode, status: number, message: string, details?: unknown, retryAfterMs?: number) => LedgerError;

function classForStatus(status: number): ErrorClass {
  if (status === 400) return LedgerValidationError;
  if (status === 401 || status === 403) return LedgerAuthError;
  if (status === 402) return LedgerInsufficientFundsError;
  if (status === 404) return LedgerNotFoundError;
  if (status === 409) return LedgerConflictError;
  if (status === 410 || status === 422) return LedgerUnprocessableError;
  if (status === 413 || status === 415) return LedgerPayloadError;
  if (status === 429) return LedgerRateLimitedError;
  if (status >= 500) return LedgerUnavailableError;
  return LedgerError;
}

function isKnownCode(code: unknown): code is LedgerErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_STATUS_BY_CODE, code);
}

/** The typed error for a non-2xx answer whose body is (or should be) `{"error": {code, message, details?}}`. */
export function ledgerErrorFrom(status: number, body: unknown, retryAfterMs?: number): LedgerError {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | null)?.error;
  const Class = classForStatus(status);
  if (error && isKnownCode(error.code)) {
    const message = typeof error.message === 'string' ? error.message : error.code;
    return new Class(error.code, status, message, error.details, retryAfterMs);
  }
  // A proxy's HTML 502 or a server newer than this SDK: keep the status, say what arrived.
  return new Class('unexpected_response', status, `ledger answered ${status} without a known error code`, body, retryAfterMs);
}

export function networkError(cause: unknown): LedgerNetworkError {
  const message = cause instanceof Error ? cause.message : String(cause);
  const error = new LedgerNetworkError('network_error', 0, `ledger unreachable: ${message}`);
  (error as { cause?: unknown }).cause = cause;
  return error;
}
