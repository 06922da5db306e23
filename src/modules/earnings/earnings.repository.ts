import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';
import type { RollupSums } from './rollup-sums.js';
import type { GroupBy } from './earnings-range.js';
import type { EarningsRow } from './earnings-report.js';

export interface ContributorSummary {
  id: string;
  tier: string;
  status: string;
  payoutAddress: string;
}

export interface RollupMismatch {
  contributorId: string;
  day: string;
  model: string;
  rollup: RollupSums | null;
  events: RollupSums | null;
}

// Fixed SQL fragments per grouping (never built from input). Models sort bytewise (COLLATE "C")
// so the order does not depend on the database's locale.
const GROUPING_SQL: Record<GroupBy, { select: string; groupOrder: string }> = {
  day: { select: `to_char(day, 'YYYY-MM-DD') AS day, NULL::text AS model`, groupOrder: 'day' },
  model: { select: `NULL::text AS day, model COLLATE "C" AS model`, groupOrder: 'model COLLATE "C"' },
  'day,model': { select: `to_char(day, 'YYYY-MM-DD') AS day, model COLLATE "C" AS model`, groupOrder: 'day, model COLLATE "C"' },
};

// The rollup check scans every priced event: give it more than the pool's default statement timeout.
export const ROLLUP_CHECK_TIMEOUT = '10min';

interface SumsRow {
  events: string;
  prompt_tokens: string;
  completion_tokens: string;
  cached_tokens: string;
  cache_write_tokens: string;
  audio_tokens: string;
  official_atto: string;
  earned_atto: string;
  refunds?: string;
  refunded_atto?: string;
  clawed_back_atto?: string;
}

function sumsOf(row: SumsRow) {
  return {
    events: toBigInt(row.events),
    promptTokens: toBigInt(row.prompt_tokens),
    completionTokens: toBigInt(row.completion_tokens),
    cachedTokens: toBigInt(row.cached_tokens),
    cacheWriteTokens: toBigInt(row.cache_write_tokens),
    audioTokens: toBigInt(row.audio_tokens),
    officialAtto: toBigInt(row.official_atto),
    earnedAtto: toBigInt(row.earned_atto),
    refunds: toBigInt(row.refunds ?? '0'),
    refundedAtto: toBigInt(row.refunded_atto ?? '0'),
    clawedBackAtto: toBigInt(row.clawed_back_atto ?? '0'),
  };
}

/**
 * Contributor-facing reads. Earnings come only from contributor_usage_daily (one row per
 * contributor, UTC day and model), never from usage_events: a 30-day query reads at most
 * 30 x models rows through the primary key, whatever the number of events.
 */
@Injectable()
export class EarningsRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Read here rather than through the contributors module: that module includes these balances
   * in its own responses, so depending on it would make the two modules import each other.
   */
  async findContributor(id: string, client?: SqlClient): Promise<ContributorSummary | null> {
    const runner = client ?? this.db.pool;
    const result = await runner.query<{ id: string; tier: string; status: string; payout_address: string }>(
      'SELECT id, tier, status, payout_address FROM contributors WHERE id = $1',
      [id],
    );
    const row = result.rows[0];
    return row ? { id: row.id, tier: row.tier, status: row.status, payoutAddress: row.payout_address } : null;
  }

  /** Sums per group over [fromDay, toDay); at most rowsMax + 1 rows so the caller can tell overflow. */
  async earningsRows(input: { contributorId: string; fromDay: string; toDay: string; groupBy: GroupBy; rowsMax: number }): Promise<EarningsRow[]> {
    const grouping = GROUPING_SQL[input.groupBy];
    // Usage by the day it occurred, refunds by the day they were made (history is never rewritten).
    const result = await this.db.readPool.query<SumsRow & { day: string | null; model: string | null }>(
      `SELECT ${grouping.select},
              sum(events) AS events, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
              sum(cached_tokens) AS cached_tokens, sum(cache_write_tokens) AS cache_write_tokens, sum(audio_tokens) AS audio_tokens,
              sum(official_atto) AS official_atto, sum(earned_atto) AS earned_atto,
              sum(refunds) AS refunds, sum(refunded_atto) AS refunded_atto, sum(clawed_back_atto) AS clawed_back_atto
       FROM (
         SELECT day, model, events, prompt_tokens, completion_tokens, cached_tokens, cache_write_tokens, audio_tokens,
                official_atto, earned_atto, 0::bigint AS refunds, 0::numeric AS refunded_atto, 0::numeric AS clawed_back_atto
         FROM contributor_usage_daily
         WHERE contributor_id = $1 AND day >= $2::date AND day < $3::date
         UNION ALL
         SELECT day, model, 0, 0, 0, 0, 0, 0, 0, 0, refunds, refunded_atto, clawed_back_atto
         FROM contributor_refunds_daily
         WHERE contributor_id = $1 AND day >= $2::date AND day < $3::date
       ) AS daily
       GROUP BY ${grouping.groupOrder}
       ORDER BY ${grouping.groupOrder}
       LIMIT $4`,
      [input.contributorId, input.fromDay, input.toDay, input.rowsMax + 1],
    );
    return result.rows.map((row) => ({ day: row.day, model: row.model, ...sumsOf(row) }));
  }

  /**
   * Compares every rollup row with the same sums recomputed from priced events (grouped by
   * contributor, UTC day of occurred_at, model). Full scan: an admin check, not a hot path.
   */
  async findRollupMismatches(limit: number, sinceDay: string | null = null): Promise<{ rollupRows: bigint; mismatches: RollupMismatch[] }> {
    return this.db.transaction(async (client) => {
      await client.query(`SET LOCAL statement_timeout = '${ROLLUP_CHECK_TIMEOUT}'`);
      const counted = await client.query<{ n: string }>('SELECT count(*) AS n FROM contributor_usage_daily WHERE $1::date IS NULL OR day >= $1::date', [sinceDay]);
      const result = await client.query<Record<string, string | null>>(rollupMismatchSql(SINCE_DAY_SCOPE), [limit, sinceDay]);
      return { rollupRows: toBigInt(counted.rows[0]!.n), mismatches: result.rows.map(toMismatch) };
    });
  }
}

/** Which rows the mismatch query reads: events, archived rollups and rollups of the same days. */
export interface RollupScope {
  events: string;
  archived: string;
  rollups: string;
}
/** Every day ($2 NULL) or the days from $2 on. */
const SINCE_DAY_SCOPE: RollupScope = {
  events: `FROM usage_events WHERE status = 'priced' AND ($2::date IS NULL OR occurred_at >= ($2::date::timestamp AT TIME ZONE 'UTC'))`,
  archived: `WHERE $2::date IS NULL OR day >= $2::date`,
  rollups: `WHERE $2::date IS NULL OR day >= $2::date`,
};
/**
 * Only the UTC days listed in $2, read as one occurred_at range from the first listed day ($3) to
 * the end of the last ($4): constants, so the planner prunes to those months' partitions and the
 * BRIN index on occurred_at to their block ranges (usually today's: the days written since).
 */
export const LISTED_DAYS_SCOPE: RollupScope = {
  events: `FROM usage_events WHERE status = 'priced' AND occurred_at >= $3::timestamptz AND occurred_at < $4::timestamptz
           AND (occurred_at AT TIME ZONE 'UTC')::date = ANY ($2::date[])`,
  archived: `WHERE day = ANY ($2::date[])`,
  rollups: `WHERE day = ANY ($2::date[])`,
};

export function rollupMismatchSql(scope: RollupScope): string {
  return `WITH stored AS (
           SELECT contributor_id, (occurred_at AT TIME ZONE 'UTC')::date AS day, model,
                  count(*)::bigint AS events, sum(prompt_tokens)::bigint AS prompt_tokens,
                  sum(completion_tokens)::bigint AS completion_tokens, sum(official_atto) AS official_atto,
                  sum(payout_atto) AS earned_atto, sum(charge_atto) AS charge_atto, sum(margin_atto) AS margin_atto,
                  sum(cached_tokens)::bigint AS cached_tokens,
                  sum(cache_write_5m_tokens + cache_write_1h_tokens)::bigint AS cache_write_tokens,
                  sum(prompt_audio_tokens + completion_audio_tokens)::bigint AS audio_tokens
           ${scope.events}
           GROUP BY 1, 2, 3
         ), raw AS (
           -- Archived months: what the archive summed of their events before dropping them.
           SELECT contributor_id, day, model, sum(events)::bigint AS events, sum(prompt_tokens)::bigint AS prompt_tokens,
                  sum(completion_tokens)::bigint AS completion_tokens, sum(official_atto) AS official_atto,
                  sum(earned_atto) AS earned_atto, sum(charge_atto) AS charge_atto, sum(margin_atto) AS margin_atto,
                  sum(cached_tokens)::bigint AS cached_tokens, sum(cache_write_tokens)::bigint AS cache_write_tokens,
                  sum(audio_tokens)::bigint AS audio_tokens
           FROM (SELECT * FROM stored
                 UNION ALL
                 SELECT contributor_id, day, model, events, prompt_tokens, completion_tokens, official_atto, earned_atto, charge_atto, margin_atto,
                        cached_tokens, cache_write_tokens, audio_tokens
                 FROM usage_archived_rollups ${scope.archived}) AS x
           GROUP BY 1, 2, 3)
         SELECT coalesce(r.contributor_id, d.contributor_id) AS contributor_id,
                to_char(coalesce(r.day, d.day), 'YYYY-MM-DD') AS day, coalesce(r.model, d.model) AS model,
                d.events AS d_events, d.prompt_tokens AS d_prompt_tokens, d.completion_tokens AS d_completion_tokens,
                d.official_atto AS d_official_atto, d.earned_atto AS d_earned_atto, d.charge_atto AS d_charge_atto,
                d.margin_atto AS d_margin_atto, d.cached_tokens AS d_cached_tokens,
                d.cache_write_tokens AS d_cache_write_tokens, d.audio_tokens AS d_audio_tokens,
                r.events AS r_events, r.prompt_tokens AS r_prompt_tokens, r.completion_tokens AS r_completion_tokens,
                r.official_atto AS r_official_atto, r.earned_atto AS r_earned_atto, r.charge_atto AS r_charge_atto,
                r.margin_atto AS r_margin_atto, r.cached_tokens AS r_cached_tokens,
                r.cache_write_tokens AS r_cache_write_tokens, r.audio_tokens AS r_audio_tokens
         FROM raw r FULL JOIN (SELECT * FROM contributor_usage_daily ${scope.rollups}) d
           ON d.contributor_id = r.contributor_id AND d.day = r.day AND d.model = r.model
         WHERE r.contributor_id IS NULL OR d.contributor_id IS NULL
            OR (d.events, d.prompt_tokens, d.completion_tokens, d.official_atto, d.earned_atto, d.charge_atto, d.margin_atto,
                d.cached_tokens, d.cache_write_tokens, d.audio_tokens)
               IS DISTINCT FROM
               (r.events, r.prompt_tokens, r.completion_tokens, r.official_atto, r.earned_atto, r.charge_atto, r.margin_atto,
                r.cached_tokens, r.cache_write_tokens, r.audio_tokens)
         ORDER BY 1, 2, 3
         LIMIT $1`;
}

function sumsFromPrefixed(row: Record<string, string | null>, prefix: 'd_' | 'r_'): RollupSums | null {
  if (row[`${prefix}events`] === null || row[`${prefix}events`] === undefined) return null;
  const value = (name: string) => toBigInt(row[`${prefix}${name}`]);
  return {
    events: value('events'),
    promptTokens: value('prompt_tokens'),
    completionTokens: value('completion_tokens'),
    cachedTokens: value('cached_tokens'),
    cacheWriteTokens: value('cache_write_tokens'),
    audioTokens: value('audio_tokens'),
    officialAtto: value('official_atto'),
    earnedAtto: value('earned_atto'),
    chargeAtto: value('charge_atto'),
    marginAtto: value('margin_atto'),
  };
}

export function toMismatch(row: Record<string, string | null>): RollupMismatch {
  return {
    contributorId: row.contributor_id!,
    day: row.day!,
    model: row.model!,
    rollup: sumsFromPrefixed(row, 'd_'),
    events: sumsFromPrefixed(row, 'r_'),
  };
}
