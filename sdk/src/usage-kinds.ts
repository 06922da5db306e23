// OpenAI's `usage` object in the api.md usage kinds: what a ledger without the response route
// (before #33) is sent for a non-streamed Chat Completions answer. Newer ledgers read the answer
// themselves (POST /v1/usage-events/response), by pricing.md's rules for every provider's fields.
import type { UsageEventBody } from './reports.js';

/** OpenAI's non-streamed `usage` in the api.md usage kinds (containment as OpenAI reports it). */
export function usageFromOpenAi(usage: Record<string, unknown> | undefined): UsageEventBody['usage'] {
  const n = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : 0);
  const prompt = (usage?.prompt_tokens_details ?? {}) as Record<string, unknown>;
  const completion = (usage?.completion_tokens_details ?? {}) as Record<string, unknown>;
  const kinds: Record<string, number> = {
    prompt_tokens: n(usage?.prompt_tokens),
    completion_tokens: n(usage?.completion_tokens),
    cached_tokens: n(prompt.cached_tokens),
    prompt_audio_tokens: n(prompt.audio_tokens),
    reasoning_tokens: n(completion.reasoning_tokens),
    completion_audio_tokens: n(completion.audio_tokens),
  };
  return Object.fromEntries(Object.entries(kinds).filter(([key, value]) => value > 0 || key === 'prompt_tokens' || key === 'completion_tokens')) as UsageEventBody['usage'];
}

/** The usage of a Chat Completions answer's JSON bytes, or undefined when it carries none. */
export function usageFromOpenAiAnswer(json: Uint8Array): UsageEventBody['usage'] | undefined {
  try {
    const answer = JSON.parse(new TextDecoder().decode(json)) as { usage?: unknown };
    return answer.usage && typeof answer.usage === 'object' ? usageFromOpenAi(answer.usage as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
