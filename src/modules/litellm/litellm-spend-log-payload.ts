// A "LiteLLM_SpendLogs" row as the StandardLoggingPayload fields the push mapping reads, so the
// pull path bills by the very same rules (litellm-payload.ts). Pure.
//
// Same event id as the push: LiteLLM writes `request_id = get_spend_logs_id(...)`, which is
// `response_obj.get("id") or kwargs.get("litellm_call_id")`
// (litellm/proxy/spend_tracking/spend_tracking_utils.py, `get_logging_payload`), and builds the
// StandardLoggingPayload's `id` as `response_obj.get("id", kwargs.get("litellm_call_id"))`
// (litellm/litellm_core_utils/litellm_logging.py, `get_standard_logging_object_payload`). Columns,
// from the same `get_logging_payload`: `user` = metadata.user_api_key_user_id, `team_id` =
// metadata.user_api_key_team_id, `api_key` = the hashed key (the payload's
// metadata.user_api_key_hash), `model_id` = metadata.model_info.id (the payload's `model_id`),
// `spend` = response_cost, `cache_hit` = str(cache_hit) ("True"), `metadata.usage_object` = the
// payload's usage object and `metadata.model_map_information` its model_map_information.
import { hashedLitellmEventId, litellmEventId } from './litellm-ids.js';
import type { SpendLogRow } from './litellm-spend-logs.repository.js';

/** A row as a payload to ingest under its event id, or why it cannot be read (its event id when it has one). */
export type SpendLogEntry = { eventId: string; payload: Record<string, unknown> } | { eventId: string | null; rejected: string };

export function spendLogEntry(row: SpendLogRow): SpendLogEntry {
  if (row.request_id === null) {
    return { eventId: row.request_id_sha256 === null ? null : hashedLitellmEventId(row.request_id_sha256), rejected: 'row_too_large: request_id past the fetch cap' };
  }
  const eventId = litellmEventId(row.request_id);
  if (row.too_large !== null) return { eventId, rejected: `row_too_large: ${row.too_large} past the fetch cap` };
  return { eventId, payload: spendLogPayload({ ...row, request_id: row.request_id }) };
}

export function spendLogPayload(row: Omit<SpendLogRow, 'too_large' | 'sort_id' | 'request_id' | 'request_id_sha256'> & { request_id: string }): Record<string, unknown> {
  const payload: Record<string, unknown> = {
    id: row.request_id,
    call_type: row.call_type ?? undefined,
    status: row.status === 'failure' ? 'failure' : 'success',
    cache_hit: row.cache_hit === 'True' || row.cache_hit === 'true',
    endTime: row.end_time,
    model: row.model ?? undefined,
    model_id: row.model_id ?? undefined,
    custom_llm_provider: row.custom_llm_provider ?? undefined,
    end_user: row.end_user ?? undefined,
    metadata: {
      user_api_key_user_id: row.user ?? undefined,
      user_api_key_team_id: row.team_id ?? undefined,
      user_api_key_hash: row.api_key ?? undefined,
    },
    prompt_tokens: row.prompt_tokens ?? undefined,
    completion_tokens: row.completion_tokens ?? undefined,
    response_cost: row.spend ?? undefined,
  };
  if (row.model_map_key) payload.model_map_information = { model_map_key: row.model_map_key };
  if (row.usage_object !== null && typeof row.usage_object === 'object') payload.response = { usage: row.usage_object };
  return payload;
}
