import {
  ERROR_STATUS_BY_CODE,
  LedgerConflictError,
  LedgerError,
  ledgerErrorFrom,
  LedgerInsufficientFundsError,
  LedgerRateLimitedError,
  LedgerUnprocessableError,
  LedgerValidationError,
  type LedgerErrorCode,
} from './errors.js';

describe('ledgerErrorFrom', () => {
  it('gives every code the server answers with a typed error carrying code, status and details', () => {
    for (const [code, status] of Object.entries(ERROR_STATUS_BY_CODE) as Array<[LedgerErrorCode, number]>) {
      const error = ledgerErrorFrom(status, { error: { code, message: `m-${code}`, details: [{ field: 'x' }] } });
      expect(error).toBeInstanceOf(LedgerError);
      expect({ code: error.code, status: error.status, message: error.message, details: error.details }).toEqual({ code, status, message: `m-${code}`, details: [{ field: 'x' }] });
    }
  });

  it('picks the subclass by status', () => {
    expect(ledgerErrorFrom(400, { error: { code: 'validation_failed', message: 'bad' } })).toBeInstanceOf(LedgerValidationError);
    expect(ledgerErrorFrom(402, { error: { code: 'insufficient_funds', message: 'no' } })).toBeInstanceOf(LedgerInsufficientFundsError);
    expect(ledgerErrorFrom(409, { error: { code: 'idempotency_conflict', message: 'no' } })).toBeInstanceOf(LedgerConflictError);
    expect(ledgerErrorFrom(422, { error: { code: 'unknown_contributor', message: 'no' } })).toBeInstanceOf(LedgerUnprocessableError);
    const limited = ledgerErrorFrom(429, { error: { code: 'rate_limited', message: 'slow down' } }, 2000);
    expect(limited).toBeInstanceOf(LedgerRateLimitedError);
    expect(limited.retryAfterMs).toBe(2000);
    expect(limited.retryable).toBe(true);
  });

  it('keeps the status of an answer that is not the api.md error shape', () => {
    const error = ledgerErrorFrom(502, '<html>bad gateway</html>');
    expect({ code: error.code, status: error.status, retryable: error.retryable }).toEqual({ code: 'unexpected_response', status: 502, retryable: true });
  });
});
