// OpenAI Responses API events (pricing.md "Other wire formats"): content = the
// response.output_text.delta deltas; a client tool call = a function_call output item at its
// output_index; usage, status and service tier from the terminal response.completed /
// response.incomplete / response.failed. Built from recorded streams (test/fixtures/formats).
import { type AccumulatedStream, type AccumulatorLimits, type FormatAccumulator, type StreamEnd, TextParts, ToolCallSlots, indexOf, nonEmptyText } from '../format-accumulator.js';
import { type ReassembledUsage, type StreamError, isPlainObject } from '../reassembler-types.js';
import { capMessage } from '../stream-errors.js';
import { parseUsage } from '../stream-usage.js';

const TERMINAL_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

export class ResponsesAccumulator implements FormatAccumulator {
  readonly format = 'openai-responses' as const;
  private readonly content: TextParts;
  private readonly calls: ToolCallSlots;
  /** Completed web_search_call items, by item id (or output index), so a repeat is counted once. */
  private readonly webSearches = new Set<string>();
  private usage: ReassembledUsage | null = null;
  private model: string | null = null;
  private serviceTier: string | null = null;
  private status: string | null = null;
  private terminal = false;
  /** An `error` event: OpenAI sends `response.failed` (with its usage) after it, so only that is read on. */
  private errorEvent: StreamError | null = null;

  constructor(limits: AccumulatorLimits) {
    this.content = new TextParts(limits.contentBytesMax);
    this.calls = new ToolCallSlots(limits);
  }

  apply(eventType: string, data: Record<string, unknown>): StreamError | null {
    const type = typeof data.type === 'string' ? data.type : eventType;
    if (this.errorEvent !== null) {
      if (!TERMINAL_EVENTS.has(type) || !isPlainObject(data.response)) return null;
      // The terminal event's usage and status count; the error reported is the first one.
      this.applyResponse(data.response, true);
      return this.errorEvent;
    }
    switch (type) {
      case 'response.output_text.delta':
        return this.content.append(data.delta);
      case 'response.function_call_arguments.delta': {
        const index = indexOf(data.output_index);
        return index === null ? null : this.calls.appendArguments(index, data.delta);
      }
      case 'response.function_call_arguments.done': {
        const index = indexOf(data.output_index);
        return index === null ? null : this.calls.setWholeArguments(index, data.arguments);
      }
      case 'response.output_item.added':
      case 'response.output_item.done':
        return this.applyItem(indexOf(data.output_index), data.item);
      case 'error': {
        // Documented with code/message at the top; recorded streams nest them in `error`.
        const error = isPlainObject(data.error) ? data.error : data;
        this.errorEvent = { code: nonEmptyText(error.code), message: capMessage(nonEmptyText(error.message) ?? 'error event'), source: 'event' };
        return null;
      }
      default:
        if (isPlainObject(data.response)) return this.applyResponse(data.response, TERMINAL_EVENTS.has(type));
        return null;
    }
  }

  finish(): AccumulatedStream {
    let usage = this.usage;
    if (usage !== null && this.webSearches.size > 0) usage = { ...usage, web_search_calls: this.webSearches.size };
    return { content: this.content.text(), reasoning: '', finish_reason: this.status, tool_calls: this.calls.finish(), usage, model: this.model, service_tier: this.serviceTier };
  }

  truncated(end: StreamEnd): boolean {
    return !this.terminal || end.midEvent;
  }

  pendingError(): StreamError | null {
    return this.errorEvent;
  }

  private applyItem(index: number | null, item: unknown): StreamError | null {
    if (index === null || !isPlainObject(item)) return null;
    if (item.type === 'function_call') {
      const error = this.calls.open(index, nonEmptyText(item.call_id), nonEmptyText(item.name));
      // The item's own arguments count only when no delta or .done gave them.
      return error ?? (nonEmptyText(item.arguments) === null ? null : this.calls.setWholeArgumentsIfNone(index, item.arguments));
    }
    if (item.type === 'web_search_call' && item.status === 'completed') this.webSearches.add(nonEmptyText(item.id) ?? `#${index}`);
    return null;
  }

  /** response.created / in_progress give the model; a terminal event the status, usage and tier. */
  private applyResponse(response: Record<string, unknown>, terminal: boolean): StreamError | null {
    this.model ??= nonEmptyText(response.model);
    if (!terminal) return null;
    this.terminal = true;
    this.status = nonEmptyText(response.status) ?? this.status;
    // `auto` is what was asked, not a tier that served the call.
    const tier = nonEmptyText(response.service_tier);
    if (tier !== null && tier !== 'auto') this.serviceTier = tier;
    const usage = responsesUsage(response.usage);
    if (usage !== null) this.usage = usage;
    if (Array.isArray(response.output)) {
      response.output.forEach((item, index) => {
        if (isPlainObject(item) && item.type === 'web_search_call' && item.status === 'completed') this.webSearches.add(nonEmptyText(item.id) ?? `#${index}`);
      });
    }
    if (this.status === 'failed') {
      const error = isPlainObject(response.error) ? response.error : {};
      return { code: nonEmptyText(error.code), message: capMessage(nonEmptyText(error.message) ?? 'response failed'), source: 'provider' };
    }
    return null;
  }
}

/**
 * Responses usage (`input_tokens`, `input_tokens_details.cached_tokens` / `cache_write_tokens`,
 * `output_tokens`, `output_tokens_details.reasoning_tokens`, audio / image details) in api.md names:
 * the same reading as a chat chunk's usage under the chat names.
 */
export function responsesUsage(value: unknown): ReassembledUsage | null {
  if (!isPlainObject(value) || value.input_tokens === undefined || value.input_tokens === null) return null;
  const parsed = parseUsage({
    prompt_tokens: value.input_tokens,
    completion_tokens: value.output_tokens,
    total_tokens: value.total_tokens,
    prompt_tokens_details: value.input_tokens_details,
    completion_tokens_details: value.output_tokens_details,
  });
  return parsed?.usage ?? null;
}
