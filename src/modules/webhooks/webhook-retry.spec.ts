import fc from 'fast-check';
import { decideAfterAttempt, endpointHealthAfter, ENDPOINT_FAILING_DISABLE_MS, RETRY_DELAY_MAX_MS, RETRY_JITTER, retryDelayMs } from './webhook-retry.js';

const HOUR_MS = 3600_000;
const now = new Date('2026-12-01T10:00:00.000Z');
const failed = { statusCode: 500, error: null };

describe('decideAfterAttempt', () => {
  it('treats every 2xx as delivered and anything else as a failure', () => {
    for (const statusCode of [200, 201, 204, 299]) {
      expect(decideAfterAttempt({ result: { statusCode, error: null }, attempt: 1, now, deadline: new Date(now.getTime() + HOUR_MS), baseMs: 1000, random: 0.5 })).toEqual({ kind: 'delivered' });
    }
    for (const result of [{ statusCode: 199, error: null }, { statusCode: 301, error: null }, { statusCode: 404, error: null }, { statusCode: null, error: 'timed out' }]) {
      expect(decideAfterAttempt({ result, attempt: 1, now, deadline: new Date(now.getTime() + HOUR_MS), baseMs: 1000, random: 0.5 }).kind).toBe('retry');
    }
  });

  it('backs off exponentially (x3), capped, and fails at the deadline', () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, 5_000))).toEqual([5_000, 15_000, 45_000, 135_000]);
    expect(retryDelayMs(40, 5_000)).toBe(RETRY_DELAY_MAX_MS);
    const decision = decideAfterAttempt({ result: failed, attempt: 2, now, deadline: new Date(now.getTime() + 24 * HOUR_MS), baseMs: 5_000, random: 0.5 });
    expect(decision).toEqual({ kind: 'retry', nextAttemptAt: new Date(now.getTime() + 15_000) });
    expect(decideAfterAttempt({ result: failed, attempt: 9, now, deadline: now, baseMs: 5_000, random: 0.5 }).kind).toBe('failed');
  });

  it('property: the next attempt is within the jittered delay and never past the deadline', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 10, max: 600_000 }), fc.integer({ min: 1, max: 48 * HOUR_MS }), fc.double({ min: 0, max: 0.999999, noNaN: true }), (attempt, baseMs, untilDeadlineMs, random) => {
        const deadline = new Date(now.getTime() + untilDeadlineMs);
        const decision = decideAfterAttempt({ result: failed, attempt, now, deadline, baseMs, random });
        expect(decision.kind).toBe('retry');
        if (decision.kind !== 'retry') return;
        const waitMs = decision.nextAttemptAt.getTime() - now.getTime();
        const delay = retryDelayMs(attempt, baseMs);
        expect(waitMs).toBeGreaterThan(0);
        expect(waitMs).toBeLessThanOrEqual(Math.min(untilDeadlineMs, Math.round(delay * (1 + RETRY_JITTER)) + 1));
        if (untilDeadlineMs > delay * (1 + RETRY_JITTER)) expect(waitMs).toBeGreaterThanOrEqual(Math.floor(delay * (1 - RETRY_JITTER)));
      }),
      { seed: 11, numRuns: 500 },
    );
  });

  it('property: a delivery failing forever is retried a bounded number of times and then failed', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 72 }), fc.integer({ min: 100, max: 60_000 }), fc.array(fc.double({ min: 0, max: 0.999999, noNaN: true }), { minLength: 1, maxLength: 20 }), (retryHours, baseMs, randoms) => {
        const start = now.getTime();
        const deadline = new Date(start + retryHours * HOUR_MS);
        let at = start;
        for (let attempt = 1; attempt <= 10_000; attempt += 1) {
          const decision = decideAfterAttempt({ result: failed, attempt, now: new Date(at), deadline, baseMs, random: randoms[attempt % randoms.length]! });
          if (decision.kind === 'failed') {
            expect(at).toBeGreaterThanOrEqual(deadline.getTime());
            return;
          }
          expect(decision.kind).toBe('retry');
          if (decision.kind === 'retry') at = decision.nextAttemptAt.getTime();
        }
        throw new Error('never failed');
      }),
      { seed: 5, numRuns: 200 },
    );
  });
});

describe('endpointHealthAfter', () => {
  it('clears the streak on success, starts it on failure, disables after a day or on 410', () => {
    expect(endpointHealthAfter({ result: { statusCode: 204, error: null }, failingSince: now, now })).toEqual({ kind: 'healthy' });
    expect(endpointHealthAfter({ result: failed, failingSince: null, now })).toEqual({ kind: 'failing', failingSince: now });
    const since = new Date(now.getTime() - ENDPOINT_FAILING_DISABLE_MS + 1);
    expect(endpointHealthAfter({ result: failed, failingSince: since, now })).toEqual({ kind: 'failing', failingSince: since });
    const daySince = new Date(now.getTime() - ENDPOINT_FAILING_DISABLE_MS);
    const disabled = endpointHealthAfter({ result: { statusCode: null, error: 'ECONNREFUSED' }, failingSince: daySince, now });
    expect(disabled).toMatchObject({ kind: 'disable', failingSince: daySince });
    expect(disabled.kind === 'disable' && disabled.reason).toContain('ECONNREFUSED');
    expect(endpointHealthAfter({ result: { statusCode: 410, error: null }, failingSince: null, now })).toMatchObject({ kind: 'disable', reason: 'the endpoint answered 410 Gone' });
  });
});
