import fc from 'fast-check';
import { DEFAULT_RETRY_POLICY, isRetryableStatus, parseRetryAfterMs, retryDelayMs } from './retry.js';

describe('retryDelayMs', () => {
  it('stays within the exponential ceiling, honours Retry-After, and stops after the last attempt', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.double({ min: 0, max: 0.999999, noNaN: true }),
        fc.option(fc.integer({ min: 0, max: 60_000 }), { nil: undefined }),
        (attempt, random, retryAfterMs) => {
          const policy = DEFAULT_RETRY_POLICY;
          const delay = retryDelayMs({ policy, attempt, random, retryAfterMs });
          if (attempt >= policy.attemptsMax || (retryAfterMs ?? 0) > policy.retryAfterMaxMs) return delay === null;
          const ceiling = Math.min(policy.delayMaxMs, policy.baseDelayMs * 2 ** (attempt - 1));
          if (delay === null) return false;
          return delay >= (retryAfterMs ?? 0) && delay <= Math.max(ceiling, retryAfterMs ?? 0);
        },
      ),
    );
  });

  it('spreads concurrent retries (full jitter) instead of sending them together', () => {
    const delays = [0.1, 0.5, 0.9].map((random) => retryDelayMs({ policy: DEFAULT_RETRY_POLICY, attempt: 3, random }));
    expect(delays).toEqual([40, 200, 360]);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-12-01T10:00:00Z');
    expect(parseRetryAfterMs('3', now)).toBe(3000);
    expect(parseRetryAfterMs('Tue, 01 Dec 2026 10:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfterMs('soon', now)).toBeUndefined();
    expect(parseRetryAfterMs(null, now)).toBeUndefined();
  });

  it('retries 429 and 5xx answers, not client errors', () => {
    expect([429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 402, 404, 409, 413, 422].some(isRetryableStatus)).toBe(false);
  });
});
