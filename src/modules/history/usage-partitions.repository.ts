import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';

export interface UsagePartition {
  name: string;
  /** First day of its UTC month, YYYY-MM-DD; null for the default partition. */
  month: string | null;
  rows: bigint;
  bytes: bigint;
}

/**
 * How long one creation waits for its locks before giving up (it then changed nothing). Writers
 * queue behind the waiting request, so this is also the longest an attempt holds ingestion back
 * beyond the move itself.
 */
export const PARTITION_LOCK_TIMEOUT_MS = 1_000;
/** Creations of one month tried before the run fails (the next run, 15 minutes later, tries again). */
export const PARTITION_ATTEMPTS_MAX = 8;
const PARTITION_RETRY_PAUSE_MS = 500;
const LOCK_NOT_AVAILABLE = '55P03';

/**
 * usage_events' monthly partitions (docs/history.md). Creation goes through the SQL function
 * usage_events_ensure_partition (migration 20261202100000): it holds writers back for the short
 * move of the month's rows out of the default partition and the attach, so no committed row is
 * lost and the attach never meets a row of its month in the default partition. Each month is
 * its own transaction (the lock is held only for that month) with a bounded lock wait: a
 * transaction that runs long makes the creation give up and retry, and holds the writers queued
 * behind the creation's request at most PARTITION_LOCK_TIMEOUT_MS per attempt.
 */
@Injectable()
export class UsagePartitionsRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * Ensures the partitions of the current UTC month and the next `ahead` ones, and of every
   * month whose rows wait in the default partition (late or backdated events; archived months
   * excepted); returns those created (YYYY-MM, oldest first).
   */
  async ensureAhead(now: Date, ahead: number): Promise<string[]> {
    const result = await this.db.pool.query<{ m: Date; month: string }>(
      `SELECT m, to_char(m AT TIME ZONE 'UTC', 'YYYY-MM') AS month
       FROM (SELECT (date_trunc('month', $1::timestamptz AT TIME ZONE 'UTC') + make_interval(months => i)) AT TIME ZONE 'UTC' AS m
             FROM generate_series(0, $2::int) AS i
             UNION
             SELECT usage_events_default_months()) AS months
       ORDER BY m`,
      [now, ahead],
    );
    const created: string[] = [];
    for (const row of result.rows) {
      if (await this.ensureMonth(row.m)) created.push(row.month);
    }
    return created;
  }

  /** Creates the partition of the month holding `month` unless it exists (or was archived). */
  async ensureMonth(month: Date): Promise<boolean> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.db.transaction(async (client) => {
          await client.query(`SET LOCAL lock_timeout = ${PARTITION_LOCK_TIMEOUT_MS}`);
          const r = await client.query<{ created: boolean }>('SELECT usage_events_ensure_partition($1::timestamptz) AS created', [month]);
          return r.rows[0]!.created;
        });
      } catch (error) {
        if ((error as { code?: string }).code !== LOCK_NOT_AVAILABLE || attempt >= PARTITION_ATTEMPTS_MAX) throw error;
        await new Promise((resolve) => setTimeout(resolve, PARTITION_RETRY_PAUSE_MS * attempt));
      }
    }
  }

  /** Every partition with its (estimated) rows and bytes on disk, oldest first, the default last. */
  async list(): Promise<UsagePartition[]> {
    const result = await this.db.pool.query<{ name: string; month: string | null; rows: string; bytes: string }>(
      `SELECT c.relname AS name,
              CASE WHEN c.relname ~ '^usage_events_[0-9]{4}_[0-9]{2}$' THEN replace(substr(c.relname, 14), '_', '-') || '-01' END AS month,
              greatest(c.reltuples, 0)::bigint AS rows, pg_total_relation_size(c.oid) AS bytes
       FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'usage_events'::regclass
       ORDER BY month NULLS LAST`,
    );
    return result.rows.map((r) => ({ name: r.name, month: r.month, rows: BigInt(r.rows), bytes: BigInt(r.bytes) }));
  }
}
