// The usage a provider's stream has reported so far, read from the AI SDK's raw chunks (the
// provider's own events, parsed): what ledgerMiddleware bills when a stream errors or is aborted
// before the AI SDK's `finish` part, which is the only place the AI SDK hands usage back. Each
// format's usage is cumulative (pricing.md "Other wire formats"): the last value of a field wins.
import type { UsageEventBody } from './reports.js';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const n = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined);

/** Counters by kind, each the last value a chunk reported. */
export class RawUsage {
  private prompt: number | undefined;
  private completion: number | undefined;
  private cached: number | undefined;
  private reasoning: number | undefined;

  /** Reads one raw chunk of any of the four formats; chunks without usage change nothing. */
  read(chunk: unknown): void {
    if (!isObject(chunk)) return;
    // Anthropic Messages: message_start.message.usage, then message_delta.usage (native: input without cache counts).
    const anthropic = chunk.type === 'message_start' && isObject(chunk.message) ? chunk.message.usage : chunk.type === 'message_delta' ? chunk.usage : undefined;
    if (isObject(anthropic)) {
      const input = n(anthropic.input_tokens);
      if (input !== undefined) this.prompt = input + (n(anthropic.cache_creation_input_tokens) ?? 0) + (n(anthropic.cache_read_input_tokens) ?? 0);
      this.set('completion', anthropic.output_tokens);
      this.set('cached', anthropic.cache_read_input_tokens);
      return;
    }
    // Gemini: usageMetadata (thoughts are outside candidates).
    if (isObject(chunk.usageMetadata)) {
      const usage = chunk.usageMetadata;
      if (n(usage.promptTokenCount) !== undefined) this.prompt = n(usage.promptTokenCount)! + (n(usage.toolUsePromptTokenCount) ?? 0);
      if (n(usage.candidatesTokenCount) !== undefined || n(usage.thoughtsTokenCount) !== undefined) this.completion = (n(usage.candidatesTokenCount) ?? 0) + (n(usage.thoughtsTokenCount) ?? 0);
      this.set('cached', usage.cachedContentTokenCount);
      this.set('reasoning', usage.thoughtsTokenCount);
      return;
    }
    // OpenAI Responses: response.usage of any event that carries the response.
    const responses = isObject(chunk.response) ? chunk.response.usage : undefined;
    if (isObject(responses)) {
      this.set('prompt', responses.input_tokens);
      this.set('completion', responses.output_tokens);
      this.set('cached', isObject(responses.input_tokens_details) ? responses.input_tokens_details.cached_tokens : undefined);
      this.set('reasoning', isObject(responses.output_tokens_details) ? responses.output_tokens_details.reasoning_tokens : undefined);
      return;
    }
    // Chat Completions: a chunk's usage.
    if (isObject(chunk.usage)) {
      this.set('prompt', chunk.usage.prompt_tokens);
      this.set('completion', chunk.usage.completion_tokens);
      this.set('cached', isObject(chunk.usage.prompt_tokens_details) ? chunk.usage.prompt_tokens_details.cached_tokens : undefined);
      this.set('reasoning', isObject(chunk.usage.completion_tokens_details) ? chunk.usage.completion_tokens_details.reasoning_tokens : undefined);
    }
  }

  private set(kind: 'prompt' | 'completion' | 'cached' | 'reasoning', value: unknown): void {
    const count = n(value);
    if (count !== undefined) this[kind] = count;
  }

  /** The usage so far, or undefined when no chunk reported prompt tokens. */
  usage(): UsageEventBody['usage'] | undefined {
    if (this.prompt === undefined) return undefined;
    return {
      prompt_tokens: this.prompt,
      completion_tokens: this.completion ?? 0,
      ...(this.cached ? { cached_tokens: Math.min(this.cached, this.prompt) } : {}),
      ...(this.reasoning ? { reasoning_tokens: Math.min(this.reasoning, this.completion ?? 0) } : {}),
    };
  }
}
