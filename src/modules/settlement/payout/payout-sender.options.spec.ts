import fc from 'fast-check';
import { bumpFees, busyRetryDelayMs } from './payout-sender.options.js';
import { batchIdFor, chunk } from './payout-sender.service.js';

describe('payout sender pure helpers', () => {
  it.each([
    [1_000n, 100n, { maxFeePerGas: 1_125n, maxPriorityFeePerGas: 113n }],
    [7n, 0n, { maxFeePerGas: 8n, maxPriorityFeePerGas: 1n }],
  ])('bumps both fees by at least 12.5%% (%s, %s)', (maxFeePerGasWei, maxPriorityFeePerGasWei, expected) => {
    expect(bumpFees({ maxFeePerGasWei, maxPriorityFeePerGasWei, capWei: 10n ** 12n })).toEqual(expected);
  });

  it('refuses to bump past the cap', () => {
    expect(bumpFees({ maxFeePerGasWei: 1_000n, maxPriorityFeePerGasWei: 1n, capWei: 1_100n })).toBeNull();
  });

  it('derives one batch id per exact line set and chunks in order', () => {
    expect(batchIdFor('s1', ['a', 'b'])).toBe(batchIdFor('s1', ['a', 'b']));
    expect(batchIdFor('s1', ['a', 'b'])).not.toBe(batchIdFor('s1', ['a']));
    expect(batchIdFor('s1', ['a'])).toMatch(/^0x[0-9a-f]{64}$/);
    expect(chunk([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('jitters a busy wallet\'s retry within [0.5, 1.5) x base', () => {
    fc.assert(fc.property(fc.integer({ min: 1_000, max: 600_000 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (baseMs, random) => {
      const delayMs = busyRetryDelayMs(baseMs, random);
      return Number.isInteger(delayMs) && delayMs >= baseMs / 2 - 1 && delayMs < baseMs * 1.5;
    }));
    // The largest random below 1 (fast-check draws it): the product rounds up to the base.
    expect(busyRetryDelayMs(1_000, 1 - 2 ** -53)).toBe(1_499);
    expect(busyRetryDelayMs(1_001, 1 - 2 ** -53)).toBe(1_501);
    // Spread, not one value: retries do not keep one phase against a periodic holder.
    expect(new Set([0, 0.25, 0.5, 0.75].map((r) => busyRetryDelayMs(30_000, r))).size).toBe(4);
  });
});
