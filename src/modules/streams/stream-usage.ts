// Where usage comes from in a chat-completion stream (pricing.md "Where usage comes from in a
// stream", rule C5 of test/fixtures/sse/README.md). Pure. The result uses the usage field names of
// api.md, so the stream bills like a usage event that carried the same counts.
import { type ReassembledUsage, isFirstChoice, isPlainObject } from './reassembler-types.js';

/** The usage a chunk carries, and the service tier written inside it (Anthropic puts it there). */
export interface ChunkUsage {
  usage: ReassembledUsage;
  serviceTier: string | null;
}

/**
 * Top-level `usage`; else Groq's `x_groq.usage` when the top-level one is absent or unusable; else
 * the `usage` of the index-0 choice (Moonshot). Unusable = not an object, or without valid
 * prompt/completion counts.
 */
export function readChunkUsage(chunk: Record<string, unknown>): ChunkUsage | null {
  const top = parseUsage(chunk.usage);
  if (top !== null) return top;
  const groq = isPlainObject(chunk.x_groq) ? parseUsage(chunk.x_groq.usage) : null;
  if (groq !== null) return groq;
  const choices = Array.isArray(chunk.choices) ? chunk.choices : [];
  const first = choices.find((choice) => isPlainObject(choice) && isFirstChoice(choice)) as Record<string, unknown> | undefined;
  return first === undefined ? null : parseUsage(first.usage);
}

/**
 * One provider usage object in api.md names, or null when it is unusable.
 *
 * - prompt/completion: `prompt_tokens`/`completion_tokens`; Anthropic-native usage (`input_tokens`,
 *   no `prompt_tokens`) has the cache writes and reads added to `input_tokens`, and `output_tokens`.
 * - `total_tokens` is optional and copied as sent, never recomputed.
 * - Each count below is read from the first of its sources that holds a valid count.
 * - cached_tokens and reasoning_tokens are kept when sent (0 included), as before; the other
 *   kinds only when non-zero (absent = 0 at the API).
 */
export function parseUsage(value: unknown): ChunkUsage | null {
  if (!isPlainObject(value)) return null;
  const promptDetails = objectOrEmpty(value.prompt_tokens_details);
  const completionDetails = objectOrEmpty(value.completion_tokens_details);
  const native = value.prompt_tokens === undefined || value.prompt_tokens === null;

  const cached = firstCount(promptDetails.cached_tokens, value.prompt_cache_hit_tokens, value.cache_read_input_tokens, value.cached_tokens);
  const writes = cacheWrites(value, promptDetails);
  let prompt = toTokenCount(native ? value.input_tokens : value.prompt_tokens);
  let completion = toTokenCount(native ? value.output_tokens : value.completion_tokens);
  if (prompt === null || completion === null) return null;
  if (native) {
    // Anthropic's input_tokens excludes the cache: prompt_tokens contains it (OpenAI containment).
    prompt += (toTokenCount(value.cache_read_input_tokens) ?? 0) + writes.total;
    if (!Number.isSafeInteger(prompt)) return null;
  }

  const total = toTokenCount(value.total_tokens);
  const reasoning = toTokenCount(completionDetails.reasoning_tokens);
  // xAI (and Gemini's OpenAI layer) count reasoning outside completion_tokens: the total says so.
  if (total !== null && reasoning !== null && reasoning > 0 && total === prompt + completion + reasoning) {
    completion += reasoning;
  }

  const usage: ReassembledUsage = { prompt_tokens: prompt, completion_tokens: completion };
  if (total !== null) usage.total_tokens = total;
  if (cached !== null) usage.cached_tokens = cached;
  if (reasoning !== null) usage.reasoning_tokens = reasoning;
  const cachedDetails = objectOrEmpty(promptDetails.cached_tokens_details);
  const serverTools = objectOrEmpty(value.server_tool_use);
  const kinds: Array<[keyof ReassembledUsage, number | null]> = [
    ['cache_write_5m_tokens', writes.fiveMinutes],
    ['cache_write_1h_tokens', writes.oneHour],
    ['prompt_audio_tokens', toTokenCount(promptDetails.audio_tokens)],
    ['cached_audio_tokens', toTokenCount(cachedDetails.audio_tokens)],
    ['prompt_image_tokens', toTokenCount(promptDetails.image_tokens)],
    ['completion_audio_tokens', toTokenCount(completionDetails.audio_tokens)],
    ['completion_image_tokens', toTokenCount(completionDetails.image_tokens)],
    ['web_search_calls', toTokenCount(serverTools.web_search_requests)],
  ];
  for (const [key, count] of kinds) if (count !== null && count > 0) usage[key] = count;
  const serviceTier = typeof value.service_tier === 'string' && value.service_tier !== '' ? value.service_tier : null;
  return { usage, serviceTier };
}

/**
 * Cache writes: the total from `prompt_tokens_details.cache_write_tokens` (OpenRouter),
 * `prompt_tokens_details.cache_creation_tokens`, `prompt_tokens_details.cache_creation_input_tokens`
 * (DashScope) or `cache_creation_input_tokens` (Anthropic, also
 * through LiteLLM); the 1-hour part from `cache_creation.ephemeral_1h_input_tokens` (LiteLLM:
 * `prompt_tokens_details.cache_creation_token_details`); 5 minutes = total - 1 hour. A 1-hour part
 * larger than the total is kept as reported with a 5-minute part of 0 (containment then judges the
 * usage). Without a total, the breakdown's own 5-minute count is used.
 */
function cacheWrites(value: Record<string, unknown>, promptDetails: Record<string, unknown>) {
  const breakdowns = [objectOrEmpty(value.cache_creation), objectOrEmpty(promptDetails.cache_creation_token_details)];
  const oneHour = firstCount(...breakdowns.map((b) => b.ephemeral_1h_input_tokens)) ?? 0;
  const total = firstCount(
    promptDetails.cache_write_tokens,
    promptDetails.cache_creation_tokens,
    promptDetails.cache_creation_input_tokens, // Alibaba DashScope / Model Studio
    value.cache_creation_input_tokens,
  );
  if (total !== null) return { total, fiveMinutes: Math.max(total - oneHour, 0), oneHour };
  const fiveMinutes = firstCount(...breakdowns.map((b) => b.ephemeral_5m_input_tokens)) ?? 0;
  return { total: fiveMinutes + oneHour, fiveMinutes, oneHour };
}

/**
 * The price variant a provider's `service_tier` names: `default` (OpenAI), `auto` and `on_demand`
 * (Groq) are the standard tier; any other value (`flex`, `priority`, `batch`, `scale`, Anthropic's
 * `standard`) is the variant of that name.
 */
export function serviceTierVariant(serviceTier: string): string {
  const tier = serviceTier.toLowerCase();
  return tier === 'default' || tier === 'auto' || tier === 'on_demand' ? 'standard' : tier;
}

function objectOrEmpty(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}

function firstCount(...values: unknown[]): number | null {
  for (const value of values) {
    const count = toTokenCount(value);
    if (count !== null) return count;
  }
  return null;
}

/** A non-negative safe integer (-0 becomes 0), else null. */
function toTokenCount(value: unknown): number | null {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) return null;
  return value === 0 ? 0 : value;
}
