/**
 * Index of the last element <= target in an ascending array, -1 when all are greater: "the version
 * in force at" for price and tier histories.
 */
export function lastIndexAtOrBefore(sorted: readonly number[], target: number): number {
  let low = 0;
  let high = sorted.length - 1;
  let found = -1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]! <= target) {
      found = middle;
      low = middle + 1;
    } else {
      high = middle - 1;
    }
  }
  return found;
}
