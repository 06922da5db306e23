import { RateLimitedError } from '../../common/errors/index.js';
import { parseEnv } from '../../config/index.js';
import { AUTH_FAILURE_CLIENTS_TRACKED_MAX, AuthFailureLimiter } from './auth-failure-limiter.js';

function limiter(failuresPerMinute: number) {
  const l = new AuthFailureLimiter(parseEnv({ AUTH_FAILURES_PER_MINUTE: String(failuresPerMinute) }));
  let now = 5_000_000;
  l.nowMs = () => now;
  return { l, advance: (ms: number) => (now += ms) };
}

function blockedFor(l: AuthFailureLimiter, client: string): number | null {
  try {
    l.assertNotBlocked(client);
    return null;
  } catch (error) {
    expect(error).toBeInstanceOf(RateLimitedError);
    return (error as RateLimitedError).retryAfterSeconds;
  }
}

describe('AuthFailureLimiter', () => {
  it('blocks a client after the allowed failures, for the rest of the minute, with Retry-After', () => {
    const { l, advance } = limiter(3);
    for (let i = 0; i < 2; i += 1) l.recordFailure('1.2.3.4');
    expect(blockedFor(l, '1.2.3.4')).toBeNull();
    l.recordFailure('1.2.3.4');
    expect(blockedFor(l, '1.2.3.4')).toBe(60);
    advance(45_500);
    expect(blockedFor(l, '1.2.3.4')).toBe(15);
    expect(blockedFor(l, '5.6.7.8')).toBeNull();
    advance(14_500);
    expect(blockedFor(l, '1.2.3.4')).toBeNull();
    l.recordFailure('1.2.3.4'); // a new window starts at one failure
    expect(blockedFor(l, '1.2.3.4')).toBeNull();
  });

  it('stays bounded under a spray from many addresses without unblocking a blocked client', () => {
    const { l } = limiter(2);
    l.recordFailure('attacker');
    l.recordFailure('attacker');
    expect(blockedFor(l, 'attacker')).not.toBeNull();
    for (let i = 0; i < AUTH_FAILURE_CLIENTS_TRACKED_MAX + 5_000; i += 1) l.recordFailure(`spray-${i}`);
    expect(l.clientsTracked).toBeLessThanOrEqual(AUTH_FAILURE_CLIENTS_TRACKED_MAX);
    expect(blockedFor(l, 'attacker')).not.toBeNull();
  });
});
