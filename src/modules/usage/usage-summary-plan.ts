// Which part of a usage summary the daily rollup answers and which part the events must.
// contributor_usage_daily holds the priced events' sums per contributor, UTC day of occurred_at
// and model, written in the transaction that writes (or reprices) them, so for whole UTC days it
// equals summing those days' events, without reading them. It has no user or key: a user or key
// filter or grouping reads the events; so do the partial days at the edges of from/to.
import { DAY_MS } from '../earnings/earnings-range.js';
import type { ExplorerFilter } from './usage-explorer.repository.js';
import type { SummaryGroup } from './usage-explorer.schemas.js';

/** The summary's filter (its status is always priced). */
export type SummaryPlanFilter = Omit<ExplorerFilter, 'status'>;

/** occurred_at in [from, to); an absent bound is open. */
export type TimeRange = Pick<ExplorerFilter, 'from' | 'to'>;

export interface SummaryPlan {
  /** UTC days [fromDay, toDay) read from the rollup (bounds at UTC midnight; absent: open), or null. */
  rollupDays: TimeRange | null;
  /** Ranges of occurred_at read from the events, disjoint from each other and from rollupDays. */
  eventRanges: TimeRange[];
}

/** The group-bys the rollup's grain (contributor, day, model) can answer. */
export const ROLLUP_GROUPS: ReadonlySet<SummaryGroup> = new Set(['day', 'model', 'contributor']);

function floorDay(t: Date): Date {
  return new Date(Math.floor(t.getTime() / DAY_MS) * DAY_MS);
}

function ceilDay(t: Date): Date {
  return new Date(Math.ceil(t.getTime() / DAY_MS) * DAY_MS);
}

export function planSummary(filter: SummaryPlanFilter, groupBy: SummaryGroup): SummaryPlan {
  const whole: TimeRange = { from: filter.from, to: filter.to };
  if (!ROLLUP_GROUPS.has(groupBy) || filter.userId !== undefined || filter.keyId !== undefined) {
    return { rollupDays: null, eventRanges: [whole] };
  }
  const fromDay = filter.from === undefined ? undefined : ceilDay(filter.from);
  const toDay = filter.to === undefined ? undefined : floorDay(filter.to);
  // Less than one whole UTC day between the bounds: the events alone.
  if (fromDay !== undefined && toDay !== undefined && fromDay >= toDay) return { rollupDays: null, eventRanges: [whole] };
  const eventRanges: TimeRange[] = [];
  if (filter.from !== undefined && filter.from < fromDay!) eventRanges.push({ from: filter.from, to: fromDay });
  if (filter.to !== undefined && toDay! < filter.to) eventRanges.push({ from: toDay, to: filter.to });
  return { rollupDays: { from: fromDay, to: toDay }, eventRanges };
}
