import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';

const CONNECT_TIMEOUT_MS = 3_000;
const STATEMENT_TIMEOUT_MS = 30_000;
/** Connections to LiteLLM's Postgres: one backfill run at a time reads it. */
const POOL_MAX = 2;

/** One "LiteLLM_SpendLogs" row: only the columns the ledger reads (never messages, response or proxy_server_request). */
export interface SpendLogRow {
  request_id: string;
  call_type: string;
  api_key: string | null;
  spend: number | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  /** "endTime" in UTC, RFC 3339 with milliseconds (its column is a timestamp(3)). */
  end_time: string;
  model: string | null;
  model_id: string | null;
  custom_llm_provider: string | null;
  user: string | null;
  team_id: string | null;
  end_user: string | null;
  cache_hit: string | null;
  status: string | null;
  usage_object: unknown;
  model_map_key: string | null;
}

/**
 * Reads LiteLLM's own Postgres (LITELLM_DATABASE_URL), read-only, in UTC: Prisma made its
 * DateTime columns `timestamp(3) without time zone`, which LiteLLM writes in UTC.
 */
@Injectable()
export class LitellmSpendLogsRepository implements OnModuleDestroy {
  private pool: pg.Pool | null = null;
  private readonly logger = new Logger('LitellmSpendLogs');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get enabled(): boolean {
    return this.config.LITELLM_DATABASE_URL !== undefined;
  }

  /** Rows after (endTime, request_id), in that order: keyset pages, so rows of one instant are never skipped. */
  async pageAfter(endTime: string, requestId: string, limit: number): Promise<SpendLogRow[]> {
    const result = await this.poolOf().query<SpendLogRow>(
      `SELECT request_id, call_type, api_key, spend, prompt_tokens, completion_tokens,
              to_char("endTime", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS end_time,
              model, model_id, custom_llm_provider, "user", team_id, end_user, cache_hit, status,
              metadata -> 'usage_object' AS usage_object,
              metadata -> 'model_map_information' ->> 'model_map_key' AS model_map_key
       FROM "LiteLLM_SpendLogs"
       WHERE ("endTime", request_id) > ($1::timestamp, $2)
       ORDER BY "endTime", request_id
       LIMIT $3`,
      [endTime, requestId, limit],
    );
    return result.rows;
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.end();
  }

  private poolOf(): pg.Pool {
    if (!this.config.LITELLM_DATABASE_URL) throw new Error('LITELLM_DATABASE_URL is not set');
    if (!this.pool) {
      this.pool = new pg.Pool({
        connectionString: this.config.LITELLM_DATABASE_URL,
        max: POOL_MAX,
        connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
        statement_timeout: STATEMENT_TIMEOUT_MS,
        // Read-only and in UTC whatever the server's defaults: the ledger never writes LiteLLM's tables.
        options: '-c default_transaction_read_only=on -c TimeZone=UTC',
      });
      this.pool.on('error', (error) => this.logger.warn(`idle LiteLLM database connection lost: ${error.message}`));
    }
    return this.pool;
  }
}
