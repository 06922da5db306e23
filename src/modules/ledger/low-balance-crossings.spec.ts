import fc from 'fast-check';
import { lowBalanceCrossings } from './low-balance-crossings.js';

const USD = 10n ** 18n;

describe('lowBalanceCrossings', () => {
  it('sees a move from at or above the threshold to below it, and nothing else', () => {
    const changes = [
      { userId: 'a', deltaAtto: -1n, balanceAtto: USD - 1n }, // 1 -> just below: crossing
      { userId: 'b', deltaAtto: -USD, balanceAtto: -USD }, // 0 -> -1: was already below
      { userId: 'c', deltaAtto: -1n, balanceAtto: USD }, // 1.000..01 -> 1: still at the threshold
      { userId: 'd', deltaAtto: 5n * USD, balanceAtto: USD / 2n }, // going up
    ];
    expect(lowBalanceCrossings({ changes, thresholdAtto: USD })).toEqual([{ userId: 'a', previousAtto: USD, balanceAtto: USD - 1n }]);
  });

  it('property: charging a balance step by step crosses below the threshold exactly once per fall', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n * USD }), fc.bigInt({ min: 0n, max: 5n * USD }), fc.array(fc.bigInt({ min: -USD, max: USD }), { maxLength: 60 }), (start, threshold, steps) => {
        let balance = start;
        let crossings = 0;
        let expected = 0;
        for (const delta of steps) {
          const next = balance + delta;
          if (balance >= threshold && next < threshold) expected += 1;
          crossings += lowBalanceCrossings({ changes: [{ userId: 'u', deltaAtto: delta, balanceAtto: next }], thresholdAtto: threshold }).length;
          balance = next;
        }
        expect(crossings).toBe(expected);
        // Between two crossings the balance must have been back at or above the threshold.
      }),
      { seed: 21, numRuns: 300 },
    );
  });
});
