import fc from 'fast-check';
import { TokenBuckets } from './token-buckets.js';

function clock(startMs = 1_000_000) {
  let now = startMs;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('TokenBuckets', () => {
  it('allows a burst of the capacity, then refuses with the wait until enough tokens', () => {
    const c = clock();
    const buckets = new TokenBuckets({ capacity: 10, refillPerMinute: 60, keysTrackedMax: 100 }, c.now);
    for (let i = 0; i < 10; i += 1) expect(buckets.take('k', 1).allowed).toBe(true);
    expect(buckets.take('k', 1)).toEqual({ allowed: false, retryAfterMs: 1000 });
    expect(buckets.take('k', 3)).toEqual({ allowed: false, retryAfterMs: 3000 });
    c.advance(999);
    expect(buckets.take('k', 1).allowed).toBe(false);
    c.advance(1);
    expect(buckets.take('k', 1)).toEqual({ allowed: true, remaining: 0 });
  });

  it('keeps one bucket per key', () => {
    const c = clock();
    const buckets = new TokenBuckets({ capacity: 2, refillPerMinute: 1, keysTrackedMax: 100 }, c.now);
    expect(buckets.take('a', 2).allowed).toBe(true);
    expect(buckets.take('a', 1).allowed).toBe(false);
    expect(buckets.take('b', 2).allowed).toBe(true);
  });

  it('charges a cost above the capacity as a full bucket instead of refusing it forever', () => {
    const c = clock();
    const buckets = new TokenBuckets({ capacity: 5, refillPerMinute: 60, keysTrackedMax: 10 }, c.now);
    expect(buckets.take('k', 50)).toEqual({ allowed: true, remaining: 0 });
    expect(buckets.take('k', 50)).toEqual({ allowed: false, retryAfterMs: 5000 });
  });

  it('never refills more than the capacity, nor when the clock steps back', () => {
    const c = clock();
    const buckets = new TokenBuckets({ capacity: 3, refillPerMinute: 60_000, keysTrackedMax: 10 }, c.now);
    buckets.take('k', 3);
    c.advance(3_600_000);
    expect(buckets.take('k', 0)).toEqual({ allowed: true, remaining: 3 });
    buckets.take('k', 3);
    c.advance(-10_000);
    expect(buckets.take('k', 1).allowed).toBe(false);
  });

  it('bounds the keys it tracks: idle (full) buckets first, then the least recently used', () => {
    const c = clock();
    const buckets = new TokenBuckets({ capacity: 10, refillPerMinute: 1, keysTrackedMax: 100 }, c.now);
    for (let i = 0; i < 100; i += 1) buckets.take(`busy-${i}`, 10);
    buckets.take('busy-0', 0); // touched: now the most recently used
    buckets.take('new', 1);
    expect(buckets.size).toBeLessThanOrEqual(100);
    // busy-1 was the least recently used and lost its (empty) bucket; busy-0 kept its state.
    expect(buckets.take('busy-0', 1).allowed).toBe(false);
    expect(buckets.take('busy-1', 1).allowed).toBe(true);
  });

  it('property: over any schedule, a key never gets more than capacity + rate x elapsed tokens', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 50 }),
        fc.integer({ min: 1, max: 6000 }),
        fc.array(fc.record({ waitMs: fc.integer({ min: 0, max: 5000 }), cost: fc.integer({ min: 1, max: 60 }) }), { maxLength: 200 }),
        (capacity, refillPerMinute, steps) => {
          const c = clock();
          const buckets = new TokenBuckets({ capacity, refillPerMinute, keysTrackedMax: 4 }, c.now);
          let granted = 0;
          let elapsedMs = 0;
          for (const step of steps) {
            c.advance(step.waitMs);
            elapsedMs += step.waitMs;
            if (buckets.take('k', step.cost).allowed) granted += Math.min(step.cost, capacity);
            expect(granted).toBeLessThanOrEqual(capacity + (refillPerMinute * elapsedMs) / 60_000 + 1e-6);
          }
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });
});
