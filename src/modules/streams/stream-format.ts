// The wire formats the stream and response routes take (api.md "Usage events"), and how a body
// names its own format. Pure.
import { isPlainObject } from './reassembler-types.js';

export const STREAM_FORMATS = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'] as const;
export type StreamFormat = (typeof STREAM_FORMATS)[number];

export function isStreamFormat(value: unknown): value is StreamFormat {
  return typeof value === 'string' && (STREAM_FORMATS as readonly string[]).includes(value);
}

const ANTHROPIC_EVENTS = new Set(['message_start', 'message_delta', 'message_stop', 'content_block_start', 'content_block_delta', 'content_block_stop', 'ping']);

/**
 * The format one SSE event belongs to, or null when it does not say (an `error` event, a bare
 * keep-alive object). Its `type` field (or the `event:` line) names Responses and Anthropic
 * events; `choices` / `object` name chat chunks; `candidates` / `usageMetadata` name Gemini.
 */
export function formatOfEvent(eventType: string, data: Record<string, unknown>): StreamFormat | null {
  const type = typeof data.type === 'string' ? data.type : eventType;
  if (type.startsWith('response.')) return 'openai-responses';
  if (ANTHROPIC_EVENTS.has(type)) return 'anthropic-messages';
  if (data.object === 'chat.completion.chunk' || Array.isArray(data.choices)) return 'openai-chat';
  if (Array.isArray(data.candidates) || isPlainObject(data.usageMetadata) || isPlainObject(data.promptFeedback)) return 'gemini';
  // A usage-only chunk (stream_options.include_usage with no choices key), Groq's x_groq.
  if (isPlainObject(data.usage) || isPlainObject(data.x_groq)) return 'openai-chat';
  return null;
}

/** The format of a non-streamed response body, or null when it is none of the four. */
export function formatOfResponse(body: unknown): StreamFormat | null {
  if (Array.isArray(body)) {
    // Gemini's streamGenerateContent without alt=sse answers a JSON array of response objects
    // (never arrays: one level only, so a deeply nested array is no recursion).
    return body.length > 0 && body.every((item) => isPlainObject(item) && formatOfObject(item) === 'gemini') ? 'gemini' : null;
  }
  return isPlainObject(body) ? formatOfObject(body) : null;
}

function formatOfObject(body: Record<string, unknown>): StreamFormat | null {
  if (body.object === 'chat.completion' || (body.object === undefined && Array.isArray(body.choices))) return 'openai-chat';
  if (body.object === 'response' && Array.isArray(body.output)) return 'openai-responses';
  if (body.type === 'message' && Array.isArray(body.content)) return 'anthropic-messages';
  if (Array.isArray(body.candidates) || isPlainObject(body.usageMetadata) || isPlainObject(body.promptFeedback)) return 'gemini';
  return null;
}
