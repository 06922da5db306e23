import { Inject, Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import pg from 'pg';
import { APP_CONFIG, type AppConfig } from '../../config/index.js';

const CONNECT_TIMEOUT_MS = 3_000;
const STATEMENT_TIMEOUT_MS = 30_000;
/** Connections to LiteLLM's Postgres: one backfill run at a time reads it. */
const POOL_MAX = 2;
/** A text column longer than this is not fetched (ids, models and users are short): the row is too large. */
export const SPEND_TEXT_BYTES_MAX = 1024;
/** A usage object larger than this is not fetched (a real one is under 2 KB): the row is too large. */
export const SPEND_USAGE_BYTES_MAX = 64 * 1024;

/** One "LiteLLM_SpendLogs" row: only the columns the ledger reads (never messages, response or proxy_server_request). */
export interface SpendLogRow {
  /** Null when it is longer than SPEND_TEXT_BYTES_MAX (then too_large names it). */
  request_id: string | null;
  call_type: string | null;
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
  /** The columns left out for their size ("request_id, usage_object"), or null. */
  too_large: string | null;
  /** hex(sha256(request_id)) when request_id is past its cap (so the row is remembered under the push's hashed id). */
  request_id_sha256: string | null;
  /** The keyset position of the row: its request_id, cut to KEYSET_ID_CHARS (a longer one is re-read once, harmlessly). */
  sort_id: string;
}

const KEYSET_ID_CHARS = 256;

const TEXT_COLUMNS = ['request_id', 'call_type', 'api_key', 'model', 'model_id', 'custom_llm_provider', 'user', 'team_id', 'end_user', 'cache_hit', 'status'] as const;
/** Each text column and the two JSON fields read, fetched only within their size caps; the others named in too_large. */
const CAPPED_COLUMNS = `
  ${TEXT_COLUMNS.map((c) => `CASE WHEN octet_length(s."${c}") <= ${SPEND_TEXT_BYTES_MAX} THEN s."${c}" END AS "${c}"`).join(',\n  ')},
  s.spend, s.prompt_tokens, s.completion_tokens,
  to_char(s."endTime", 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS end_time,
  CASE WHEN pg_column_size(s.metadata -> 'usage_object') <= ${SPEND_USAGE_BYTES_MAX} THEN s.metadata -> 'usage_object' END AS usage_object,
  CASE WHEN octet_length(s.metadata -> 'model_map_information' ->> 'model_map_key') <= ${SPEND_TEXT_BYTES_MAX} THEN s.metadata -> 'model_map_information' ->> 'model_map_key' END AS model_map_key,
  CASE WHEN octet_length(s.request_id) > ${SPEND_TEXT_BYTES_MAX} THEN encode(sha256(convert_to(s.request_id, 'UTF8')), 'hex') END AS request_id_sha256,
  NULLIF(concat_ws(', ',
    ${TEXT_COLUMNS.map((c) => `CASE WHEN octet_length(s."${c}") > ${SPEND_TEXT_BYTES_MAX} THEN '${c}' END`).join(',\n    ')},
    CASE WHEN pg_column_size(s.metadata -> 'usage_object') > ${SPEND_USAGE_BYTES_MAX} THEN 'usage_object' END,
    CASE WHEN octet_length(s.metadata -> 'model_map_information' ->> 'model_map_key') > ${SPEND_TEXT_BYTES_MAX} THEN 'model_map_key' END), '') AS too_large,
  ${TEXT_COLUMNS.map((c) => `least(coalesce(octet_length(s."${c}"), 0), ${SPEND_TEXT_BYTES_MAX})`).join(' + ')}
    + least(coalesce(pg_column_size(s.metadata -> 'usage_object'), 0), ${SPEND_USAGE_BYTES_MAX}) + 64 AS row_bytes`;

const OUTPUT_COLUMNS = [...TEXT_COLUMNS, 'spend', 'prompt_tokens', 'completion_tokens', 'end_time', 'usage_object', 'model_map_key', 'too_large', 'request_id_sha256', 'sort_id'].map((c) => `b."${c}"`).join(', ');

/** The 1-minute buckets of "startTime" the late sweep compares: rows, and a sum of hashes of their ids. */
export interface MinuteFingerprint {
  minute: string;
  rows: number;
  idHashSum: string;
}

/**
 * Reads LiteLLM's own Postgres (LITELLM_DATABASE_URL), read-only, in UTC: Prisma made its
 * DateTime columns `timestamp(3) without time zone`, which LiteLLM writes in UTC. Pages are
 * bounded in rows and in bytes, and no column is fetched past its size cap (a 2 MiB usage object
 * is left in LiteLLM's database: the row is rejected as too large).
 */
@Injectable()
export class LitellmSpendLogsRepository implements OnModuleDestroy {
  private pool: pg.Pool | null = null;
  private readonly logger = new Logger('LitellmSpendLogs');

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get enabled(): boolean {
    return this.config.LITELLM_DATABASE_URL !== undefined;
  }

  /**
   * Rows after (endTime, request_id) and up to `untilIso` (never past the present), in that
   * order: keyset pages, so rows of one instant are never skipped. At most `limit` rows and
   * about `bytesMax` bytes (at least one row).
   */
  async pageAfter(endTime: string, requestId: string, untilIso: string, limit: number, bytesMax: number): Promise<SpendLogRow[]> {
    return this.boundedByBytes(
      `SELECT ${CAPPED_COLUMNS}, s."endTime" AS sort_time, left(s.request_id, ${KEYSET_ID_CHARS}) AS sort_id FROM "LiteLLM_SpendLogs" s
       WHERE (s."endTime", s.request_id) > ($1::timestamp, $2) AND s."endTime" <= $3::timestamp
       ORDER BY s."endTime", s.request_id LIMIT $4`,
      [endTime, requestId, untilIso, limit],
      bytesMax,
    );
  }

  /** The rows with these ids (the late sweep's new ones), bounded as pages are. */
  async rowsByIds(requestIds: string[], bytesMax: number): Promise<SpendLogRow[]> {
    if (requestIds.length === 0) return [];
    return this.boundedByBytes(
      `SELECT ${CAPPED_COLUMNS}, s."endTime" AS sort_time, left(s.request_id, ${KEYSET_ID_CHARS}) AS sort_id FROM "LiteLLM_SpendLogs" s
       WHERE s.request_id = ANY($1::text[]) ORDER BY s."endTime", s.request_id`,
      [requestIds],
      bytesMax,
    );
  }

  /** Ids of rows dated past `afterIso` (the future skew): rejected once each, never waited for. */
  async futureRowIds(afterIso: string, limit: number): Promise<string[]> {
    const result = await this.poolOf().query<{ request_id: string }>(
      `SELECT request_id FROM "LiteLLM_SpendLogs" WHERE "endTime" > $1::timestamp AND octet_length(request_id) <= ${SPEND_TEXT_BYTES_MAX} ORDER BY "endTime", request_id LIMIT $2`,
      [afterIso, limit],
    );
    return result.rows.map((r) => r.request_id);
  }

  /**
   * Per minute of "startTime" given, its row count and the sum of a 60-bit hash (md5) of its ids:
   * one index range scan per minute on LiteLLM's ("startTime", request_id) index, index-only.
   */
  async minuteFingerprints(minutes: string[]): Promise<MinuteFingerprint[]> {
    if (minutes.length === 0) return [];
    const result = await this.poolOf().query<{ minute: string; rows: string; id_hash_sum: string }>(
      `SELECT to_char(m, 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS minute, count(*) AS rows,
              coalesce(sum(('x' || substr(md5(s.request_id), 1, 15))::bit(60)::bigint), 0)::text AS id_hash_sum
       FROM unnest($1::timestamp[]) AS m
       JOIN "LiteLLM_SpendLogs" s ON s."startTime" >= m AND s."startTime" < m + interval '1 minute'
       GROUP BY m`,
      [minutes],
    );
    return result.rows.map((r) => ({ minute: r.minute, rows: Number(r.rows), idHashSum: r.id_hash_sum }));
  }

  /** The ids of the rows that started in these minutes (index-only). */
  async idsInMinutes(minutes: string[]): Promise<string[]> {
    if (minutes.length === 0) return [];
    const result = await this.poolOf().query<{ request_id: string }>(
      `SELECT s.request_id FROM unnest($1::timestamp[]) AS m
       JOIN "LiteLLM_SpendLogs" s ON s."startTime" >= m AND s."startTime" < m + interval '1 minute'
       WHERE octet_length(s.request_id) <= ${SPEND_TEXT_BYTES_MAX}`,
      [minutes],
    );
    return result.rows.map((r) => r.request_id);
  }

  async onModuleDestroy(): Promise<void> {
    await this.pool?.end();
  }

  /** `query` (which yields row_bytes) cut where its running byte count passes bytesMax, keeping at least one row. */
  private async boundedByBytes(query: string, params: unknown[], bytesMax: number): Promise<SpendLogRow[]> {
    const result = await this.poolOf().query<SpendLogRow>(
      `SELECT ${OUTPUT_COLUMNS} FROM (SELECT q.*, sum(q.row_bytes) OVER (ORDER BY q.sort_time, q.sort_id) AS running_bytes FROM (${query}) q) b
       WHERE b.running_bytes - b.row_bytes < $${params.length + 1} ORDER BY b.sort_time, b.sort_id`,
      [...params, bytesMax],
    );
    return result.rows;
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
