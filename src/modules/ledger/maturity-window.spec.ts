import fc from 'fast-check';
import { isMaturing, maturedThrough } from './maturity-window.js';

const DAY_MS = 86_400_000;

describe('maturity window', () => {
  it('matures a day at 00:00 UTC of day + N + 1', () => {
    expect(maturedThrough(new Date('2026-12-10T00:00:00Z'), 7)).toBe('2026-12-02');
    expect(maturedThrough(new Date('2026-12-09T23:59:59.999Z'), 7)).toBe('2026-12-01');
    expect(isMaturing(new Date('2026-12-02T23:59:59Z'), new Date('2026-12-09T23:59:59Z'), 7)).toBe(true);
    expect(isMaturing(new Date('2026-12-02T23:59:59Z'), new Date('2026-12-10T00:00:00Z'), 7)).toBe(false);
    expect(isMaturing(new Date('2026-12-02T00:00:00Z'), new Date('2026-12-02T00:00:00Z'), 0)).toBe(false);
  });

  it('an event is never payable before occurred_at + N days, and always within N + 1 days', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4e12 }), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 90 * DAY_MS }), (t, n, wait) => {
        const occurred = new Date(t);
        const now = new Date(t + wait);
        if (!isMaturing(occurred, now, n)) expect(wait).toBeGreaterThanOrEqual(n * DAY_MS);
        if (wait >= (n + 1) * DAY_MS) expect(isMaturing(occurred, now, n)).toBe(false);
      }),
    );
  });
});
