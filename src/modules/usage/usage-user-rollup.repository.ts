// usage_user_key_daily: the priced events' sums per UTC day, user, key and model, maintained by the
// worker's usage-user-rollup job from a frontier of usage_events ids (never by ingestion: the write
// path gains nothing). Migration 20261207140000_usage_user_key_daily; how the summary reads it:
// usage-explorer.repository.ts, docs/usage-explorer.md.
import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';
import { takeUsageEventsFrontier } from '../earnings/usage-events-frontier.js';

/** Event ids read per advance at most: a backlog (a first run over millions) is caught up in steps. */
export const USER_ROLLUP_BATCH_IDS = 500_000n;
/** The worker waits this long for the frontier's SHARE lock (as the ledger-checkpoint job). */
const FRONTIER_LOCK_TIMEOUT = '5s';

/** Priced events summed per UTC day, user, key ('' for none) and model, as the rollup stores them. */
const EVENT_SUMS = `(e.occurred_at AT TIME ZONE 'UTC')::date AS day, e.user_id, coalesce(e.key_id, '') AS key_id, e.model,
    count(*)::bigint AS events, sum(e.prompt_tokens)::bigint AS prompt_tokens, sum(e.completion_tokens)::bigint AS completion_tokens,
    sum(e.official_atto) AS official_atto, sum(e.charge_atto) AS charge_atto, sum(e.payout_atto) AS payout_atto, sum(e.margin_atto) AS margin_atto`;
const COLUMNS = 'day, user_id, key_id, model, events, prompt_tokens, completion_tokens, official_atto, charge_atto, payout_atto, margin_atto';
const ADDED = ['events', 'prompt_tokens', 'completion_tokens', 'official_atto', 'charge_atto', 'payout_atto', 'margin_atto'];

export interface UserRollupAdvance {
  /** The frontier before and after (the rollup covers the priced events with ids at or below it). */
  fromEventId: bigint;
  throughEventId: bigint;
  /** UTC days recomputed from their events (updated or deleted since, usage_user_key_changes). */
  daysRecomputed: number;
  /** Rollup rows written for the new events (upserts). */
  rowsUpserted: number;
  /** null: the frontier's lock was not granted in time; nothing moved. */
  frontierTaken: boolean;
}

@Injectable()
export class UsageUserRollupRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Moves the rollup from its frontier F to N (the usage_events frontier, at most batchIds ids
   * further): adds the priced events with ids in (F, N], and recomputes from their events (ids at
   * or below N) the days whose events were updated or deleted (change rows up to the change mark
   * taken under the same lock, all committed), deleting those change rows. One transaction, the
   * state row locked first: two advances run one after the other. A change committed after the
   * frontier keeps its row (id above the mark): the summary reads that day from its events and the
   * next advance recomputes it.
   */
  async advance(batchIds: bigint = USER_ROLLUP_BATCH_IDS): Promise<UserRollupAdvance> {
    const frontier = await takeUsageEventsFrontier(this.db, FRONTIER_LOCK_TIMEOUT, 'usage_user_key_changes');
    return this.db.transaction(async (client) => {
      const state = await client.query<{ through_event_id: string }>('SELECT through_event_id FROM usage_user_key_rollup_state FOR UPDATE');
      const from = toBigInt(state.rows[0]!.through_event_id);
      if (frontier === null) return { fromEventId: from, throughEventId: from, daysRecomputed: 0, rowsUpserted: 0, frontierTaken: false };
      const to = frontier.eventId - from > batchIds ? from + batchIds : frontier.eventId > from ? frontier.eventId : from;
      const changed = await client.query<{ day: string }>(
        `SELECT DISTINCT to_char(day, 'YYYY-MM-DD') AS day FROM usage_user_key_changes WHERE id <= $1::bigint ORDER BY 1`,
        [frontier.changeId.toString()],
      );
      const days = changed.rows.map((r) => r.day);
      if (days.length > 0) {
        await client.query('DELETE FROM usage_user_key_daily WHERE day = ANY ($1::date[])', [days]);
        // Each day one occurred_at range (partition pruning, the BRIN index), ids up to the new frontier.
        await client.query(
          `INSERT INTO usage_user_key_daily (${COLUMNS})
           SELECT ${EVENT_SUMS}
           FROM unnest($1::date[]) AS d(day)
           JOIN usage_events e ON e.occurred_at >= d.day::timestamp AT TIME ZONE 'UTC' AND e.occurred_at < (d.day + 1)::timestamp AT TIME ZONE 'UTC'
           WHERE e.status = 'priced' AND e.id <= $2::bigint
           GROUP BY 1, 2, 3, 4`,
          [days, to.toString()],
        );
        await client.query('DELETE FROM usage_user_key_changes WHERE id <= $1::bigint', [frontier.changeId.toString()]);
      }
      let rowsUpserted = 0;
      if (to > from) {
        // The new ids: a range of each partition's primary key (id, occurred_at).
        const result = await client.query(
          `INSERT INTO usage_user_key_daily AS r (${COLUMNS})
           SELECT ${EVENT_SUMS} FROM usage_events e
           WHERE e.id > $1::bigint AND e.id <= $2::bigint AND e.status = 'priced'
             AND (e.occurred_at AT TIME ZONE 'UTC')::date <> ALL ($3::date[])
           GROUP BY 1, 2, 3, 4
           ORDER BY 1, 2, 3, 4
           ON CONFLICT (day, user_id, key_id, model) DO UPDATE SET ${ADDED.map((c) => `${c} = r.${c} + excluded.${c}`).join(', ')}`,
          [from.toString(), to.toString(), days],
        );
        rowsUpserted = result.rowCount ?? 0;
      }
      await client.query('UPDATE usage_user_key_rollup_state SET through_event_id = $1::bigint, updated_at = now()', [to.toString()]);
      return { fromEventId: from, throughEventId: to, daysRecomputed: days.length, rowsUpserted, frontierTaken: true };
    });
  }
}
