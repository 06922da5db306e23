// A budget's current period in UTC. Pure. `end` is exclusive; a total budget has no bounds.
export const BUDGET_PERIODS = ['day', 'week', 'month', 'total'] as const;
export type BudgetPeriod = (typeof BUDGET_PERIODS)[number];

export interface PeriodRange {
  start: Date | null;
  end: Date | null;
}

const DAY_MS = 24 * 3600 * 1000;

function utcMidnight(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()));
}

export function periodRange(period: BudgetPeriod, now: Date): PeriodRange {
  switch (period) {
    case 'day': {
      const start = utcMidnight(now);
      return { start, end: new Date(start.getTime() + DAY_MS) };
    }
    case 'week': {
      // ISO weeks start on Monday: getUTCDay() is 0 on Sunday, so Sunday is 6 days after Monday.
      const daysSinceMonday = (now.getUTCDay() + 6) % 7;
      const start = new Date(utcMidnight(now).getTime() - daysSinceMonday * DAY_MS);
      return { start, end: new Date(start.getTime() + 7 * DAY_MS) };
    }
    case 'month':
      return { start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)), end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)) };
    case 'total':
      return { start: null, end: null };
  }
}

/** The key of a period for once-per-period facts (alerts): its start, the epoch for a total budget. */
export function periodKey(range: PeriodRange): Date {
  return range.start ?? new Date(0);
}
