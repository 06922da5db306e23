// Reads of the admin usage explorer: filtered pages newest first, and exact sums per group. Every
// filter has a btree ending in id (migration 20261207100000_operator_usage_explorer), so a page is
// an ordered index read per monthly partition; from/to prune the partitions. Plans and timings at
// tens of millions of events: docs/usage-explorer.md. Reads go to the replica when there is one.
import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { toBigInt, toBigIntOrNull } from '../../database/sql.js';
import type { SummaryGroup } from './usage-explorer.schemas.js';
import type { EventRow as UsageEventRow } from './usage.repository.js';
import { planSummary, type TimeRange } from './usage-summary-plan.js';

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
   * over all. Whole UTC days of a day/model/contributor summary come from the daily rollup, the rest
   * from the events (usage-summary-plan.ts); one statement, so both parts see one snapshot.
   */
  async summary(filter: ExplorerFilter, groupBy: SummaryGroup): Promise<{ groups: Array<{ key: string | null } & SummarySums>; totals: SummarySums }> {
    const plan = planSummary(filter, groupBy);
    const params: unknown[] = [];
    const parts: string[] = [];
    if (plan.eventRanges.length > 0) {
      // The ranges OR-ed in one part: a partition holding both edges is scanned once.
      const where = whereOf({ ...filter, status: 'priced', from: undefined, to: undefined }, null, params);
      const ranges = plan.eventRanges.map((range) => rangeClause(range, params)).join(' OR ');
      parts.push(`SELECT ${GROUP_KEYS[groupBy]} AS key, ${SUMS} FROM usage_events ${where ? `${where} AND` : 'WHERE'} (${ranges}) GROUP BY 1`);
    }
    if (plan.rollupDays !== null) parts.push(rollupPart(filter, plan.rollupDays, groupBy, params));
    // One pass: the groups, and the grand total as the row of GROUPING SETS' empty set.
    const result = await this.db.readPool.query<SumRow & { total: boolean }>(
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

/**
 * The rollup's rows of the days (contributor and model filters apply; the plan leaves user and key
 * to the events). Months archived (npm run archive) keep their rollup rows but not their events: left
 * out, as the events' sums have them. Without a contributor the days are read per contributor (a
 * loose index scan of the primary key, contributor_id first): one short range per contributor
 * instead of every day of the table.
 */
function rollupPart(filter: ExplorerFilter, days: TimeRange, groupBy: SummaryGroup, params: unknown[]): string {
  const key = ROLLUP_GROUP_KEYS[groupBy as keyof typeof ROLLUP_GROUP_KEYS];
  const param = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const clauses = [`NOT EXISTS (SELECT 1 FROM usage_archives a WHERE a.month = date_trunc('month', r.day)::date)`];
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
