// Turns provider error payloads (rule C6) and undecodable chunks into StreamError values.
import {
  ERROR_MESSAGE_CHARS_MAX,
  type StreamError,
  StreamErrorCode,
  type StreamErrorSource,
  isPlainObject,
} from './reassembler-types.js';

export type JsonParseResult = { ok: true; value: unknown } | { ok: false; message: string };

export function tryParseJson(text: string): JsonParseResult {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

export function invalidJsonError(parseMessage: string): StreamError {
  return {
    code: StreamErrorCode.invalidChunkJson,
    message: capMessage(`data is not valid JSON: ${parseMessage}`),
    source: 'parse',
  };
}

export function notObjectError(value: unknown): StreamError {
  const kind = value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
  return { code: StreamErrorCode.chunkNotObject, message: `data is JSON ${kind}, not an object`, source: 'parse' };
}

/** A data object's top-level `error` (OpenRouter, Groq): a non-null object or a non-empty string. */
export function readChunkError(chunk: Record<string, unknown>): StreamError | null {
  return hasErrorValue(chunk.error) ? toStreamError(chunk.error, 'provider') : null;
}

export interface ErrorEventPayload {
  /** The parsed data object, so its choices can be taken before stopping. */
  chunk: Record<string, unknown> | null;
  error: StreamError;
}

/** An `event: error` event: `{"error": {...}}`, a bare error object, or plain text. */
export function readErrorEvent(data: string): ErrorEventPayload {
  const parsed = tryParseJson(data);
  if (parsed.ok && isPlainObject(parsed.value)) return { chunk: parsed.value, error: errorOfErrorEvent(parsed.value) };
  const text = data.trim();
  return { chunk: null, error: { code: null, message: text === '' ? 'error event' : capMessage(text), source: 'event' } };
}

/** The error an `event: error` event's data object carries: `{"error": {...}}` or a bare error object. */
export function errorOfErrorEvent(chunk: Record<string, unknown>): StreamError {
  return toStreamError(hasErrorValue(chunk.error) ? chunk.error : chunk, 'event');
}

export function hasErrorValue(value: unknown): boolean {
  return isPlainObject(value) || (typeof value === 'string' && value !== '');
}

export function toStreamError(error: unknown, source: StreamErrorSource): StreamError {
  if (typeof error === 'string') return { code: null, message: capMessage(error), source };
  if (!isPlainObject(error)) return { code: null, message: 'provider error', source };
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : 'provider error';
  return { code: readErrorCode(error.code), message: capMessage(message), source };
}

/** A string or a finite number (HTTP-style 429, 502 ...) becomes a string code. */
function readErrorCode(code: unknown): string | null {
  if (typeof code === 'string' && code !== '') return code;
  if (typeof code === 'number' && Number.isFinite(code)) return String(code);
  return null;
}

export function capMessage(message: string): string {
  return message.length <= ERROR_MESSAGE_CHARS_MAX ? message : `${message.slice(0, ERROR_MESSAGE_CHARS_MAX)}…`;
}
