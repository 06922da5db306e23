// One LiteLLM StandardLoggingPayload (what its generic_api callback sends) as a usage event, by the
// mapping of api.md "Integrations (gateway)". Pure. Only ids, counts and the model are read: the
// call's messages and response text are never copied into what this returns.
//
// Grounded in LiteLLM's source (BerriAI/litellm): `StandardLoggingPayload`,
// `StandardLoggingMetadata`, `StandardLoggingHiddenParams`, `StandardLoggingModelInformation`,
// `Usage`, `PromptTokensDetailsWrapper` (its `cache_creation_token_details`:
// `CacheCreationTokenDetails.ephemeral_5m/1h_input_tokens`, and `web_search_requests`) and
// `ServerToolUse` in litellm/types/utils.py; `endTime` is a float of epoch seconds there, and a
// naive "YYYY-MM-DD HH:MM:SS.ffffff" (UTC) in the JSON the callback writes (safe_dumps of a
// datetime, see tests/logging_callback_tests/gcs_pub_sub_body/standard_logging_payload.json).
import { isPlainObject } from '../streams/reassembler-types.js';
import { providerUsagePayload } from '../streams/stream-billing.js';
import { parseUsage, serviceTierVariant } from '../streams/stream-usage.js';
import { litellmEventId, unstorableTextReason } from './litellm-ids.js';
import { compileSelection, selectionOfPaths, type CompiledSelection } from './litellm-json-selection.js';
import { responseUsageObject } from './litellm-usage.js';
import { ProvenUsageEvent } from '../usage/usage-event-parse.js';

export { LITELLM_EVENT_ID_PREFIX } from './litellm-ids.js';
/** The placeholder contributor of an unattributed event while it is validated (never stored). */
export const UNATTRIBUTED_CONTRIBUTOR = 'litellm-unattributed';

export type SkipReason = 'failure' | 'cache_hit' | 'unsupported_call_type';

/**
 * Why an entry is rejected, as counted in the status and /metrics: `unreadable` (not JSON, or not
 * an object), `id`, `text` (a control character or a lone surrogate in a field that is stored),
 * `end_time`, `model`, `model_id`, `user`, `usage`, `event` (the usage writer refused the event),
 * `future` (dated past EVENT_OCCURRED_AT_FUTURE_SKEW_MS), `row_too_large` (a spend-log row).
 */
export type RejectReason = 'unreadable' | 'id' | 'text' | 'end_time' | 'model' | 'model_id' | 'user' | 'usage' | 'event' | 'future' | 'row_too_large';

/**
 * LiteLLM `CallTypes` (litellm/types/utils.py) that are chat or text completions, responses or
 * embeddings, sync and async names: `anthropic_messages` is its /v1/messages route,
 * `_aresponses_websocket` the Responses API over a websocket, `generate_content*` the Google GenAI
 * native routes (`:generateContent`, `:streamGenerateContent`). Anything else (images, speech,
 * transcription, files, batches, rerank, OCR...) is skipped.
 */
const BILLED_CALL_TYPES = new Set([
  'completion',
  'acompletion',
  'text_completion',
  'atext_completion',
  'responses',
  'aresponses',
  '_aresponses_websocket',
  'embedding',
  'aembedding',
  'anthropic_messages',
  'aanthropic_messages',
  'generate_content',
  'agenerate_content',
  'generate_content_stream',
  'agenerate_content_stream',
]);
/**
 * Pass-through routes (`pass_through_endpoint`: LiteLLM's /gemini, /vertex_ai, /anthropic...
 * pass-through, which it logs with the provider's usage rebuilt as a chat `Usage`; the newer
 * `llm_passthrough_route`): billed when they carry token usage, skipped as unsupported otherwise
 * (a pass-through to an endpoint that is not a model call has none).
 */
const PASS_THROUGH_CALL_TYPES = new Set(['pass_through_endpoint', 'llm_passthrough_route', 'allm_passthrough_route']);
/** A deployment id longer than this is not one LiteLLM made (a hash or a UUID) nor a name. */
const MODEL_ID_LENGTH_MAX = 256;

/** A POST /v1/usage-events body without its contributor, as the mapping builds it. */
export interface LitellmEvent {
  event_id: string;
  user_id: string;
  model: string;
  occurred_at: string;
  usage: Record<string, number>;
  price_variant?: string;
  metadata: { litellm_model_id: string; litellm_response_cost_usd?: string };
  [field: string]: unknown;
}

/** What one payload becomes: `occurredAt` is the instant `event.occurred_at` was written from. */
export type LitellmPlan =
  | { kind: 'event'; id: string; eventId: string; modelId: string; event: LitellmEvent; occurredAt: Date }
  | { kind: 'skipped'; id: string; eventId: string; reason: SkipReason }
  | { kind: 'rejected'; id: string | null; eventId: string | null; reason: RejectReason; message: string };

export interface LitellmMappingOptions {
  /** LITELLM_USER_FIELDS: dotted paths tried in order. */
  userFields: readonly string[];
  /** With both: a call dated past nowMs + futureSkewMs (EVENT_OCCURRED_AT_FUTURE_SKEW_MS) is rejected as `future`. */
  nowMs?: number;
  futureSkewMs?: number;
}

/**
 * Every path of a payload planLitellmPayload reads, besides LITELLM_USER_FIELDS: the push builds
 * only these (litellm-json-selection.ts). A field read here and missing there reads as absent
 * (the spec's property compares the mapping of the whole payload with that of its selection).
 */
export const LITELLM_READ_PATHS = [
  'id',
  'status',
  'cache_hit',
  'call_type',
  'endTime',
  'model',
  'model_id',
  'model_map_information.model_map_key',
  'hidden_params.litellm_model_name',
  'hidden_params.model_id',
  'response.usage',
  'response.service_tier',
  // The Responses API's web_search_call items, Gemini's usage and grounding (litellm-usage.ts).
  'response.output',
  'response.usageMetadata',
  'response.candidates',
  'prompt_tokens',
  'completion_tokens',
  'response_cost',
] as const;

/** What the push reads of each payload with these user fields. */
export function litellmPayloadSelection(userFields: readonly string[]): CompiledSelection {
  return compileSelection(selectionOfPaths([...LITELLM_READ_PATHS, ...userFields]));
}

/** The mapping of one payload (api.md), or why it is skipped or cannot be read. */
export function planLitellmPayload(value: unknown, options: LitellmMappingOptions): LitellmPlan {
  if (!isPlainObject(value)) return { kind: 'rejected', id: null, eventId: null, reason: 'unreadable', message: 'a payload must be a JSON object (a StandardLoggingPayload)' };
  const id = nonEmptyText(value.id);
  if (id === null) return { kind: 'rejected', id: null, eventId: null, reason: 'id', message: 'id: required (the StandardLoggingPayload id)' };
  const idProblem = unstorableTextReason(id);
  if (idProblem !== null) return { kind: 'rejected', id, eventId: null, reason: 'text', message: `id: ${idProblem}` };
  const eventId = litellmEventId(id);
  const reject = (reason: RejectReason, message: string): LitellmPlan => ({ kind: 'rejected', id, eventId, reason, message });

  if (value.status === 'failure') return { kind: 'skipped', id, eventId, reason: 'failure' };
  // No contributor did work for a call LiteLLM answered from its cache.
  if (value.cache_hit === true) return { kind: 'skipped', id, eventId, reason: 'cache_hit' };
  const callType = nonEmptyText(value.call_type);
  const passThrough = callType !== null && PASS_THROUGH_CALL_TYPES.has(callType);
  if (callType !== null && !passThrough && !BILLED_CALL_TYPES.has(callType)) return { kind: 'skipped', id, eventId, reason: 'unsupported_call_type' };
  const usage = usageOf(value);
  if (usage === null && passThrough) return { kind: 'skipped', id, eventId, reason: 'unsupported_call_type' };

  // The end time is read once: the text is written from this instant and every later check uses it.
  const at = litellmInstant(value.endTime);
  if (at === null) return reject('end_time', 'endTime: epoch seconds or "YYYY-MM-DD HH:MM:SS[.ffffff]" (UTC) required');
  const occurredAt = at.toISOString();
  if (options.nowMs !== undefined && options.futureSkewMs !== undefined && at.getTime() > options.nowMs + options.futureSkewMs) {
    return reject('future', `endTime: ${occurredAt} is more than EVENT_OCCURRED_AT_FUTURE_SKEW_MS (${options.futureSkewMs} ms) in the future`);
  }
  const model = modelOf(value);
  if (model === null) return reject('model', 'model: none of model_map_information.model_map_key, hidden_params.litellm_model_name, model');
  const modelId = nonEmptyText(value.model_id) ?? nonEmptyText(pathValue(value, 'hidden_params.model_id'));
  if (modelId === null) return reject('model_id', 'model_id: required (the LiteLLM deployment, model_info.id) to find the contributor');
  if (modelId.length > MODEL_ID_LENGTH_MAX) return reject('model_id', `model_id: at most ${MODEL_ID_LENGTH_MAX} characters`);
  const user = firstText(value, options.userFields);
  if (user === null) return reject('user', `user: none of ${options.userFields.join(', ')} is set`);
  // Every text below reaches Postgres: one it cannot store must reject this entry, not the body.
  for (const [field, text] of [['model', model], ['model_id', modelId], ['user', user]] as const) {
    const problem = unstorableTextReason(text);
    if (problem !== null) return reject('text', `${field}: ${problem}`);
  }
  if (usage === null) return reject('usage', 'usage: neither response.usage nor prompt_tokens/completion_tokens hold token counts');

  const event: LitellmEvent = { event_id: eventId, user_id: user, model, occurred_at: occurredAt, usage: usage.counts } as LitellmEvent;
  if (usage.variant !== null && usage.variant !== 'standard') event.price_variant = usage.variant;
  const metadata: LitellmEvent['metadata'] = { litellm_model_id: modelId };
  const cost = floatToDecimalText(value.response_cost);
  // LiteLLM's own float estimate, for comparison only: the ledger bills its own prices.
  if (cost !== null) metadata.litellm_response_cost_usd = cost;
  event.metadata = metadata;
  return { kind: 'event', id, eventId, modelId, event, occurredAt: at };
}

/**
 * The mapped event with its contributor as the usage writer takes it: proven valid from the parts
 * the mapping checked (no second parse of its body, its end time not read again), or, when only
 * the schema can tell, the body itself (`{ ...event, contributor_id }`), validated as any other.
 */
export function billableEvent(plan: { event: LitellmEvent; occurredAt: Date }, contributorId: string): unknown {
  const { event } = plan;
  const proven = ProvenUsageEvent.of({
    event_id: event.event_id,
    user_id: event.user_id,
    contributor_id: contributorId,
    model: event.model,
    occurred_at: event.occurred_at,
    occurredAt: plan.occurredAt,
    price_variant: event.price_variant,
    usage: event.usage,
    metadata: event.metadata,
  });
  return proven ?? { ...event, contributor_id: contributorId };
}

/**
 * The model the catalog import stores: LiteLLM's catalog key first (`model_map_key`), else the
 * model LiteLLM called (`hidden_params.litellm_model_name`), else the requested `model`.
 */
function modelOf(value: Record<string, unknown>): string | null {
  return nonEmptyText(pathValue(value, 'model_map_information.model_map_key')) ?? nonEmptyText(pathValue(value, 'hidden_params.litellm_model_name')) ?? nonEmptyText(value.model);
}

/**
 * `response.usage` (LiteLLM's `Usage`: OpenAI's shape plus cache_creation_input_tokens,
 * cache_read_input_tokens, prompt_tokens_details.cache_creation_token_details, server_tool_use)
 * read by the stream rules of pricing.md (stream-usage.ts), else the payload's top-level
 * prompt_tokens/completion_tokens. The variant is `response.service_tier`, as in streams.
 */
function usageOf(value: Record<string, unknown>): { counts: Record<string, number>; variant: string | null } | null {
  const response = isPlainObject(value.response) ? value.response : {};
  const read = parseUsage(responseUsageObject(response));
  const tier = nonEmptyText(response.service_tier) ?? read?.serviceTier ?? null;
  const variant = tier === null ? null : serviceTierVariant(tier);
  if (read !== null) {
    const counts = providerUsagePayload(read.usage);
    // LiteLLM also copies Anthropic's web search count into prompt_tokens_details.
    const searches = isPlainObject(response.usage) ? pathValue(response.usage, 'prompt_tokens_details.web_search_requests') : undefined;
    if (counts.web_search_calls === undefined && isCount(searches) && searches > 0) counts.web_search_calls = searches;
    return { counts, variant };
  }
  if (isCount(value.prompt_tokens) && isCount(value.completion_tokens)) {
    return { counts: { prompt_tokens: value.prompt_tokens, completion_tokens: value.completion_tokens, cached_tokens: 0, reasoning_tokens: 0 }, variant };
  }
  return null;
}

const NAIVE_TIME = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?$/;
const ZONED_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;
/** Epoch seconds from 2000 to 2200: a number outside is not a LiteLLM endTime (milliseconds, garbage). */
const EPOCH_SECONDS_MIN = 946_684_800;
const EPOCH_SECONDS_MAX = 7_258_118_400;

/**
 * LiteLLM's endTime as an RFC 3339 UTC instant, rounded to the millisecond (as Postgres'
 * timestamp(3) of its spend log rounds it, so push and pull agree): a float of epoch seconds, a
 * naive "YYYY-MM-DD HH:MM:SS.ffffff" read as UTC, or an ISO text with a zone.
 */
export function litellmTime(value: unknown): string | null {
  return litellmInstant(value)?.toISOString() ?? null;
}

/** litellmTime's instant (a valid Date), or null. */
export function litellmInstant(value: unknown): Date | null {
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || value < EPOCH_SECONDS_MIN || value > EPOCH_SECONDS_MAX) return null;
    return new Date(Math.round(value * 1000));
  }
  if (typeof value !== 'string') return null;
  const naive = NAIVE_TIME.exec(value.trim());
  if (naive) {
    const base = Date.parse(`${naive[1]}T${naive[2]}Z`);
    if (Number.isNaN(base)) return null;
    const fraction = naive[3] ?? '0';
    const ms = Math.round(Number(`0.${fraction}`) * 1000);
    return new Date(base + ms);
  }
  if (ZONED_TIME.test(value.trim())) {
    const ms = Date.parse(value.trim());
    return Number.isNaN(ms) ? null : new Date(ms);
  }
  return null;
}

/**
 * A non-negative finite float (LiteLLM's response_cost) as the plain decimal text of its shortest
 * round-trip form ("2.25e-7" -> "0.000000225"), or null. Never used as money: it is shown only.
 */
export function floatToDecimalText(value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) return null;
  const text = String(value);
  const exp = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!exp) return text;
  const digits = exp[1]! + (exp[2] ?? '');
  const point = exp[1]!.length + Number(exp[3]);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** The value at a dotted path ("metadata.user_api_key_user_id"), or undefined. */
export function pathValue(value: unknown, path: string): unknown {
  let current: unknown = value;
  for (const key of keysOfPath(path)) {
    if (!isPlainObject(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current;
}

/** Paths whose keys are kept split: the mapping's own and LITELLM_USER_FIELDS (at most 16) are far fewer. */
const SPLIT_PATHS_MAX = 64;
const splitPaths = new Map<string, readonly string[]>();

/** A dotted path's keys, split once per path (the mapping reads the same few paths of every payload). */
function keysOfPath(path: string): readonly string[] {
  let keys = splitPaths.get(path);
  if (keys === undefined) {
    keys = path.split('.');
    if (splitPaths.size < SPLIT_PATHS_MAX) splitPaths.set(path, keys);
  }
  return keys;
}

function firstText(value: unknown, paths: readonly string[]): string | null {
  for (const path of paths) {
    const text = nonEmptyText(pathValue(value, path));
    if (text !== null) return text;
  }
  return null;
}

function nonEmptyText(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
