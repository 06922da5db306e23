// Shared types and limits of the SSE stream reassembler (pure, no I/O).
import type { StreamFormat } from './stream-format.js';

/** Where a stream error came from. */
export type StreamErrorSource = 'provider' | 'event' | 'parse' | 'limit' | 'format';

export interface StreamError {
  /** Provider code (numbers turned into strings), or our own code for 'parse'/'limit'. */
  code: string | null;
  message: string;
  source: StreamErrorSource;
}

export interface ReassembledToolCall {
  /** Provider index; synthesised (highest + 1) only when absent, reused or taken (rule T3). */
  index: number;
  id: string;
  name: string;
  /** Exact concatenation of the argument fragments. */
  arguments_raw: string;
  /** JSON.parse(arguments_raw) when that is a plain object; {} for blank arguments_raw. */
  arguments: Record<string, unknown> | null;
  /** True when arguments_raw is neither blank nor a JSON object. */
  arguments_error: boolean;
}

/**
 * Provider usage in the usage field names of api.md (see stream-usage.ts for the sources).
 * total_tokens is copied as sent (absent when not sent); cached/reasoning are present when sent,
 * 0 included; every other kind only when non-zero.
 */
export interface ReassembledUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens?: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
  cache_write_5m_tokens?: number;
  cache_write_1h_tokens?: number;
  prompt_audio_tokens?: number;
  cached_audio_tokens?: number;
  prompt_image_tokens?: number;
  completion_audio_tokens?: number;
  completion_image_tokens?: number;
  web_search_calls?: number;
}

export interface ReassembledStream {
  /** The wire format (given, or detected from the first event that names one); null: none found. */
  format: StreamFormat | null;
  /** The visible text output (chat: delta.content of choice index 0), concatenated. */
  content: string;
  /**
   * delta.reasoning_content / delta.reasoning of choice index 0, concatenated: never billed or
   * stored, only counted by the usage audit (reasoning tokens are completion tokens).
   */
  reasoning: string;
  /** Last non-empty finish_reason of choice index 0, verbatim. */
  finish_reason: string | null;
  /** Sorted by index, ascending. */
  tool_calls: ReassembledToolCall[];
  /** Last valid usage object (never summed), or null. */
  usage: ReassembledUsage | null;
  /** First non-empty `model` of the chunks. */
  model: string | null;
  /** Last non-empty `service_tier` of the chunks (or of their usage, as Anthropic sends it), verbatim. */
  service_tier: string | null;
  /** Why reassembly stopped early; null when it did not. */
  error: StreamError | null;
  /** No error, no [DONE], and either no finish_reason or the body ended inside an event. */
  truncated: boolean;
  /** `data: [DONE]` was seen. */
  done: boolean;
  /** SSE events dispatched and handled (including [DONE] and error events). */
  events: number;
  /** Raw body bytes received (also those ignored after a stop). */
  bytes: number;
}

/** The four keys of the fixtures' expected.json. */
export type ReassembledSchema = Pick<ReassembledStream, 'content' | 'finish_reason' | 'tool_calls' | 'usage'>;

/** Memory bounds. All sizes are UTF-8 bytes. */
export interface ReassemblerLimits {
  /** One SSE event: its data lines plus the line being read (any line, comments too). */
  eventBytesMax: number;
  /** The whole raw body; bytes past it are not read. */
  streamBytesMax: number;
  /** Distinct tool calls. */
  toolCallsMax: number;
  /** arguments_raw of one tool call. */
  toolArgumentsBytesMax: number;
  /** The accumulated content. */
  contentBytesMax: number;
}

const MIB = 1024 * 1024;

/**
 * Image models stream a whole base64 image in one SSE event (OpenRouter's Gemini 2.5 Flash Image:
 * 1.43 MB); api.md allows 8 MiB. The decoder holds at most one event, so a stream costs at most
 * this much beside its content.
 */
export const EVENT_BYTES_MAX = 8 * MIB;
export const STREAM_BYTES_MAX = 32 * MIB;
export const TOOL_CALLS_MAX = 128;
export const TOOL_ARGUMENTS_BYTES_MAX = 4 * MIB;
export const CONTENT_BYTES_MAX = 16 * MIB;

export const DEFAULT_REASSEMBLER_LIMITS: Readonly<ReassemblerLimits> = Object.freeze({
  eventBytesMax: EVENT_BYTES_MAX,
  streamBytesMax: STREAM_BYTES_MAX,
  toolCallsMax: TOOL_CALLS_MAX,
  toolArgumentsBytesMax: TOOL_ARGUMENTS_BYTES_MAX,
  contentBytesMax: CONTENT_BYTES_MAX,
});

/** Error codes this module produces itself. */
export const StreamErrorCode = {
  invalidChunkJson: 'invalid_chunk_json',
  chunkNotObject: 'chunk_not_object',
  eventTooLarge: 'event_too_large',
  streamTooLarge: 'stream_too_large',
  tooManyToolCalls: 'too_many_tool_calls',
  toolArgumentsTooLarge: 'tool_arguments_too_large',
  toolArgumentsTooDeep: 'tool_arguments_too_deep',
  contentTooLarge: 'content_too_large',
  unsupportedStreamFormat: 'unsupported_stream_format',
} as const;

/** Provider messages are copied, but capped so one error cannot hold much memory. */
export const ERROR_MESSAGE_CHARS_MAX = 2000;

export function limitError(code: string, message: string): StreamError {
  return { code, message, source: 'limit' };
}

/** UTF-8 size of a JS string (lone surrogates count 3, as TextEncoder writes U+FFFD). */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(i + 1))) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * C1: only choice.index === 0 counts (not choices[0]). A choice with no index at all is taken
 * as index 0: single-choice providers that omit it would otherwise lose their whole output.
 */
export function isFirstChoice(choice: Record<string, unknown>): boolean {
  return choice.index === 0 || choice.index === undefined || choice.index === null;
}
