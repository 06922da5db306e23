// Streaming reassembler for the SSE bodies of every wire format (stream-format.ts): the framing,
// [DONE], JSON and limits here; each format's events in its own accumulator (a folder per format).
// Rules: test/fixtures/sse/README.md (F1-F7, C1-C6, T1-T5) and pricing.md "Other wire formats".
// Pure: no Nest, no I/O. Input data never makes it throw: malformed JSON, provider errors, a body
// of another format and exceeded limits end reassembly and are reported in `error`, keeping
// everything accumulated before that point.
import type { FormatAccumulator } from './format-accumulator.js';
import { createAccumulator } from './format-accumulators.js';
import { formatOfEvent, type StreamFormat } from './stream-format.js';
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
import { hasErrorValue, invalidJsonError, notObjectError, readChunkError, readErrorEvent, tryParseJson } from './stream-errors.js';

export * from './reassembler-types.js';

const DONE_MARKER = '[DONE]';
const WHITESPACE_ONLY = /^\s*$/;

export class StreamReassembler {
  private readonly limits: ReassemblerLimits;
  private accumulator: FormatAccumulator | null = null;
  /** The first event that names a format was checked against the given (or detected) one. */
  private formatChecked = false;
  private readonly decoder: SseEventDecoder;
  private readonly textEncoder = new TextEncoder();
  private error: StreamError | null = null;
  private done = false;
  private events = 0;
  private bytesReceived = 0;
  private bytesRead = 0;
  private result: ReassembledStream | null = null;

  /** Without a format, the first event that names one decides (events before it are skipped). */
  constructor(limits?: Partial<ReassemblerLimits>, format?: StreamFormat) {
    this.limits = resolveLimits(limits);
    if (format !== undefined) this.accumulator = createAccumulator(format, this.limits);
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
    const accumulator = this.accumulator;
    const accumulated = accumulator?.finish() ?? EMPTY;
    if (this.error === null) this.error = accumulator?.pendingError?.() ?? null;
    const end = { midEvent, error: this.error, done: this.done };
    // With no format found, the chat rule: nothing ended the body (an empty body is truncated).
    const truncated = accumulator === null ? this.error === null && !this.done : accumulator.truncated(end);
    this.result = {
      format: accumulator?.format ?? null,
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
    // A whitespace-only payload carries no chunk (some proxies send `data:  ` as a keep-alive).
    if (event.type !== 'error' && WHITESPACE_ONLY.test(event.data)) return true;
    const parsed = tryParseJson(event.data);
    if (!parsed.ok || !isPlainObject(parsed.value)) {
      // An `event: error` whose data is plain text (or not an object): its text is the message.
      if (event.type === 'error') return this.fail(readErrorEvent(event.data).error);
      return this.fail(parsed.ok ? notObjectError(parsed.value) : invalidJsonError(parsed.message));
    }
    const data = parsed.value;
    if (!this.formatChecked) {
      const named = formatOfEvent(event.type, data);
      if (named === null) {
        // Before any event names the format, an error still ends the stream; other events are skipped.
        if (this.accumulator === null) {
          if (event.type === 'error') return this.fail(readErrorEvent(event.data).error);
          return hasErrorValue(data.error) ? this.fail(readChunkError(data)!) : true;
        }
      } else {
        this.formatChecked = true;
        if (this.accumulator === null) this.accumulator = createAccumulator(named, this.limits);
        else if (named !== this.accumulator.format) return this.fail(formatMismatch(this.accumulator.format, named));
      }
    }
    const error = this.accumulator!.apply(event.type, data);
    return error === null ? true : this.fail(error);
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
  format?: StreamFormat,
): ReassembledStream {
  const reassembler = new StreamReassembler(limits, format);
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
  format?: StreamFormat,
): Promise<ReassembledStream> {
  const reassembler = new StreamReassembler(limits, format);
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

const EMPTY = Object.freeze({ content: '', reasoning: '', finish_reason: null, tool_calls: [], usage: null, model: null, service_tier: null });

function formatMismatch(given: StreamFormat, named: StreamFormat): StreamError {
  return { code: StreamErrorCode.unsupportedStreamFormat, message: `the body is ${named}, not ${given}`, source: 'format' };
}

// No byte count in the message: how much was read when the limit tripped depends on chunking.
function eventTooLarge(eventBytesMax: number): StreamError {
  return limitError(StreamErrorCode.eventTooLarge, `one SSE event exceeds ${eventBytesMax} bytes`);
}
