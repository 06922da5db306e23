// Pure: the calendar month (UTC) a statement covers. No Nest, no I/O; `now` is injected.
import { validationFailed } from '../../common/errors/index.js';

// Months outside these years are typos, not statements (and would overflow DATE arithmetic).
const YEAR_MIN = 2000;
const YEAR_MAX = 9999;
const MONTH_TEXT = /^(\d{4})-(\d{2})$/;

export interface StatementMonth {
  /** "YYYY-MM". */
  month: string;
  /** Inclusive: the first instant of the month, UTC. */
  from: Date;
  /** Exclusive: the first instant of the next month, UTC. */
  to: Date;
}

function invalid(message: string): never {
  throw validationFailed([{ field: 'month', message }], `month ${message}`);
}

export function monthStarting(year: number, monthIndex: number): StatementMonth {
  const from = new Date(Date.UTC(year, monthIndex, 1));
  const to = new Date(Date.UTC(year, monthIndex + 1, 1));
  return { month: from.toISOString().slice(0, 7), from, to };
}

/**
 * "2026-11" -> [2026-11-01T00:00Z, 2026-12-01T00:00Z). Refused with a 400 naming `month`: any other
 * shape, a month number outside 01..12, a year outside 2000..9999, and a month that has not begun
 * at `now` (the current month is answered: its figures so far).
 */
export function parseStatementMonth(text: string, now: Date): StatementMonth {
  const match = MONTH_TEXT.exec(text);
  if (!match) invalid('must be a calendar month YYYY-MM (UTC), for example 2026-11');
  const year = Number(match[1]);
  const monthNumber = Number(match[2]);
  if (monthNumber < 1 || monthNumber > 12) invalid('the month number must be between 01 and 12');
  if (year < YEAR_MIN || year > YEAR_MAX) invalid(`the year must be between ${YEAR_MIN} and ${YEAR_MAX}`);
  const period = monthStarting(year, monthNumber - 1);
  if (period.from.getTime() > now.getTime()) invalid(`${period.month} has not begun yet: a statement covers a month up to the current one`);
  return period;
}

/** The month before: its closing is this month's opening. */
export function previousMonth(period: StatementMonth): StatementMonth {
  return monthStarting(period.from.getUTCFullYear(), period.from.getUTCMonth() - 1);
}

/** The month is over at `now` (the current month's statement is its figures so far). */
export function hasMonthEnded(period: StatementMonth, now: Date): boolean {
  return period.to.getTime() <= now.getTime();
}
