// The late sweep's slices: any LATE_SWEEP_SLICES consecutive runs check every minute of the window
// once, including the minute that holds the window's end (rows in it before the end are behind
// the overlap, so only the sweep can find them).
import fc from 'fast-check';
import { CALL_DURATION_MAX_MS, LATE_SWEEP_SLICES, lateSweepMinutes } from './litellm-late-sweep.js';

const MINUTE_MS = 60_000;
const minuteOf = (ms: number) => new Date(Math.floor(ms / MINUTE_MS) * MINUTE_MS).toISOString().replace('.000Z', 'Z');

describe('lateSweepMinutes', () => {
  it('covers every minute of the window exactly once in any run of LATE_SWEEP_SLICES consecutive runs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }),
        fc.integer({ min: 60, max: 6 * 3600 }),
        fc.integer({ min: 0, max: 3 * 3600_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (nowMs, lateSeconds, behindMs, firstRun, where) => {
          const lateMs = lateSeconds * 1000;
          const untilMs = nowMs - behindMs;
          const seen = new Map<string, number>();
          for (let run = firstRun; run < firstRun + LATE_SWEEP_SLICES; run += 1) {
            for (const m of lateSweepMinutes(nowMs, lateMs, untilMs, run)) seen.set(m, (seen.get(m) ?? 0) + 1);
          }
          expect([...seen.values()].every((n) => n === 1)).toBe(true);
          // A row that started anywhere in [window start, untilMs) is in a minute some run checks.
          const startMs = nowMs - lateMs - CALL_DURATION_MAX_MS;
          if (untilMs <= startMs) return;
          const rowMs = Math.floor(startMs + where * (untilMs - 1 - startMs));
          expect(seen.has(minuteOf(rowMs))).toBe(true);
          // The minute holding untilMs itself (when untilMs is not on a minute).
          if (untilMs % MINUTE_MS !== 0) expect(seen.has(minuteOf(untilMs - 1))).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
