import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';
import { takeUsageEventsFrontier, type UsageEventsFrontier } from './usage-events-frontier.js';
import { LISTED_DAYS_SCOPE, ROLLUP_CHECK_TIMEOUT, rollupMismatchSql, toMismatch, type RollupMismatch } from './earnings.repository.js';

const SERIALIZATION_FAILURE = '40001';
const UNIQUE_VIOLATION = '23505';
const DAY_MS = 86_400_000;
/** How long a check waits for the usage_events frontier's SHARE lock (frontier()). */
const FRONTIER_LOCK_TIMEOUT = '200ms';
/** Mismatches read per re-verification: every bad day must be known so none is stored as verified. */
const ROLLUP_VERIFY_MISMATCHES_MAX = 100_000;

/** The summed columns of a rollup row, in the order every query here lists them. */
const SUM_COLUMNS = ['events', 'prompt_tokens', 'completion_tokens', 'official_atto', 'earned_atto', 'charge_atto', 'margin_atto', 'cached_tokens', 'cache_write_tokens', 'audio_tokens'] as const;
const list = (prefix: string) => SUM_COLUMNS.map((c) => `${prefix}${c}`).join(', ');

/** Priced events summed as contributor_usage_daily sums them, per contributor, UTC day and model. */
const EVENT_SUMS_SELECT = `e.contributor_id, (e.occurred_at AT TIME ZONE 'UTC')::date AS day, e.model,
    count(*)::bigint AS events, sum(e.prompt_tokens)::bigint AS prompt_tokens, sum(e.completion_tokens)::bigint AS completion_tokens,
    sum(e.official_atto) AS official_atto, sum(e.payout_atto) AS earned_atto, sum(e.charge_atto) AS charge_atto, sum(e.margin_atto) AS margin_atto,
    sum(e.cached_tokens)::bigint AS cached_tokens, sum(e.cache_write_5m_tokens + e.cache_write_1h_tokens)::bigint AS cache_write_tokens,
    sum(e.prompt_audio_tokens + e.completion_audio_tokens)::bigint AS audio_tokens`;

/**
 * Each day of the window: its rollup rows' digest now (md5 of the rows in key order, every
 * compared column), its archived rollups' digest now, its priced events above the stored frontier
 * now, the updates and deletes of its events logged since its proof (usage_event_changes), and
 * what was stored when it was last verified. Reads rollup rows (not events), the events above the
 * lowest frontier ($2) and the change rows above the lowest change mark ($3): what is new.
 */
const DAY_STATE_SQL = `WITH current_days AS (
    SELECT day, count(*)::int AS rollup_rows,
      md5(string_agg(concat_ws(',', contributor_id, model, events, prompt_tokens, completion_tokens, official_atto, earned_atto,
        charge_atto, margin_atto, cached_tokens, cache_write_tokens, audio_tokens), E'\\n' ORDER BY contributor_id COLLATE "C", model COLLATE "C")) AS digest
    FROM contributor_usage_daily WHERE day >= $1::date GROUP BY day
  ), archived_days AS (
    SELECT day, md5(string_agg(concat_ws(',', contributor_id, model, events, prompt_tokens, completion_tokens, official_atto, earned_atto,
        charge_atto, margin_atto, cached_tokens, cache_write_tokens, audio_tokens), E'\\n' ORDER BY contributor_id COLLATE "C", model COLLATE "C")) AS digest
    FROM usage_archived_rollups WHERE day >= $1::date GROUP BY day
  ), verified AS (SELECT * FROM rollup_verified_days WHERE day >= $1::date
  ), changes AS (
    -- Updates and deletes of the day's events after its proof (a reprice, anything behind the
    -- writers' back): only the change rows above the lowest mark are read.
    SELECT c.day, count(*)::bigint AS n
    FROM usage_event_changes c LEFT JOIN verified v ON v.day = c.day
    WHERE c.day >= $1::date AND c.id > coalesce($3::bigint, 0) AND (v.changes_through IS NULL OR c.id > v.changes_through)
    GROUP BY c.day
  ), fresh AS MATERIALIZED (
    -- Priced events above the lowest frontier ($2), read once by each partition's primary key: every
    -- check that stores moves all the verified days to its frontier (advance()), so these are the
    -- ids written since. (Before, above and unlisted each read them: issue 35.)
    SELECT (e.occurred_at AT TIME ZONE 'UTC')::date AS day, e.id FROM usage_events e
    WHERE $2::bigint IS NOT NULL AND e.status = 'priced' AND e.id > $2::bigint AND e.occurred_at >= ($1::date::timestamp AT TIME ZONE 'UTC')
  ), above AS (
    -- Priced events above each day's own frontier.
    SELECT v.day, count(*)::bigint AS n
    FROM fresh f JOIN verified v ON v.day = f.day AND v.through_event_id IS NOT NULL AND f.id > v.through_event_id
    GROUP BY v.day
  ), unlisted AS (
    -- Days with priced events above it but neither rollup rows nor a verified row: compared, each
    -- reports its missing rollup.
    SELECT DISTINCT f.day FROM fresh f WHERE NOT EXISTS (SELECT 1 FROM verified v WHERE v.day = f.day)
  ), days AS (SELECT day FROM current_days UNION SELECT day FROM archived_days UNION SELECT day FROM verified UNION SELECT day FROM unlisted
    UNION SELECT day FROM changes)
  SELECT to_char(d.day, 'YYYY-MM-DD') AS day, c.rollup_rows, c.digest, a.digest AS archived_digest,
         v.digest AS verified_digest, v.archived_digest AS verified_archived_digest, v.through_event_id, v.changes_through,
         coalesce(ch.n, 0) AS changes, v.events_above, coalesce(b.n, 0) AS events_above_now, v.day IS NOT NULL AS stored
  FROM days d LEFT JOIN current_days c ON c.day = d.day LEFT JOIN archived_days a ON a.day = d.day
    LEFT JOIN verified v ON v.day = d.day LEFT JOIN changes ch ON ch.day = d.day LEFT JOIN above b ON b.day = d.day
  ORDER BY 1`;

interface DayState {
  day: string;
  rollupRows: number;
  digest: string | null;
  archivedDigest: string | null;
  /** Unchanged since its verification: skipped. */
  unchanged: boolean;
  /** Changed only by rollup rows over events above the stored frontier: checked from the verified sums. */
  throughEventId: bigint | null;
  /** The frontier stored with the day (null: none, or not verified). */
  storedFrontier: bigint | null;
  /** The change mark stored with the day (null: none, or not verified). */
  storedChangeMark: bigint | null;
}

function dayStateOf(r: Record<string, string | number | boolean | null>): DayState {
  const digest = r.digest as string | null;
  const archivedDigest = r.archived_digest as string | null;
  const through = r.through_event_id === null ? null : toBigInt(r.through_event_id as string);
  const changeMark = r.changes_through === null ? null : toBigInt(r.changes_through as string);
  const sameArchive = r.verified_archived_digest === archivedDigest;
  // No update or delete of its events since the proof (a day stored before the marks existed has
  // none: compared once in full). An event priced or changed in place at or below the frontier is
  // such an update, so the verified sums no longer cover the day.
  const untouched = changeMark !== null && toBigInt(r.changes as string) === 0n;
  // Events above the frontier with an unchanged rollup: written without it (compared again).
  const sameAbove = through !== null && r.events_above !== null && toBigInt(r.events_above as string) === toBigInt(r.events_above_now as string);
  const unchanged = r.stored === true && r.verified_digest === digest && sameArchive && through !== null && untouched && sameAbove;
  return {
    day: r.day as string,
    rollupRows: (r.rollup_rows as number | null) ?? 0,
    digest,
    archivedDigest,
    unchanged,
    throughEventId: sameArchive && untouched ? through : null,
    storedFrontier: through,
    storedChangeMark: changeMark,
  };
}

/** More than one distinct stored frontier or change mark: the glance then reads from the lowest (see advance()). */
const frontiersDiffer = (states: DayState[]) =>
  new Set(states.filter((d) => d.storedFrontier !== null).map((d) => d.storedFrontier)).size > 1 ||
  new Set(states.filter((d) => d.storedChangeMark !== null).map((d) => d.storedChangeMark)).size > 1;

/** The usage_events frontier and the change mark, taken under one SHARE lock (frontier()). */
type Frontier = UsageEventsFrontier;

/**
 * The checkpointed rollup check's state (rollup_verified_days, rollup_verified_sums; migrations
 * 20261202150000 and 20261202190000): which days of the window changed since they were last proven
 * equal to their events, and how little of a changed day has to be read again.
 */
@Injectable()
export class RollupVerifiedDaysRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Days from `sinceDay` whose rollup rows, archived rollups or events changed since they were last
   * verified (or that never were) are compared again, in one snapshot taken after the usage_events
   * frontier: a day whose only change is rollup rows over events with ids above its stored
   * frontier is compared as verified sums + those events (what is new), any other change (an
   * update or delete of its events: a reprice; an archive) with all its events. The comparison
   * with all the events is the arbiter: a day that fails the first is compared again in full, and
   * only the full comparison reports mismatches. Each day found equal stores its digests, frontier
   * and sums; every day found unchanged is moved to the same frontier (advance()), so that all the
   * window's days share one and the next glance reads only the events written after it. Without
   * the frontier (its lock not granted in time) the changed days are compared all the same (the
   * verified sums plus every event above the day's frontier, in the snapshot) and nothing is stored.
   */
  async findMismatchesSinceVerified(limit: number, sinceDay: string): Promise<{ rollupRows: bigint; daysVerified: string[]; daysUnchanged: number; daysFromSums: number; mismatches: RollupMismatch[] }> {
    // Nothing changed and nothing written above the frontier (the usual case between writes):
    // answered without the frontier's lock, from rollup rows and index probes.
    // With events above the frontier the lock is taken anyway: the glance stops at that probe
    // instead of reading those events for nothing (they are read after the frontier).
    const glance = await this.snapshot((client) => this.dayStates(client, sinceDay, { unlessNewer: true }));
    if (glance.states && glance.states.every((d) => d.unchanged) && !frontiersDiffer(glance.states)) {
      return { rollupRows: sumRows(glance.states), daysVerified: [], daysUnchanged: glance.states.length, daysFromSums: 0, mismatches: [] };
    }
    const frontier = await this.frontier();
    // Every day is read again after the frontier, in one snapshot: the glance's cost (ids above
    // the shared frontier), so a day changing in between is this check's too.
    return this.snapshot(async (client) => {
      const states = (await this.dayStates(client, sinceDay, { unlessNewer: false })).states!;
      const changed = states.filter((d) => !d.unchanged);
      const advancing = frontier === null ? [] : states.filter((d) => d.unchanged && (d.storedFrontier! < frontier.eventId || d.storedChangeMark! < frontier.changeId));
      const found = { rollupRows: sumRows(states), daysVerified: changed.map((d) => d.day), daysUnchanged: states.length - changed.length };
      if (changed.length === 0 && advancing.length === 0) return { ...found, daysFromSums: 0, mismatches: [] };
      const fromSums = changed.filter((d) => d.throughEventId !== null);
      const fromSumsFailed = new Set(await this.daysDifferingFromSums(client, fromSums));
      const inFull = changed.filter((d) => d.throughEventId === null || fromSumsFailed.has(d.day));
      const mismatches = await this.compareInFull(client, inFull.map((d) => d.day));
      const bad = new Set(mismatches.map((m) => m.day));
      if (frontier !== null) {
        // A day found equal as its verified sums plus its new events is advanced as an unchanged one
        // is (its sums += its events up to the frontier, its digests replaced): what is new, not a
        // rewrite of all its rollup rows (issue 35: 106 ms of a check after 100 new events, load 20).
        const fromSumsGood = fromSums.filter((d) => !fromSumsFailed.has(d.day) && !bad.has(d.day) && d.digest !== null);
        const rewritten = changed.filter((d) => !bad.has(d.day) && !fromSumsGood.includes(d));
        await this.store(client, { good: rewritten, advancing: [...advancing, ...fromSumsGood], frontier, sinceDay });
      }
      return { ...found, daysFromSums: fromSums.length - fromSumsFailed.size, mismatches: mismatches.slice(0, limit) };
    });
  }

  /** A repeatable-read snapshot under the rollup check's statement timeout (the glance included). */
  private snapshot<T>(fn: (client: SqlClient) => Promise<T>): Promise<T> {
    return this.db.transaction(async (client) => {
      await client.query(`SET LOCAL statement_timeout = '${ROLLUP_CHECK_TIMEOUT}'`);
      return fn(client);
    }, 'repeatable read');
  }

  /**
   * The state of every day from sinceDay; with `unlessNewer`, null when any event of the window
   * (priced or not) has an id above the lowest frontier: the caller then moves the frontier, so
   * that the next glance does not read those events again (before, unpriced events written since
   * the last store were read by every check).
   */
  private async dayStates(client: SqlClient, sinceDay: string, o: { unlessNewer: boolean }): Promise<{ states: DayState[] | null }> {
    // The lowest frontier and change mark as constants: the planner then reads the ids above them
    // by each partition's primary key (and the change log's).
    const lowest = await client.query<{ id: string | null; mark: string | null }>(
      'SELECT min(through_event_id) AS id, min(changes_through) AS mark FROM rollup_verified_days WHERE day >= $1::date',
      [sinceDay],
    );
    const { id, mark } = lowest.rows[0]!;
    // Any event (priced or not) above it: one probe of each partition's primary key.
    const newer = o.unlessNewer && id !== null && (await client.query<{ newer: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM usage_events WHERE id > $1::bigint AND occurred_at >= ($2::date::timestamp AT TIME ZONE 'UTC')) AS newer`,
      [id, sinceDay],
    )).rows[0]!.newer;
    if (newer) return { states: null };
    const result = await client.query<Record<string, string | number | boolean | null>>(DAY_STATE_SQL, [sinceDay, id, mark]);
    return { states: result.rows.map(dayStateOf) };
  }

  /**
   * The usage_events frontier and the change mark (takeUsageEventsFrontier). Asked by a GET or a
   * /metrics scrape, it waits FRONTIER_LOCK_TIMEOUT at most. null when the lock is not granted in
   * time: nothing is stored then.
   */
  private frontier(): Promise<Frontier | null> {
    return takeUsageEventsFrontier(this.db, FRONTIER_LOCK_TIMEOUT, 'usage_event_changes');
  }

  /**
   * The days (of those given) whose rollup rows differ from their verified sums plus their priced
   * events above the day's frontier. Reads only those events: one range of ids above the smallest
   * frontier over the days' occurred_at range (each partition's primary key).
   */
  private async daysDifferingFromSums(client: SqlClient, days: DayState[]): Promise<string[]> {
    if (days.length === 0) return [];
    const sorted = [...days].sort((a, b) => a.day.localeCompare(b.day));
    const lowest = sorted.reduce((m, d) => (d.throughEventId! < m ? d.throughEventId! : m), sorted[0]!.throughEventId!);
    const result = await client.query<{ day: string }>(
      `WITH d AS (SELECT * FROM unnest($1::date[], $2::bigint[]) AS d(day, through_id)),
       fresh AS (
         SELECT ${EVENT_SUMS_SELECT}
         FROM usage_events e JOIN d ON d.day = (e.occurred_at AT TIME ZONE 'UTC')::date AND e.id > d.through_id
         WHERE e.status = 'priced' AND e.id > $3::bigint AND e.occurred_at >= $4::timestamptz AND e.occurred_at < $5::timestamptz
         GROUP BY 1, 2, 3
       ), expected AS (
         SELECT contributor_id, day, model, ${SUM_COLUMNS.map((c) => `sum(${c}) AS ${c}`).join(', ')}
         FROM (SELECT contributor_id, day, model, ${list('')} FROM rollup_verified_sums WHERE day = ANY ($1::date[])
               UNION ALL SELECT contributor_id, day, model, ${list('')} FROM fresh) AS x
         GROUP BY 1, 2, 3
       )
       SELECT DISTINCT to_char(coalesce(x.day, r.day), 'YYYY-MM-DD') AS day
       FROM expected x FULL JOIN (SELECT * FROM contributor_usage_daily WHERE day = ANY ($1::date[])) r
         ON r.contributor_id = x.contributor_id AND r.day = x.day AND r.model = x.model
       WHERE x.contributor_id IS NULL OR r.contributor_id IS NULL OR (${list('r.')}) IS DISTINCT FROM (${list('x.')})`,
      [sorted.map((d) => d.day), sorted.map((d) => d.throughEventId!.toString()), lowest.toString(), `${sorted[0]!.day}T00:00:00Z`, dayEnd(sorted[sorted.length - 1]!.day)],
    );
    return result.rows.map((r) => r.day);
  }

  /** Every rollup row of the listed days against all their events (and archived rollups). */
  private async compareInFull(client: SqlClient, days: string[]): Promise<RollupMismatch[]> {
    if (days.length === 0) return [];
    const sorted = [...days].sort();
    const result = await client.query<Record<string, string | null>>(rollupMismatchSql(LISTED_DAYS_SCOPE), [ROLLUP_VERIFY_MISMATCHES_MAX, sorted, `${sorted[0]}T00:00:00Z`, dayEnd(sorted[sorted.length - 1]!)]);
    return result.rows.map(toMismatch);
  }

  /**
   * In one savepoint: drops the rows of days that left the window (one row per contributor, model
   * and day would otherwise stay forever), stores the good days (storeGood) and moves the unchanged
   * ones to the frontier (advance). The rows are a cache of what was proven: a concurrent check
   * storing the same days may win them; that changes nothing, so its conflict is not this check's
   * failure, and none of it is stored.
   */
  private async store(client: SqlClient, work: { good: DayState[]; advancing: DayState[]; frontier: Frontier; sinceDay: string }): Promise<void> {
    await client.query('SAVEPOINT store_verified');
    try {
      // rollup_verified_sums rows go with their day (ON DELETE CASCADE).
      await client.query('DELETE FROM rollup_verified_days WHERE day < $1::date', [work.sinceDay]);
      await this.storeGood(client, work.good, work.frontier);
      await this.advance(client, work.advancing, work.frontier);
      // Change rows a stored proof covers, and those of days that left the window; a day that
      // fails keeps its own (and its old mark), so it is compared again until it is equal.
      await client.query(
        `DELETE FROM usage_event_changes c WHERE c.day < $1::date
           OR EXISTS (SELECT 1 FROM rollup_verified_days v WHERE v.day = c.day AND c.id <= v.changes_through)`,
        [work.sinceDay],
      );
      await client.query('RELEASE SAVEPOINT store_verified');
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== SERIALIZATION_FAILURE && code !== UNIQUE_VIOLATION) throw error;
      await client.query('ROLLBACK TO SAVEPOINT store_verified');
    }
  }

  /**
   * Stores what was proven of each good day: its digests, the frontier and change mark, the
   * rollup rows minus the day's priced events above the frontier (= its events at or below it,
   * plus what the archive recorded) and its priced events above it. Reads the rollup rows and the
   * events above the frontier only.
   */
  private async storeGood(client: SqlClient, good: DayState[], frontier: Frontier): Promise<void> {
    if (good.length === 0) return;
    const sorted = [...good].sort((a, b) => a.day.localeCompare(b.day));
    const days = sorted.map((d) => d.day);
    const range = [`${days[0]}T00:00:00Z`, dayEnd(days[days.length - 1]!)];
    await client.query(
      `WITH good AS (SELECT * FROM unnest($1::date[], $2::int[], $3::text[], $4::text[]) AS g(day, rollup_rows, digest, archived_digest))
       , above AS (
         SELECT (e.occurred_at AT TIME ZONE 'UTC')::date AS day, count(*)::bigint AS n FROM usage_events e
         WHERE e.status = 'priced' AND e.id > $5::bigint AND e.occurred_at >= $6::timestamptz AND e.occurred_at < $7::timestamptz
         GROUP BY 1)
       , gone AS (DELETE FROM rollup_verified_days v USING good g WHERE v.day = g.day AND g.digest IS NULL AND g.archived_digest IS NULL RETURNING 1)
       INSERT INTO rollup_verified_days AS v (day, rollup_rows, digest, archived_digest, through_event_id, changes_through, unpriced_through, events_above)
       SELECT g.day, g.rollup_rows, coalesce(g.digest, ''), g.archived_digest, $5::bigint, $8::bigint, NULL, coalesce(b.n, 0)
       FROM good g LEFT JOIN above b ON b.day = g.day WHERE g.digest IS NOT NULL OR g.archived_digest IS NOT NULL
       ON CONFLICT (day) DO UPDATE SET rollup_rows = excluded.rollup_rows, digest = excluded.digest, archived_digest = excluded.archived_digest,
         through_event_id = excluded.through_event_id, changes_through = excluded.changes_through, unpriced_through = NULL,
         events_above = excluded.events_above, verified_at = now()`,
      [days, sorted.map((d) => d.rollupRows), sorted.map((d) => d.digest), sorted.map((d) => d.archivedDigest), frontier.eventId.toString(), range[0], range[1], frontier.changeId.toString()],
    );
    await client.query('DELETE FROM rollup_verified_sums WHERE day = ANY ($1::date[])', [days]);
    await client.query(
      `WITH above AS (
         SELECT ${EVENT_SUMS_SELECT} FROM usage_events e
         WHERE e.status = 'priced' AND e.id > $2::bigint AND e.occurred_at >= $3::timestamptz AND e.occurred_at < $4::timestamptz
         GROUP BY 1, 2, 3)
       INSERT INTO rollup_verified_sums (day, contributor_id, model, ${list('')})
       SELECT r.day, r.contributor_id, r.model, ${SUM_COLUMNS.map((c) => `r.${c} - coalesce(a.${c}, 0)`).join(', ')}
       FROM contributor_usage_daily r LEFT JOIN above a ON a.contributor_id = r.contributor_id AND a.day = r.day AND a.model = r.model
       WHERE r.day = ANY ($1::date[])`,
      [days, frontier.eventId.toString(), range[0], range[1]],
    );
  }

  /**
   * Moves days found unchanged in this snapshot (digests and priced events above the frontier as
   * stored, no update or delete of their events logged since), or found equal to their verified
   * sums plus their events above F (their digests are then the ones now), from their frontier F
   * to the new one N and to the new change mark. Unchanged, no priced event of the day was added above F
   * since it was verified (its rollup would differ, or its count above F) and none at or below F
   * changed, so what was proven still holds and extends: sums(N) = sums(F) + its priced events in
   * (F, N] per contributor and model, events_above = its priced events above N. Reads only the ids
   * above the lowest F: what is new. Then all the window's days share one frontier and the glance
   * reads only ids above it (before, the oldest day's month-old frontier made every check read the
   * whole window).
   */
  private async advance(client: SqlClient, days: DayState[], frontier: Frontier): Promise<void> {
    if (days.length === 0) return;
    const sorted = [...days].sort((a, b) => a.day.localeCompare(b.day));
    const lowest = sorted.reduce((m, d) => (d.storedFrontier! < m ? d.storedFrontier! : m), sorted[0]!.storedFrontier!);
    const params = [sorted.map((d) => d.day), sorted.map((d) => d.storedFrontier!.toString()), lowest.toString(), frontier.eventId.toString(), `${sorted[0]!.day}T00:00:00Z`, dayEnd(sorted[sorted.length - 1]!.day)];
    const newEvents = `usage_events e JOIN adv ON adv.day = (e.occurred_at AT TIME ZONE 'UTC')::date AND e.id > adv.through_id
         WHERE e.id > $3::bigint AND e.occurred_at >= $5::timestamptz AND e.occurred_at < $6::timestamptz`;
    await client.query(
      `WITH adv AS (SELECT * FROM unnest($1::date[], $2::bigint[]) AS a(day, through_id)),
       fresh AS (SELECT ${EVENT_SUMS_SELECT} FROM ${newEvents} AND e.status = 'priced' AND e.id <= $4::bigint GROUP BY 1, 2, 3)
       INSERT INTO rollup_verified_sums AS s (contributor_id, day, model, ${list('')})
       SELECT contributor_id, day, model, ${list('')} FROM fresh
       ON CONFLICT (day, contributor_id, model) DO UPDATE SET ${SUM_COLUMNS.map((c) => `${c} = s.${c} + excluded.${c}`).join(', ')}`,
      params,
    );
    await client.query(
      `WITH adv AS (SELECT * FROM unnest($1::date[], $2::bigint[]) AS a(day, through_id)),
       counts AS (
         SELECT (e.occurred_at AT TIME ZONE 'UTC')::date AS day, count(*)::bigint AS above
         FROM ${newEvents} AND e.status = 'priced' AND e.id > $4::bigint GROUP BY 1)
       UPDATE rollup_verified_days v SET through_event_id = $4::bigint, changes_through = $7::bigint, events_above = coalesce(c.above, 0),
         digest = coalesce(n.digest, v.digest), rollup_rows = n.rollup_rows, archived_digest = n.archived_digest,
         verified_at = CASE WHEN n.redigested THEN now() ELSE v.verified_at END
       FROM adv JOIN unnest($1::date[], $8::text[], $9::int[], $10::text[], $11::boolean[]) AS n(day, digest, rollup_rows, archived_digest, redigested) ON n.day = adv.day
         LEFT JOIN counts c ON c.day = adv.day
       WHERE v.day = adv.day AND v.through_event_id = adv.through_id`,
      [...params, frontier.changeId.toString(), sorted.map((d) => d.digest), sorted.map((d) => d.rollupRows), sorted.map((d) => d.archivedDigest), sorted.map((d) => !d.unchanged)],
    );
  }
}

const sumRows = (states: DayState[]) => states.reduce((n, d) => n + BigInt(d.rollupRows), 0n);
const dayEnd = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + DAY_MS).toISOString();
