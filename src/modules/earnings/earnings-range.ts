// Pure: the UTC day range and grouping of an earnings query. No Nest, no I/O; `now` is injected.
import { validationFailed } from '../../common/errors/index.js';

export const DAY_MS = 86_400_000;
export const EARNINGS_RANGE_DAYS_DEFAULT = 30;
/** Default longest range; the service reads the configured one (EARNINGS_RANGE_DAYS_MAX). */
export const EARNINGS_RANGE_DAYS_MAX_DEFAULT = 366;
// Dates outside these years are typos, not earnings queries (and would overflow DATE arithmetic).
const YEAR_MIN = 2000;
const YEAR_MAX = 9999;

export const GROUP_BY_VALUES = ['day', 'model', 'day,model'] as const;
export type GroupBy = (typeof GROUP_BY_VALUES)[number];

export interface EarningsRange {
  /** Inclusive, midnight UTC. */
  from: Date;
  /** Exclusive, midnight UTC. */
  to: Date;
}

const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

function invalid(field: string, message: string): never {
  throw validationFailed([{ field, message }]);
}

/** The date part must name a real calendar day (2026-02-30 is refused, not rolled over). */
function assertCalendarDate(field: string, year: number, month: number, day: number): void {
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCFullYear() !== year || probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) {
    invalid(field, 'is not a valid calendar date');
  }
  if (year < YEAR_MIN || year > YEAR_MAX) invalid(field, `year must be between ${YEAR_MIN} and ${YEAR_MAX}`);
}

/**
 * Parses YYYY-MM-DD (a UTC day) or an RFC 3339 timestamp. The rollup is per UTC day, so a
 * timestamp must fall exactly on midnight UTC: a partial day cannot be answered exactly and is
 * refused with a 400 rather than silently widened.
 */
export function parseDayBoundary(text: string, field: string): Date {
  const dateOnly = DATE_ONLY.exec(text);
  if (dateOnly) {
    const [year, month, day] = [Number(dateOnly[1]), Number(dateOnly[2]), Number(dateOnly[3])];
    assertCalendarDate(field, year, month, day);
    return new Date(Date.UTC(year, month - 1, day));
  }
  const stamp = RFC3339.exec(text);
  if (!stamp) invalid(field, 'must be a date (YYYY-MM-DD) or an RFC 3339 timestamp');
  assertCalendarDate(field, Number(stamp[1]), Number(stamp[2]), Number(stamp[3]));
  const ms = Date.parse(text.replace(' ', 'T'));
  if (!Number.isFinite(ms)) invalid(field, 'is not a valid timestamp');
  if (ms % DAY_MS !== 0) invalid(field, 'must be on a UTC day boundary (00:00:00Z): earnings are kept per UTC day');
  return new Date(ms);
}

export function startOfUtcDay(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

/**
 * from inclusive, to exclusive. Defaults: `to` is the end of today (UTC), so today counts;
 * `from` is `to` minus 30 days. Refuses from > to and ranges longer than rangeDaysMax.
 */
export function resolveEarningsRange(input: { from?: string; to?: string; now: Date; rangeDaysMax: number }): EarningsRange {
  const to = input.to === undefined ? new Date(startOfUtcDay(input.now).getTime() + DAY_MS) : parseDayBoundary(input.to, 'to');
  const from = input.from === undefined ? new Date(to.getTime() - EARNINGS_RANGE_DAYS_DEFAULT * DAY_MS) : parseDayBoundary(input.from, 'from');
  if (from.getTime() > to.getTime()) invalid('from', 'must not be after to');
  const days = (to.getTime() - from.getTime()) / DAY_MS;
  if (days > input.rangeDaysMax) invalid('to', `the range must be at most ${input.rangeDaysMax} days (asked for ${days})`);
  return { from, to };
}

/** "2026-11-01" for a UTC midnight. */
export function formatDay(day: Date): string {
  return day.toISOString().slice(0, 10);
}

/** RFC 3339 without the noise of zero milliseconds: "2026-11-01T00:00:00Z". */
export function formatInstant(at: Date): string {
  return at.toISOString().replace('.000Z', 'Z');
}

export function groupsByDay(groupBy: GroupBy): boolean {
  return groupBy !== 'model';
}

export function groupsByModel(groupBy: GroupBy): boolean {
  return groupBy !== 'day';
}
