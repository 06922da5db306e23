// The one interface every wire format's reassembler implements, and the pieces they share
// (bounded text, tool calls by a provider key). Pure.
import {
  type ReassembledStream,
  type ReassembledToolCall,
  type ReassemblerLimits,
  type StreamError,
  StreamErrorCode,
  limitError,
  utf8ByteLength,
} from './reassembler-types.js';
import type { StreamFormat } from './stream-format.js';
import { exceedsNesting, parseArguments, ARGUMENTS_NESTING_MAX } from './openai-chat/tool-call-tracker.js';

export type AccumulatedStream = Pick<
  ReassembledStream,
  'content' | 'reasoning' | 'finish_reason' | 'tool_calls' | 'usage' | 'model' | 'service_tier'
>;

export type AccumulatorLimits = Pick<ReassemblerLimits, 'contentBytesMax' | 'toolCallsMax' | 'toolArgumentsBytesMax'>;

/** How the body ended, for the format's own truncation rule. */
export interface StreamEnd {
  /** The body ended inside an event (a cut-off line, or data lines no blank line closed). */
  midEvent: boolean;
  error: StreamError | null;
  /** `data: [DONE]` was seen. */
  done: boolean;
}

export interface FormatAccumulator {
  readonly format: StreamFormat;
  /**
   * One SSE event's parsed data object and its `event:` type ('message' when none). Returns an
   * error to end reassembly (a provider error, a limit): what the event carried is applied first.
   */
  apply(eventType: string, data: Record<string, unknown>): StreamError | null;
  finish(): AccumulatedStream;
  /** Cut off before the format's terminal event (or, for chat, its finish_reason / [DONE]). */
  truncated(end: StreamEnd): boolean;
  /**
   * An error event the format follows with a terminal event (Responses: `error`, then
   * `response.failed` with the usage): reading went on for it; the error when nothing else ended it.
   */
  pendingError?(): StreamError | null;
}

/** Appended text with a byte limit: past it, a limit error and the fragment is dropped. */
export class TextParts {
  private readonly parts: string[] = [];
  private bytes = 0;

  constructor(
    private readonly bytesMax: number,
    private readonly what = 'content',
  ) {}

  append(text: unknown): StreamError | null {
    if (typeof text !== 'string' || text === '') return null;
    const bytes = utf8ByteLength(text);
    if (this.bytes + bytes > this.bytesMax) return limitError(StreamErrorCode.contentTooLarge, `${this.what} exceeds ${this.bytesMax} bytes`);
    this.parts.push(text);
    this.bytes += bytes;
    return null;
  }

  text(): string {
    return this.parts.join('');
  }
}

interface ToolCallSlot {
  index: number;
  id: string;
  name: string;
  parts: string[];
  bytes: number;
  /** Whole arguments sent at once (Responses' `.done`, Gemini's args): used when no fragment came. */
  whole: string | null;
}

/**
 * Client tool calls keyed by the format's own position (Responses' output_index, Anthropic's
 * content-block index, Gemini's order of parts): id and name are set once, arguments are the
 * fragments joined, or the whole arguments when no fragment came.
 */
export class ToolCallSlots {
  private readonly slots = new Map<number, ToolCallSlot>();

  constructor(private readonly limits: Pick<ReassemblerLimits, 'toolCallsMax' | 'toolArgumentsBytesMax'>) {}

  get size(): number {
    return this.slots.size;
  }

  has(index: number): boolean {
    return this.slots.has(index);
  }

  /** Starts the call at index (or names a started one); a limit error past toolCallsMax. */
  open(index: number, id: unknown, name: unknown): StreamError | null {
    let slot = this.slots.get(index);
    if (slot === undefined) {
      if (this.slots.size >= this.limits.toolCallsMax) return limitError(StreamErrorCode.tooManyToolCalls, `more than ${this.limits.toolCallsMax} tool calls in one stream`);
      slot = { index, id: '', name: '', parts: [], bytes: 0, whole: null };
      this.slots.set(index, slot);
    }
    if (slot.id === '' && typeof id === 'string') slot.id = id;
    if (slot.name === '' && typeof name === 'string') slot.name = name;
    return null;
  }

  /** A fragment of the call's arguments; ignored for an index no call was opened at. */
  appendArguments(index: number, fragment: unknown): StreamError | null {
    const slot = this.slots.get(index);
    if (slot === undefined || typeof fragment !== 'string' || fragment === '') return null;
    const bytes = utf8ByteLength(fragment);
    if (slot.bytes + bytes > this.limits.toolArgumentsBytesMax) return tooLarge(index, this.limits.toolArgumentsBytesMax);
    slot.parts.push(fragment);
    slot.bytes += bytes;
    return null;
  }

  /** The whole arguments (a string, or an object sent as JSON); the last one sent wins. */
  setWholeArguments(index: number, value: unknown): StreamError | null {
    const slot = this.slots.get(index);
    if (slot === undefined || value === undefined || value === null) return null;
    if (exceedsNesting(value, ARGUMENTS_NESTING_MAX)) {
      return limitError(StreamErrorCode.toolArgumentsTooDeep, `arguments of tool call ${index} nest deeper than ${ARGUMENTS_NESTING_MAX} levels`);
    }
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    if (utf8ByteLength(text) > this.limits.toolArgumentsBytesMax) return tooLarge(index, this.limits.toolArgumentsBytesMax);
    slot.whole = text;
    return null;
  }

  /** setWholeArguments, only while the call has neither fragments nor whole arguments. */
  setWholeArgumentsIfNone(index: number, value: unknown): StreamError | null {
    const slot = this.slots.get(index);
    return slot === undefined || slot.parts.length > 0 || slot.whole !== null ? null : this.setWholeArguments(index, value);
  }

  finish(): ReassembledToolCall[] {
    return [...this.slots.values()]
      .sort((a, b) => a.index - b.index)
      .map((slot) => {
        const raw = slot.parts.length > 0 ? slot.parts.join('') : (slot.whole ?? '');
        const parsed = parseArguments(raw);
        return { index: slot.index, id: slot.id, name: slot.name, arguments_raw: raw, arguments: parsed, arguments_error: parsed === null };
      });
  }
}

function tooLarge(index: number, bytesMax: number): StreamError {
  return limitError(StreamErrorCode.toolArgumentsTooLarge, `arguments of tool call ${index} exceed ${bytesMax} bytes`);
}

/** A non-empty string, else null. */
export function nonEmptyText(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** A non-negative safe integer, else null. */
export function indexOf(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
