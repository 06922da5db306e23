// Which part of a usage summary a daily rollup answers and which part the events must.
// contributor_usage_daily holds the priced events' sums per contributor, UTC day of occurred_at
// and model, written in the transaction that writes (or reprices) them, so for whole UTC days it
// equals summing those days' events, without reading them. It has no user or key: a grouping by
// user or key reads usage_user_key_daily instead (per UTC day, user, key and model, kept by the
// worker up to a frontier of event ids; the repository adds the events above it and reads the days
// changed since from their events). A user_id or key_id filter, or a contributor filter with a
// grouping by user or key, reads the events; so do the partial days at the edges of from/to.
import { DAY_MS } from '../earnings/earnings-range.js';
import type { ExplorerFilter } from './usage-explorer.repository.js';
import type { SummaryGroup } from './usage-explorer.schemas.js';

/** The summary's filter (its status is always priced). */
export type SummaryPlanFilter = Omit<ExplorerFilter, 'status'>;

/** occurred_at in [from, to); an absent bound is open. */
export type TimeRange = Pick<ExplorerFilter, 'from' | 'to'>;

/** contributor_usage_daily, or usage_user_key_daily. */
export type SummaryRollup = 'contributor' | 'user_key';

export interface SummaryPlan {
  /** The rollup the whole days are read from (null: none, rollupDays is null). */
  rollup: SummaryRollup | null;
  /** UTC days [fromDay, toDay) read from the rollup (bounds at UTC midnight; absent: open), or null. */
  rollupDays: TimeRange | null;
  /** Ranges of occurred_at read from the events, disjoint from each other and from rollupDays. */
  eventRanges: TimeRange[];
}

/** The group-bys contributor_usage_daily's grain (contributor, day, model) can answer. */
export const ROLLUP_GROUPS: ReadonlySet<SummaryGroup> = new Set(['day', 'model', 'contributor']);

/**
 * The rollup whose grain answers the group-by and the filter, if one does. A user_id or key_id
 * filter reads the events: its index (ending in id) finds that user's or key's events directly,
 * while usage_user_key_daily, keyed by day first, would read every row of the window's days.
 */
export function summaryRollup(filter: SummaryPlanFilter, groupBy: SummaryGroup): SummaryRollup | null {
  if (filter.userId !== undefined || filter.keyId !== undefined) return null;
  if (groupBy === 'user' || groupBy === 'key') return filter.contributorId === undefined ? 'user_key' : null;
  return ROLLUP_GROUPS.has(groupBy) ? 'contributor' : null;
}

function floorDay(t: Date): Date {
  return new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);
}

function ceilDay(t: Date): Date {
  return new Date(Math.ceil(t.getTime() / DAY_MS) * DAY_MS);
}

export function planSummary(filter: SummaryPlanFilter, groupBy: SummaryGroup): SummaryPlan {
  const whole: TimeRange = { from: filter.from, to: filter.to };
  const rollup = summaryRollup(filter, groupBy);
  if (rollup === null) return { rollup, rollupDays: null, eventRanges: [whole] };
  const fromDay = filter.from === undefined ? undefined : ceilDay(filter.from);
  const toDay = filter.to === undefined ? undefined : floorDay(filter.to);
  // Less than one whole UTC day between the bounds: the events alone.
  if (fromDay !== undefined && toDay !== undefined && fromDay >= toDay) return { rollup: null, rollupDays: null, eventRanges: [whole] };
  const eventRanges: TimeRange[] = [];
  if (filter.from !== undefined && filter.from < fromDay!) eventRanges.push({ from: filter.from, to: fromDay });
  if (filter.to !== undefined && toDay! < filter.to) eventRanges.push({ from: toDay, to: filter.to });
  return { rollup, rollupDays: { from: fromDay, to: toDay }, eventRanges };
}
