// The usage object of a StandardLoggingPayload's `response`, whatever LiteLLM route served the call
// (#33): LiteLLM logs the provider's own response object for some call types, so its usage sits in
// that format's shape (pricing.md "Other wire formats"). Pure. Grounded in LiteLLM's source:
// litellm/types/utils.py `Usage` (chat and text completions, embeddings, pass-through routes it
// rebuilds as a ModelResponse), `ResponseAPIUsage` for `responses`/`aresponses` (input_tokens,
// output_tokens, input_tokens_details, output_tokens_details: litellm/responses/utils.py
// `ResponseAPILoggingUtils` converts only prompt/completion, so the details are read here),
// Anthropic's `usage` for `anthropic_messages` (input_tokens without the cache, cache_creation,
// server_tool_use), and Gemini's `usageMetadata` for `generate_content` and its stream.
import { isPlainObject } from '../streams/reassembler-types.js';

/**
 * A usage object parseUsage reads (the chat shape, or Anthropic's native one it knows), or
 * undefined when the response carries none. Responses-API and Gemini usage are mapped to the chat
 * shape by the table of pricing.md; web searches from Responses' `web_search_call` output items
 * and Gemini's grounding queries.
 */
export function responseUsageObject(response: Record<string, unknown>): unknown {
  const usage = response.usage;
  if (isPlainObject(usage)) return isResponsesApiUsage(usage) ? responsesApiUsage(usage, response.output) : usage;
  if (isPlainObject(response.usageMetadata)) return geminiUsage(response.usageMetadata, response.candidates);
  return undefined;
}

/** OpenAI Responses usage: input/output tokens with their `_details` (Anthropic's native usage has neither). */
function isResponsesApiUsage(usage: Record<string, unknown>): boolean {
  return (usage.prompt_tokens === undefined || usage.prompt_tokens === null) && ('input_tokens_details' in usage || 'output_tokens_details' in usage);
}

function responsesApiUsage(usage: Record<string, unknown>, output: unknown): Record<string, unknown> {
  const input = objectOrEmpty(usage.input_tokens_details);
  const out = objectOrEmpty(usage.output_tokens_details);
  const searches = Array.isArray(output) ? output.filter((item) => isPlainObject(item) && item.type === 'web_search_call' && (item.status === undefined || item.status === 'completed')).length : 0;
  const mapped: Record<string, unknown> = {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    prompt_tokens_details: { cached_tokens: input.cached_tokens, audio_tokens: input.audio_tokens, image_tokens: input.image_tokens, cache_write_tokens: input.cache_write_tokens },
    completion_tokens_details: { reasoning_tokens: out.reasoning_tokens, audio_tokens: out.audio_tokens, image_tokens: out.image_tokens },
  };
  if (usage.total_tokens !== undefined) mapped.total_tokens = usage.total_tokens;
  if (searches > 0) mapped.server_tool_use = { web_search_requests: searches };
  return mapped;
}

/** Gemini: prompt = promptTokenCount + toolUsePromptTokenCount; completion = candidates + thoughts (outside candidates). */
function geminiUsage(meta: Record<string, unknown>, candidates: unknown): Record<string, unknown> | undefined {
  const count = (value: unknown) => (typeof value === 'number' ? value : 0);
  if (typeof meta.promptTokenCount !== 'number') return undefined;
  const thoughts = count(meta.thoughtsTokenCount);
  const byModality = (details: unknown, modality: string) =>
    Array.isArray(details) ? details.filter((d) => isPlainObject(d) && d.modality === modality).reduce((sum: number, d) => sum + count((d as Record<string, unknown>).tokenCount), 0) : 0;
  const first = Array.isArray(candidates) && isPlainObject(candidates[0]) ? candidates[0] : {};
  const queries = isPlainObject(first.groundingMetadata) && Array.isArray(first.groundingMetadata.webSearchQueries) ? first.groundingMetadata.webSearchQueries.length : 0;
  const mapped: Record<string, unknown> = {
    prompt_tokens: meta.promptTokenCount + count(meta.toolUsePromptTokenCount),
    completion_tokens: count(meta.candidatesTokenCount) + thoughts,
    prompt_tokens_details: {
      cached_tokens: count(meta.cachedContentTokenCount),
      audio_tokens: byModality(meta.promptTokensDetails, 'AUDIO'),
      image_tokens: byModality(meta.promptTokensDetails, 'IMAGE'),
    },
    completion_tokens_details: {
      reasoning_tokens: thoughts,
      audio_tokens: byModality(meta.candidatesTokensDetails, 'AUDIO'),
      image_tokens: byModality(meta.candidatesTokensDetails, 'IMAGE'),
    },
  };
  if (queries > 0) mapped.server_tool_use = { web_search_requests: queries };
  return mapped;
}

function objectOrEmpty(value: unknown): Record<string, unknown> {
  return isPlainObject(value) ? value : {};
}
