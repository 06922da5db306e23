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
 * usage_events' monthly partitions (docs/history.md). Creation goes through the SQL function of
 * the migration (usage_events_ensure_partition), which moves that month's rows out of the default
 * partition if any landed there.
 */
@Injectable()
export class UsagePartitionsRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Ensures the partitions of the current UTC month and the next `ahead` ones; returns those created. */
  async ensureAhead(now: Date, ahead: number): Promise<string[]> {
    const result = await this.db.pool.query<{ month: string; created: boolean }>(
      `SELECT to_char(m, 'YYYY-MM') AS month, usage_events_ensure_partition(m AT TIME ZONE 'UTC') AS created
       FROM (SELECT date_trunc('month', $1::timestamptz AT TIME ZONE 'UTC') + make_interval(months => i) AS m
             FROM generate_series(0, $2::int) AS i) AS months
       ORDER BY m`,
      [now, ahead],
    );
    return result.rows.filter((r) => r.created).map((r) => r.month);
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
