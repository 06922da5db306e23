// Anthropic Messages events (pricing.md "Other wire formats"): content = the text_delta texts of
// text blocks; a client tool call = a tool_use block at its content-block index; usage =
// message_start's, then each message_delta's, field by field, the last present wins (cumulative:
// never summed). thinking and server_tool_use blocks are neither content nor client calls. An
// `error` event ends the stream with the usage seen so far. Built from recorded streams
// (test/fixtures/formats).
import { type AccumulatedStream, type AccumulatorLimits, type FormatAccumulator, type StreamEnd, TextParts, ToolCallSlots, indexOf, nonEmptyText } from '../format-accumulator.js';
import { type StreamError, isPlainObject } from '../reassembler-types.js';
import { capMessage } from '../stream-errors.js';
import { parseUsage } from '../stream-usage.js';

export class AnthropicMessagesAccumulator implements FormatAccumulator {
  readonly format = 'anthropic-messages' as const;
  private readonly content: TextParts;
  /** Thinking text: never billed or stored, only counted by the usage audit (it is output). */
  private readonly thinking: TextParts;
  private readonly calls: ToolCallSlots;
  /** Block type by content-block index. */
  private readonly blocks = new Map<number, string>();
  /** The usage fields seen so far, each the last value sent. */
  private readonly usageFields: Record<string, unknown> = {};
  private sawUsage = false;
  private model: string | null = null;
  private stopReason: string | null = null;
  private terminal = false;

  constructor(limits: AccumulatorLimits) {
    this.content = new TextParts(limits.contentBytesMax);
    this.thinking = new TextParts(limits.contentBytesMax, 'thinking');
    this.calls = new ToolCallSlots(limits);
  }

  apply(eventType: string, data: Record<string, unknown>): StreamError | null {
    const type = typeof data.type === 'string' ? data.type : eventType;
    switch (type) {
      case 'message_start': {
        const message = isPlainObject(data.message) ? data.message : {};
        this.model ??= nonEmptyText(message.model);
        this.mergeUsage(message.usage);
        return null;
      }
      case 'content_block_start':
        return this.startBlock(indexOf(data.index), data.content_block);
      case 'content_block_delta':
        return this.applyDelta(indexOf(data.index), data.delta);
      case 'message_delta': {
        const delta = isPlainObject(data.delta) ? data.delta : {};
        this.stopReason = nonEmptyText(delta.stop_reason) ?? this.stopReason;
        this.mergeUsage(data.usage);
        return null;
      }
      case 'message_stop':
        this.terminal = true;
        return null;
      case 'error': {
        const error = isPlainObject(data.error) ? data.error : data;
        return { code: nonEmptyText(error.type === 'error' ? null : error.type), message: capMessage(nonEmptyText(error.message) ?? 'error event'), source: 'event' };
      }
      default:
        return null;
    }
  }

  finish(): AccumulatedStream {
    const read = this.sawUsage ? parseUsage(this.usageFields) : null;
    // `thinking` may pass its own limit: the audit then sees the visible output only.
    return {
      content: this.content.text(),
      reasoning: this.thinking.text(),
      finish_reason: this.stopReason,
      tool_calls: this.calls.finish(),
      usage: read?.usage ?? null,
      model: this.model,
      service_tier: read?.serviceTier ?? null,
    };
  }

  truncated(end: StreamEnd): boolean {
    return !this.terminal || end.midEvent;
  }

  private startBlock(index: number | null, block: unknown): StreamError | null {
    if (index === null || !isPlainObject(block) || typeof block.type !== 'string') return null;
    this.blocks.set(index, block.type);
    if (block.type === 'text') return this.content.append(block.text);
    if (block.type === 'tool_use') return this.calls.open(index, nonEmptyText(block.id), nonEmptyText(block.name));
    return null;
  }

  private applyDelta(index: number | null, delta: unknown): StreamError | null {
    if (index === null || !isPlainObject(delta)) return null;
    const block = this.blocks.get(index);
    switch (delta.type) {
      case 'text_delta':
        return block === undefined || block === 'text' ? this.content.append(delta.text) : null;
      case 'input_json_delta':
        return block === 'tool_use' ? this.calls.appendArguments(index, delta.partial_json) : null;
      case 'thinking_delta':
        this.thinking.append(delta.thinking);
        return null;
      default:
        return null;
    }
  }

  /** Field by field: a field a later event leaves out (or sends as null) keeps its last value. */
  private mergeUsage(usage: unknown): void {
    if (!isPlainObject(usage)) return;
    this.sawUsage = true;
    for (const [key, value] of Object.entries(usage)) {
      if (value !== null && value !== undefined) this.usageFields[key] = value;
    }
  }
}
