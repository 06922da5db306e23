// The usage_events frontier (as the journal's, docs/history.md): a SHARE lock waits for the writers
// in flight and is released at once, so every id at or below max(id) is committed before any
// snapshot that follows; under the same lock, the largest id of a change log (the updates and
// deletes of usage_events write their change rows in their own transaction, by trigger), so every
// smaller change id is committed too. While the SHARE request waits behind a long writer (a
// reprice), every new group commit queues behind it: callers bound the wait (lock_timeout).
import { Logger } from '@nestjs/common';
import type { DatabaseService } from '../../database/database.service.js';
import { toBigInt } from '../../database/sql.js';

export interface UsageEventsFrontier {
  eventId: bigint;
  changeId: bigint;
}

/** The change logs the usage_events trigger writes (migrations 20261207100000 and 20261207140000). */
export type UsageChangeLog = 'usage_event_changes' | 'usage_user_key_changes';

const logger = new Logger('UsageEventsFrontier');

/** The frontier and the change log's mark; null when the lock is not granted within lockTimeout. */
export async function takeUsageEventsFrontier(db: DatabaseService, lockTimeout: string, changes: UsageChangeLog): Promise<UsageEventsFrontier | null> {
  try {
    return await db.transaction(async (client) => {
      await client.query(`SET LOCAL lock_timeout = '${lockTimeout}'`);
      await client.query('LOCK TABLE usage_events IN SHARE MODE');
      const result = await client.query<{ id: string; change_id: string }>(
        `SELECT (SELECT coalesce(max(id), 0) FROM usage_events) AS id, (SELECT coalesce(max(id), 0) FROM ${changes}) AS change_id`,
      );
      return { eventId: toBigInt(result.rows[0]!.id), changeId: toBigInt(result.rows[0]!.change_id) };
    });
  } catch (error) {
    logger.warn(`usage_events frontier not taken: ${(error as Error).message}`);
    return null;
  }
}
