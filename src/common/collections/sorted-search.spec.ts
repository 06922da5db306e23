import fc from 'fast-check';
import { lastIndexAtOrBefore } from './sorted-search.js';

describe('lastIndexAtOrBefore', () => {
  it('finds the last element at or before the target', () => {
    expect(lastIndexAtOrBefore([], 5)).toBe(-1);
    expect(lastIndexAtOrBefore([10, 20, 30], 5)).toBe(-1);
    expect(lastIndexAtOrBefore([10, 20, 30], 20)).toBe(1);
    expect(lastIndexAtOrBefore([10, 20, 30], 29)).toBe(1);
    expect(lastIndexAtOrBefore([10, 20, 30], 99)).toBe(2);
  });

  it('agrees with a linear scan', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -1000, max: 1000 })), fc.integer({ min: -1100, max: 1100 }), (values, target) => {
        const sorted = [...new Set(values)].sort((a, b) => a - b);
        let expected = -1;
        sorted.forEach((v, i) => {
          if (v <= target) expected = i;
        });
        expect(lastIndexAtOrBefore(sorted, target)).toBe(expected);
      }),
    );
  });
});
