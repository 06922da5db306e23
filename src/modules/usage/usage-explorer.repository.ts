// Reads of the admin usage explorer: filtered pages newest first, and exact sums per group. Every
// filter has a btree ending in id (migration 20261207100000_operator_usage_explorer), so a page is
// an ordered index read per monthly partition; from/to prune the partitions. Plans and timings at
// tens of millions of events: docs/usage-explorer.md. Reads go to the replica when there is one.
import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlRunner } from '../../database/database.service.js';
import { toBigInt, toBigIntOrNull } from '../../database/sql.js';
import type { SummaryGroup } from './usage-explorer.schemas.js';
import type { EventRow as UsageEventRow } from './usage.repository.js';
import { DAY_MS } from '../earnings/earnings-range.js';
import { planSummary, type SummaryRollup, type TimeRange } from './usage-summary-plan.js';

export interface ExplorerFilter {
  status?: 'priced' | 'unpriced';
  userId?: string;
  contributorId?: string;
  model?: string;
  keyId?: string;
  from?: Date;
  to?: Date;
}

export interface ExplorerEvent {
  id: bigint;
  eventId: string;
  status: 'priced' | 'unpriced';
  model: string;
  priceVariant: string;
  userId: string;
  contributorId: string;
  keyId: string | null;
  occurredAt: Date;
  receivedAt: Date;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  holdId: string | null;
  officialAtto: bigint | null;
  chargeAtto: bigint | null;
  payoutAtto: bigint | null;
  marginAtto: bigint | null;
  contributorTier: string | null;
  priceId: bigint | null;
}

export interface SummarySums {
  events: bigint;
  promptTokens: bigint;
  completionTokens: bigint;
  officialAtto: bigint;
  chargeAtto: bigint;
  payoutAtto: bigint;
  marginAtto: bigint;
}

/** The explorer's columns of a usage_events row, and key_id. */
type EventRow = Pick<
  UsageEventRow,
  | 'id' | 'event_id' | 'status' | 'model' | 'price_variant' | 'user_id' | 'contributor_id' | 'occurred_at' | 'received_at'
  | 'prompt_tokens' | 'completion_tokens' | 'cached_tokens' | 'reasoning_tokens' | 'hold_id' | 'official_atto' | 'charge_atto'
  | 'payout_atto' | 'margin_atto' | 'contributor_tier' | 'price_id'
> & { key_id: string | null };

interface SumRow {
  key: string | null;
  events: string;
  prompt_tokens: string;
  completion_tokens: string;
  official_atto: string;
  charge_atto: string;
  payout_atto: string;
  margin_atto: string;
}

// Only what the explorer shows (no metadata or stream JSON): a CSV of millions stays light.
const COLUMNS = `id, event_id, status, model, price_variant, user_id, contributor_id, key_id, occurred_at, received_at,
  prompt_tokens, completion_tokens, cached_tokens, reasoning_tokens, hold_id, official_atto, charge_atto, payout_atto,
  margin_atto, contributor_tier, price_id`;

/** The group's key as text; the day is the UTC day of occurred_at. */
const GROUP_KEYS: Record<SummaryGroup, string> = {
  day: `to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
  model: 'model',
  user: 'user_id',
  contributor: 'contributor_id',
  key: 'key_id',
};

const SUMS = `count(*) AS events, coalesce(sum(prompt_tokens), 0) AS prompt_tokens, coalesce(sum(completion_tokens), 0) AS completion_tokens,
  coalesce(sum(official_atto), 0) AS official_atto, coalesce(sum(charge_atto), 0) AS charge_atto,
  coalesce(sum(payout_atto), 0) AS payout_atto, coalesce(sum(margin_atto), 0) AS margin_atto`;

/** SUMS over rows that are already sums (the parts of a summary). */
const SUMS_OF_SUMS = SUMS.replace('count(*) AS events', 'coalesce(sum(events), 0) AS events');

/** WHERE clause of a filter, its values appended to params; beforeId pages below a cursor. */
function whereOf(filter: ExplorerFilter, beforeId: bigint | null, params: unknown[]): string {
  const clauses: string[] = [];
  const add = (clause: (n: string) => string, value: unknown) => {
    params.push(value);
    clauses.push(clause(`$${params.length}`));
  };
  if (filter.status !== undefined) add((p) => `status = ${p}`, filter.status);
  if (filter.userId !== undefined) add((p) => `user_id = ${p}`, filter.userId);
  if (filter.contributorId !== undefined) add((p) => `contributor_id = ${p}`, filter.contributorId);
  if (filter.model !== undefined) add((p) => `model = ${p}`, filter.model);
  if (filter.keyId !== undefined) add((p) => `key_id = ${p}`, filter.keyId);
  if (filter.from !== undefined) add((p) => `occurred_at >= ${p}`, filter.from);
  if (filter.to !== undefined) add((p) => `occurred_at < ${p}`, filter.to);
  if (beforeId !== null) add((p) => `id < ${p}::bigint`, beforeId.toString());
  return clauses.length === 0 ? '' : `WHERE ${clauses.join(' AND ')}`;
}

@Injectable()
export class UsageExplorerRepository {
  constructor(private readonly db: DatabaseService) {}

  /** At most `limit` events matching the filter, newest (highest id) first, below `beforeId`. */
  async page(filter: ExplorerFilter, limit: number, beforeId: bigint | null): Promise<ExplorerEvent[]> {
    const params: unknown[] = [];
    const where = whereOf(filter, beforeId, params);
    const result = await this.db.readPool.query<EventRow>(
      `SELECT ${COLUMNS} FROM usage_events ${where} ORDER BY id DESC LIMIT $${params.length + 1}`,
      [...params, limit],
    );
    return result.rows.map(eventFromRow);
  }

  /**
   * Sums of the priced events matching the filter (its status aside) per group, ordered by key, and
   * over all. Whole UTC days come from a daily rollup where one's grain answers (usage-summary-plan.ts:
   * contributor_usage_daily, or usage_user_key_daily plus the events above its frontier), the rest
   * and what the rollup does not cover (rollupCover) from the events; one snapshot.
   */
  async summary(filter: ExplorerFilter, groupBy: SummaryGroup): Promise<{ groups: Array<{ key: string | null } & SummarySums>; totals: SummarySums }> {
    const plan = planSummary(filter, groupBy);
    const days = plan.rollupDays;
    if (plan.rollup === null || days === null) {
      const params: unknown[] = [];
      return sumParts(this.db.readPool, eventParts(filter, groupBy, plan.eventRanges, params), params);
    }
    const rollup = plan.rollup;
    // What the rollup does not cover, then the sums: one snapshot.
    return this.db.readSnapshot(async (client) => {
      const cover = await rollupCover(client, days, rollup);
      const params: unknown[] = [];
      const parts = eventParts(filter, groupBy, [...plan.eventRanges, ...cover.eventRanges], params);
      if (rollup === 'contributor') parts.push(rollupPart(filter, days, groupBy, cover, params));
      else parts.push(userKeyRollupPart(filter, days, groupBy, cover, params), eventsAbovePart(filter, days, groupBy, cover, params));
      return sumParts(client, parts, params);
    });
  }
}

/** The priced events matching the filter in the ranges (OR-ed in one part: a partition holding several is scanned once). */
function eventParts(filter: ExplorerFilter, groupBy: SummaryGroup, ranges: TimeRange[], params: unknown[]): string[] {
  if (ranges.length === 0) return [];
  const where = whereOf({ ...filter, status: 'priced', from: undefined, to: undefined }, null, params);
  const clauses = ranges.map((range) => rangeClause(range, params)).join(' OR ');
  return [`SELECT ${GROUP_KEYS[groupBy]} AS key, ${SUMS} FROM usage_events ${where ? `${where} AND` : 'WHERE'} (${clauses}) GROUP BY 1`];
}

/** The parts' sums per group and over all, in one pass: the grand total is the row of GROUPING SETS' empty set. */
async function sumParts(runner: SqlRunner, parts: string[], params: unknown[]): Promise<{ groups: Array<{ key: string | null } & SummarySums>; totals: SummarySums }> {
  const result = await runner.query<SumRow & { total: boolean }>(
    `SELECT key, grouping(key) = 1 AS total, ${SUMS_OF_SUMS}
     FROM (${parts.join('\n       UNION ALL ')}) AS part
     GROUP BY GROUPING SETS ((key), ())
     ORDER BY total, key COLLATE "C" NULLS LAST`,
    params,
  );
  const groups = result.rows.filter((r) => !r.total).map((r) => ({ key: r.key, ...sumsFromRow(r) }));
  const totalRow = result.rows.find((r) => r.total);
  return { groups, totals: totalRow ? sumsFromRow(totalRow) : sumsFromRow(EMPTY_SUMS) };
}

/**
 * What a rollup does not cover of the whole days, read from the events instead (eventRanges) and
 * left out of the rollup (excludedDays, excludedMonths): the archived months (npm run archive drops
 * their events but not their rollup rows; late events of such a month land in the default
 * partition) and, for usage_user_key_daily, the days whose events were updated or deleted since
 * the worker last computed them (a change row). usage_user_key_daily also covers only the priced
 * events with ids at or below its frontier (throughEventId): the events above it are added.
 */
interface RollupCover {
  throughEventId: bigint;
  excludedDays: string[];
  excludedMonths: string[];
  eventRanges: TimeRange[];
}

async function rollupCover(client: SqlRunner, days: TimeRange, rollup: SummaryRollup): Promise<RollupCover> {
  const dayText = (d: Date | undefined) => (d === undefined ? null : d.toISOString().slice(0, 10));
  const result = await client.query<{ through_event_id: string; changed: string[] | null; archived: string[] | null }>(
    `SELECT (SELECT through_event_id FROM usage_user_key_rollup_state) AS through_event_id,
       (SELECT array_agg(DISTINCT to_char(day, 'YYYY-MM-DD')) FROM usage_user_key_changes
         WHERE $3 AND ($1::date IS NULL OR day >= $1::date) AND ($2::date IS NULL OR day < $2::date)) AS changed,
       (SELECT array_agg(to_char(month, 'YYYY-MM-DD')) FROM usage_archives
         WHERE ($1::date IS NULL OR month >= date_trunc('month', $1::date)) AND ($2::date IS NULL OR month < $2::date)) AS archived`,
    [dayText(days.from), dayText(days.to), rollup === 'user_key'],
  );
  const row = result.rows[0]!;
  const excludedMonths = row.archived ?? [];
  // A changed day of an archived month is read with its month.
  const excludedDays = (row.changed ?? []).filter((d) => !excludedMonths.includes(`${d.slice(0, 7)}-01`));
  const clip = (from: Date, to: Date): TimeRange => ({
    from: days.from !== undefined && days.from > from ? days.from : from,
    to: days.to !== undefined && days.to < to ? days.to : to,
  });
  const eventRanges = [
    ...excludedDays.map((d) => clip(new Date(`${d}T00:00:00Z`), new Date(Date.parse(`${d}T00:00:00Z`) + DAY_MS))),
    ...excludedMonths.map((m) => {
      const start = new Date(`${m}T00:00:00Z`);
      return clip(start, new Date(Date.UTC(start.getUTCFullYear(), start.getUTCMonth() + 1, 1)));
    }),
  ];
  return { throughEventId: toBigInt(row.through_event_id ?? '0'), excludedDays, excludedMonths, eventRanges };
}
/** occurred_at in [from, to) (an absent bound is open; the plan never gives both absent). */
function rangeClause(range: TimeRange, params: unknown[]): string {
  const clauses: string[] = [];
  for (const [op, value] of [['>=', range.from], ['<', range.to]] as const) {
    if (value === undefined) continue;
    params.push(value);
    clauses.push(`occurred_at ${op} $${params.length}`);
  }
  return clauses.length === 0 ? 'true' : `(${clauses.join(' AND ')})`;
}

/** The rollup's group key, as GROUP_KEYS' of the events (the day as YYYY-MM-DD). */
const ROLLUP_GROUP_KEYS: Record<'day' | 'model' | 'contributor', string> = {
  day: `to_char(r.day, 'YYYY-MM-DD')`,
  model: 'r.model',
  contributor: 'r.contributor_id',
};

/** usage_user_key_daily's group key, as GROUP_KEYS' of the events ('' is an event without key_id). */
const USER_KEY_GROUP_KEYS: Record<'user' | 'key', string> = {
  user: 'r.user_id',
  key: `nullif(r.key_id, '')`,
};

/** A parameter's placeholder (its value appended to params). */
function placeholder(params: unknown[], value: unknown): string {
  params.push(value);
  return `$${params.length}`;
}

/** usage_user_key_daily's rows of the whole days (the model filter applies), but those the cover reads from the events. */
function userKeyRollupPart(filter: ExplorerFilter, days: TimeRange, groupBy: SummaryGroup, cover: RollupCover, params: unknown[]): string {
  const key = USER_KEY_GROUP_KEYS[groupBy as keyof typeof USER_KEY_GROUP_KEYS];
  const p = (value: unknown) => placeholder(params, value);
  const clauses = [`r.day <> ALL (${p(cover.excludedDays)}::date[])`, `date_trunc('month', r.day)::date <> ALL (${p(cover.excludedMonths)}::date[])`];
  if (days.from !== undefined) clauses.push(`r.day >= ${p(days.from.toISOString().slice(0, 10))}::date`);
  if (days.to !== undefined) clauses.push(`r.day < ${p(days.to.toISOString().slice(0, 10))}::date`);
  // The plan sends user_id and key_id filters to the events (their indexes): the model filter only.
  if (filter.model !== undefined) clauses.push(`r.model = ${p(filter.model)}`);
  return `SELECT ${key} AS key, sum(r.events) AS events, sum(r.prompt_tokens) AS prompt_tokens, sum(r.completion_tokens) AS completion_tokens,
      sum(r.official_atto) AS official_atto, sum(r.charge_atto) AS charge_atto, sum(r.payout_atto) AS payout_atto, sum(r.margin_atto) AS margin_atto
    FROM usage_user_key_daily r WHERE ${clauses.join(' AND ')} GROUP BY 1`;
}

/** The priced events of the whole days above the rollup's frontier (each partition's primary key), but those the cover reads whole. */
function eventsAbovePart(filter: ExplorerFilter, days: TimeRange, groupBy: SummaryGroup, cover: RollupCover, params: unknown[]): string {
  const where = whereOf({ ...filter, status: 'priced', from: days.from, to: days.to }, null, params);
  const utcDay = `(occurred_at AT TIME ZONE 'UTC')::date`;
  const above = [
    `id > ${placeholder(params, cover.throughEventId.toString())}::bigint`,
    `${utcDay} <> ALL (${placeholder(params, cover.excludedDays)}::date[])`,
    `date_trunc('month', ${utcDay})::date <> ALL (${placeholder(params, cover.excludedMonths)}::date[])`,
  ];
  return `SELECT ${GROUP_KEYS[groupBy]} AS key, ${SUMS} FROM usage_events ${where ? `${where} AND` : 'WHERE'} ${above.join(' AND ')} GROUP BY 1`;
}

/**
 * contributor_usage_daily's rows of the days (contributor and model filters apply; the plan leaves
 * user and key to usage_user_key_daily), but the archived months' (read from their events,
 * rollupCover). Without a contributor the days are read per contributor (a loose index scan of the primary key, contributor_id first): one short range per contributor
 * instead of every day of the table.
 */
function rollupPart(filter: ExplorerFilter, days: TimeRange, groupBy: SummaryGroup, cover: RollupCover, params: unknown[]): string {
  const key = ROLLUP_GROUP_KEYS[groupBy as keyof typeof ROLLUP_GROUP_KEYS];
  const param = (value: unknown) => placeholder(params, value);
  const clauses = [`date_trunc('month', r.day)::date <> ALL (${param(cover.excludedMonths)}::date[])`];
  if (days.from !== undefined) clauses.push(`r.day >= ${param(days.from.toISOString().slice(0, 10))}::date`);
  if (days.to !== undefined) clauses.push(`r.day < ${param(days.to.toISOString().slice(0, 10))}::date`);
  if (filter.model !== undefined) clauses.push(`r.model = ${param(filter.model)}`);
  const sums = `sum(r.events) AS events, sum(r.prompt_tokens) AS prompt_tokens, sum(r.completion_tokens) AS completion_tokens,
    sum(r.official_atto) AS official_atto, sum(r.charge_atto) AS charge_atto, sum(r.earned_atto) AS payout_atto, sum(r.margin_atto) AS margin_atto`;
  if (filter.contributorId !== undefined) {
    clauses.push(`r.contributor_id = ${param(filter.contributorId)}`);
    return `SELECT ${key} AS key, ${sums} FROM contributor_usage_daily r WHERE ${clauses.join(' AND ')} GROUP BY 1`;
  }
  return `SELECT ${key} AS key, ${sums}
    FROM (WITH RECURSIVE c AS (
            (SELECT contributor_id FROM contributor_usage_daily ORDER BY contributor_id LIMIT 1)
            UNION ALL
            SELECT (SELECT n.contributor_id FROM contributor_usage_daily n WHERE n.contributor_id > c.contributor_id ORDER BY n.contributor_id LIMIT 1)
            FROM c WHERE c.contributor_id IS NOT NULL)
          SELECT contributor_id FROM c WHERE contributor_id IS NOT NULL) AS c
    JOIN contributor_usage_daily r ON r.contributor_id = c.contributor_id
    WHERE ${clauses.join(' AND ')}
    GROUP BY 1`;
}

const EMPTY_SUMS: SumRow = { key: null, events: '0', prompt_tokens: '0', completion_tokens: '0', official_atto: '0', charge_atto: '0', payout_atto: '0', margin_atto: '0' };

function sumsFromRow(r: SumRow): SummarySums {
  return {
    events: toBigInt(r.events),
    promptTokens: toBigInt(r.prompt_tokens),
    completionTokens: toBigInt(r.completion_tokens),
    officialAtto: toBigInt(r.official_atto),
    chargeAtto: toBigInt(r.charge_atto),
    payoutAtto: toBigInt(r.payout_atto),
    marginAtto: toBigInt(r.margin_atto),
  };
}

function eventFromRow(r: EventRow): ExplorerEvent {
  return {
    id: toBigInt(r.id),
    eventId: r.event_id,
    status: r.status,
    model: r.model,
    priceVariant: r.price_variant,
    userId: r.user_id,
    contributorId: r.contributor_id,
    keyId: r.key_id,
    occurredAt: r.occurred_at,
    receivedAt: r.received_at,
    promptTokens: r.prompt_tokens,
    completionTokens: r.completion_tokens,
    cachedTokens: r.cached_tokens,
    reasoningTokens: r.reasoning_tokens,
    holdId: r.hold_id,
    officialAtto: toBigIntOrNull(r.official_atto),
    chargeAtto: toBigIntOrNull(r.charge_atto),
    payoutAtto: toBigIntOrNull(r.payout_atto),
    marginAtto: toBigIntOrNull(r.margin_atto),
    contributorTier: r.contributor_tier,
    priceId: toBigIntOrNull(r.price_id),
  };
}
