import fc from 'fast-check';
import { DAY_MS } from '../earnings/earnings-range.js';
import { planSummary, type SummaryPlan, type TimeRange } from './usage-summary-plan.js';
import { SUMMARY_GROUPS } from './usage-explorer.schemas.js';

const inRange = (t: number, r: TimeRange) => (r.from === undefined || t >= r.from.getTime()) && (r.to === undefined || t < r.to.getTime());

/** How many parts of the plan read the instant t (the rollup by its UTC day). */
function readers(plan: SummaryPlan, t: number): number {
  const day = Math.floor(t / DAY_MS) * DAY_MS;
  const byRollup = plan.rollupDays !== null && inRange(day, plan.rollupDays) ? 1 : 0;
  return byRollup + plan.eventRanges.filter((r) => inRange(t, r)).length;
}

// Instants around a few UTC days, with millisecond offsets near midnight.
const BASE = Date.UTC(2026, 11, 1);
const instant = fc.oneof(
  fc.integer({ min: -3 * DAY_MS, max: 6 * DAY_MS }).map((ms) => BASE + ms),
  fc.tuple(fc.integer({ min: -3, max: 6 }), fc.integer({ min: -2, max: 2 })).map(([d, ms]) => BASE + d * DAY_MS + ms),
);
const bound = fc.option(instant, { nil: undefined });

describe('planSummary', () => {
  it('reads every instant of [from, to) exactly once and nothing outside it', () => {
    fc.assert(
      fc.property(bound, bound, fc.constantFrom(...SUMMARY_GROUPS), fc.boolean(), fc.boolean(), instant, (from, to, groupBy, byUser, byKey, t) => {
        fc.pre(from === undefined || to === undefined || from < to);
        const filter = { from: from === undefined ? undefined : new Date(from), to: to === undefined ? undefined : new Date(to), userId: byUser ? 'u' : undefined, keyId: byKey ? 'k' : undefined };
        const plan = planSummary(filter, groupBy);
        expect(readers(plan, t)).toBe(inRange(t, filter) ? 1 : 0);
        if (plan.rollupDays !== null) {
          for (const edge of [plan.rollupDays.from, plan.rollupDays.to]) if (edge !== undefined) expect(edge.getTime() % DAY_MS).toBe(0);
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('reads each rollup only for what its grain holds', () => {
    const week = { from: new Date(BASE), to: new Date(BASE + 7 * DAY_MS) };
    expect(planSummary(week, 'day')).toEqual({ rollup: 'contributor', rollupDays: week, eventRanges: [] });
    expect(planSummary({ ...week, model: 'm', contributorId: 'c' }, 'contributor')).toMatchObject({ rollup: 'contributor', rollupDays: week });
    // usage_user_key_daily (day, user, key, model): grouped by user or key, without a contributor.
    expect(planSummary(week, 'user')).toEqual({ rollup: 'user_key', rollupDays: week, eventRanges: [] });
    expect(planSummary({ ...week, model: 'm' }, 'key')).toMatchObject({ rollup: 'user_key', rollupDays: week });
    // A user or key filter: the events, by that filter's index.
    expect(planSummary({ ...week, userId: 'u' }, 'day')).toEqual({ rollup: null, rollupDays: null, eventRanges: [week] });
    expect(planSummary({ ...week, keyId: 'k' }, 'user')).toEqual({ rollup: null, rollupDays: null, eventRanges: [week] });
    // Neither grain holds a contributor with a user or a key: the events.
    expect(planSummary({ ...week, contributorId: 'c' }, 'user')).toEqual({ rollup: null, rollupDays: null, eventRanges: [week] });
  });

  it('reads the partial days at the edges from the events, and less than a whole day from them alone', () => {
    const from = new Date(BASE + 3_600_000); // 01:00Z
    const to = new Date(BASE + 2 * DAY_MS + 60_000); // 00:01Z two days later
    expect(planSummary({ from, to }, 'day')).toEqual({
      rollup: 'contributor',
      rollupDays: { from: new Date(BASE + DAY_MS), to: new Date(BASE + 2 * DAY_MS) },
      eventRanges: [{ from, to: new Date(BASE + DAY_MS) }, { from: new Date(BASE + 2 * DAY_MS), to }],
    });
    const hours = { from, to: new Date(BASE + DAY_MS + 3_600_000) };
    expect(planSummary(hours, 'day')).toEqual({ rollup: null, rollupDays: null, eventRanges: [hours] });
    expect(planSummary({}, 'model')).toEqual({ rollup: 'contributor', rollupDays: { from: undefined, to: undefined }, eventRanges: [] });
    expect(planSummary({}, 'user')).toEqual({ rollup: 'user_key', rollupDays: { from: undefined, to: undefined }, eventRanges: [] });
  });
});
