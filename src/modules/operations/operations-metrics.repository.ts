import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service.js';

export interface StatusCount {
  status: string;
  count: number;
}

/** Webhook deliveries counted by outcome over this window (their status is final after it). */
export const WEBHOOK_OUTCOME_WINDOW_HOURS = 24;

/**
 * The state an operator watches, read by the API's /metrics (cached, operations-metrics.ts). Every
 * query is a count over a status index or a small table: settlements, their lines and transactions
 * are few (one per payout run, recipient and nonce), endpoints a handful.
 */
@Injectable()
export class OperationsMetricsRepository {
  constructor(private readonly db: DatabaseService) {}

  private async counts(sql: string): Promise<StatusCount[]> {
    const result = await this.db.pool.query<{ status: string; count: string }>(sql);
    return result.rows.map((r) => ({ status: r.status, count: Number(r.count) }));
  }

  settlementsByStatus(): Promise<StatusCount[]> {
    return this.counts('SELECT status, count(*) AS count FROM settlements GROUP BY status');
  }

  settlementLinesByStatus(): Promise<StatusCount[]> {
    return this.counts('SELECT status, count(*) AS count FROM settlement_lines GROUP BY status');
  }

  payoutTxsByStatus(): Promise<StatusCount[]> {
    return this.counts('SELECT status, count(*) AS count FROM settlement_txs GROUP BY status');
  }

  webhookEndpointsByStatus(): Promise<StatusCount[]> {
    return this.counts('SELECT status, count(*) AS count FROM webhook_endpoints GROUP BY status');
  }

  webhookDeliveriesByStatus(): Promise<StatusCount[]> {
    return this.counts(`SELECT status, count(*) AS count FROM webhook_deliveries WHERE created_at > now() - interval '${WEBHOOK_OUTCOME_WINDOW_HOURS} hours' GROUP BY status`);
  }

  /** Seconds the oldest settlement has been in `submitting` (0 when none is). */
  async oldestSubmittingAgeSeconds(): Promise<number> {
    const result = await this.db.pool.query<{ age: string | null }>("SELECT extract(epoch FROM now() - min(updated_at)) AS age FROM settlements WHERE status = 'submitting'");
    return Number(result.rows[0]?.age ?? 0);
  }
}
