// Streaming reassembler for OpenAI-compatible chat-completion SSE bodies. Pure: no Nest, no I/O.
// Rules: test/fixtures/sse/README.md (F1-F7, C1-C6, T1-T5). Input data never makes it throw:
// malformed JSON, provider errors and exceeded limits end reassembly and are reported in `error`,
// keeping everything accumulated before that point.
import { ChatChunkAccumulator } from './chat-chunk-accumulator.js';
import {
  DEFAULT_REASSEMBLER_LIMITS,
  type ReassembledSchema,
  type ReassembledStream,
  type ReassemblerLimits,
  type StreamError,
  StreamErrorCode,
  isPlainObject,
  limitError,
} from './reassembler-types.js';
import { SseEventDecoder, type SseEvent } from './sse-event-decoder.js';
import { invalidJsonError, notObjectError, readChunkError, readErrorEvent, tryParseJson } from './stream-errors.js';

export * from './reassembler-types.js';

const DONE_MARKER = '[DONE]';
const WHITESPACE_ONLY = /^\s*$/;

export class StreamReassembler {
  private readonly limits: ReassemblerLimits;
  private readonly accumulator: ChatChunkAccumulator;
  private readonly decoder: SseEventDecoder;
  private readonly textEncoder = new TextEncoder();
  private error: StreamError | null = null;
  private done = false;
  private events = 0;
  private bytesReceived = 0;
  private bytesRead = 0;
  private result: ReassembledStream | null = null;

  constructor(limits?: Partial<ReassemblerLimits>) {
    this.limits = resolveLimits(limits);
    this.accumulator = new ChatChunkAccumulator(this.limits);
    this.decoder = new SseEventDecoder(
      {
        onEvent: (event) => this.handleEvent(event),
        onEventTooLarge: () => this.fail(eventTooLarge(this.limits.eventBytesMax)),
      },
      this.limits.eventBytesMax,
    );
  }

  /** True once [DONE], an error or a limit ended reassembly: further input is only counted. */
  get stopped(): boolean {
    return this.done || this.error !== null;
  }

  /** Feeds the next piece of the body; chunk boundaries may fall anywhere, even inside a character. */
  push(chunk: Uint8Array | string): void {
    if (this.result !== null) return;
    const bytes = typeof chunk === 'string' ? this.textEncoder.encode(chunk) : chunk;
    this.bytesReceived += bytes.length;
    if (this.stopped) return;
    const allowedBytes = this.limits.streamBytesMax - this.bytesRead;
    if (bytes.length <= allowedBytes) {
      this.bytesRead += bytes.length;
      this.decoder.push(bytes);
      return;
    }
    // Read exactly up to the limit, so the result does not depend on where chunks were cut.
    this.bytesRead += allowedBytes;
    this.decoder.push(bytes.subarray(0, allowedBytes));
    if (!this.stopped) {
      this.fail(
        limitError(StreamErrorCode.streamTooLarge, `stream exceeds ${this.limits.streamBytesMax} bytes`),
      );
    }
  }

  /** Ends the body (dropping an unterminated event, F6) and returns the result. Idempotent. */
  end(): ReassembledStream {
    if (this.result !== null) return this.result;
    const { midEvent } = this.decoder.end();
    const accumulated = this.accumulator.finish();
    const truncated =
      this.error === null && !this.done && (accumulated.finish_reason === null || midEvent);
    this.result = {
      ...accumulated,
      error: this.error,
      truncated,
      done: this.done,
      events: this.events,
      bytes: this.bytesReceived,
    };
    return this.result;
  }

  /** Returns false to stop the decoder. */
  private handleEvent(event: SseEvent): boolean {
    this.events++;
    // Checked before the event type, as openai-node does (F7).
    if (event.data.startsWith(DONE_MARKER)) {
      this.done = true;
      return false;
    }
    if (event.type === 'error') {
      const { chunk, error } = readErrorEvent(event.data);
      this.fail((chunk === null ? null : this.accumulator.applyChunk(chunk)) ?? error);
      return false;
    }
    // A whitespace-only payload carries no chunk (some proxies send `data:  ` as a keep-alive).
    if (WHITESPACE_ONLY.test(event.data)) return true;
    return this.handleChunkData(event.data);
  }

  private handleChunkData(data: string): boolean {
    const parsed = tryParseJson(data);
    if (!parsed.ok) return this.fail(invalidJsonError(parsed.message));
    if (!isPlainObject(parsed.value)) return this.fail(notObjectError(parsed.value));
    const limitHit = this.accumulator.applyChunk(parsed.value);
    if (limitHit !== null) return this.fail(limitHit);
    // The chunk's choices were taken first: OpenRouter puts finish_reason "error" there (C6).
    const providerError = readChunkError(parsed.value);
    return providerError === null ? true : this.fail(providerError);
  }

  /** Records the first error only; always returns false (stop). */
  private fail(error: StreamError): false {
    if (this.error === null && !this.done) this.error = error;
    this.decoder.stop();
    return false;
  }
}

/** Reassembles a complete body, given whole, or as an iterable of chunks. */
export function reassembleSse(
  body: Uint8Array | string | Iterable<Uint8Array | string>,
  limits?: Partial<ReassemblerLimits>,
): ReassembledStream {
  const reassembler = new StreamReassembler(limits);
  if (typeof body === 'string' || body instanceof Uint8Array) {
    reassembler.push(body);
  } else {
    for (const chunk of body) reassembler.push(chunk);
  }
  return reassembler.end();
}

/** Same as reassembleSse for an async source (a Node stream, a fetch body reader ...). */
export async function reassembleSseAsync(
  body: AsyncIterable<Uint8Array | string>,
  limits?: Partial<ReassemblerLimits>,
): Promise<ReassembledStream> {
  const reassembler = new StreamReassembler(limits);
  for await (const chunk of body) reassembler.push(chunk);
  return reassembler.end();
}

/** The four keys the fixtures' expected.json files hold, in their order. */
export function toSchemaResult(result: ReassembledStream): ReassembledSchema {
  return {
    content: result.content,
    finish_reason: result.finish_reason,
    tool_calls: result.tool_calls,
    usage: result.usage,
  };
}

export function resolveLimits(limits?: Partial<ReassemblerLimits>): ReassemblerLimits {
  const resolved: ReassemblerLimits = { ...DEFAULT_REASSEMBLER_LIMITS };
  for (const key of Object.keys(resolved) as Array<keyof ReassemblerLimits>) {
    const value = limits?.[key];
    if (value !== undefined) {
      if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`limit ${key} must be a non-negative integer`);
      resolved[key] = value;
    }
  }
  return resolved;
}

// No byte count in the message: how much was read when the limit tripped depends on chunking.
function eventTooLarge(eventBytesMax: number): StreamError {
  return limitError(StreamErrorCode.eventTooLarge, `one SSE event exceeds ${eventBytesMax} bytes`);
}
