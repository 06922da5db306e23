import { Injectable } from '@nestjs/common';
import { DatabaseService, type SqlClient } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';

/** What the maturity job reads: contributors with pending earnings, and earnings still maturing. */
@Injectable()
export class MaturityRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Contributors whose pending account holds something (the job's work list). */
  async contributorsWithPending(): Promise<string[]> {
    const result = await this.db.pool.query<{ owner_id: string }>(
      `SELECT owner_id FROM accounts WHERE kind = 'contributor_pending' AND balance_atto > 0 ORDER BY owner_id`,
    );
    return result.rows.map((r) => r.owner_id);
  }

  /** Earned on days after `afterDay` (by occurred_at, from the rollup written with the events). */
  async earnedAfter(client: SqlClient, contributorId: string, afterDay: string): Promise<bigint> {
    const result = await client.query<{ s: string }>(
      'SELECT coalesce(sum(earned_atto), 0) AS s FROM contributor_usage_daily WHERE contributor_id = $1 AND day > $2::date',
      [contributorId, afterDay],
    );
    return toBigInt(result.rows[0]!.s);
  }
}
