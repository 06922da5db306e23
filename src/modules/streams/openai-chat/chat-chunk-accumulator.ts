// Folds parsed `chat.completion.chunk` objects into one result (rules C1-C6 of
// test/fixtures/sse/README.md). [DONE] is handled by the caller.
import type { AccumulatedStream, FormatAccumulator, StreamEnd } from '../format-accumulator.js';
import {
  type ReassembledUsage,
  type ReassemblerLimits,
  type StreamError,
  StreamErrorCode,
  isFirstChoice,
  isPlainObject,
  limitError,
  utf8ByteLength,
} from '../reassembler-types.js';
import { readChunkUsage } from '../stream-usage.js';
import { errorOfErrorEvent, readChunkError } from '../stream-errors.js';
import { ToolCallTracker } from './tool-call-tracker.js';

export type AccumulatedChunks = AccumulatedStream;

export type ChunkLimits = Pick<ReassemblerLimits, 'contentBytesMax' | 'toolCallsMax' | 'toolArgumentsBytesMax'>;

export class ChatChunkAccumulator implements FormatAccumulator {
  readonly format = 'openai-chat' as const;
  private readonly contentParts: string[] = [];
  private contentBytes = 0;
  private readonly reasoningParts: string[] = [];
  private reasoningBytes = 0;
  private finishReason: string | null = null;
  private usage: ReassembledUsage | null = null;
  private model: string | null = null;
  private serviceTier: string | null = null;
  private readonly toolCalls: ToolCallTracker;

  constructor(private readonly limits: ChunkLimits) {
    this.toolCalls = new ToolCallTracker(limits);
  }

  get lastFinishReason(): string | null {
    return this.finishReason;
  }

  /**
   * One event: an `event: error` event's choices are taken, then it ends the stream; a chunk's
   * choices are taken before its top-level `error` (OpenRouter puts finish_reason "error" there, C6).
   */
  apply(eventType: string, data: Record<string, unknown>): StreamError | null {
    if (eventType === 'error') return this.applyChunk(data) ?? errorOfErrorEvent(data);
    return this.applyChunk(data) ?? readChunkError(data);
  }

  /** No error, no [DONE], and either no finish_reason or the body ended inside an event. */
  truncated(end: StreamEnd): boolean {
    return end.error === null && !end.done && (this.finishReason === null || end.midEvent);
  }

  /** Applies one chunk; returns a limit error when one is hit (accumulation must then stop). */
  applyChunk(chunk: Record<string, unknown>): StreamError | null {
    if (this.model === null && typeof chunk.model === 'string' && chunk.model !== '') this.model = chunk.model;
    // Last wins, never summed: vLLM, xAI and Perplexity send running totals (C5).
    const read = readChunkUsage(chunk);
    if (read !== null) this.usage = read.usage;
    const tier = typeof chunk.service_tier === 'string' && chunk.service_tier !== '' ? chunk.service_tier : read?.serviceTier;
    if (tier) this.serviceTier = tier;
    const choices = chunk.choices;
    // [], null or a missing `choices` marks a metadata chunk (C1).
    if (!Array.isArray(choices)) return null;
    for (const choice of choices) {
      if (!isPlainObject(choice) || !isFirstChoice(choice)) continue;
      const error = this.applyChoice(choice);
      if (error !== null) return error;
    }
    return null;
  }

  finish(): AccumulatedChunks {
    return {
      content: this.contentParts.join(''),
      reasoning: this.reasoningParts.join(''),
      finish_reason: this.finishReason,
      tool_calls: this.toolCalls.finish(),
      usage: this.usage,
      model: this.model,
      service_tier: this.serviceTier,
    };
  }

  private applyChoice(choice: Record<string, unknown>): StreamError | null {
    // A choice without `delta` (Azure filter annotation) only contributes finish_reason (C2).
    // `choice.message` (Perplexity's cumulative copy) is ignored (C4).
    const delta = choice.delta;
    if (isPlainObject(delta)) {
      const error = this.appendContent(delta.content) ?? this.toolCalls.applyDeltas(delta.tool_calls);
      this.appendReasoning(delta.reasoning_content ?? delta.reasoning);
      if (error !== null) return error;
    }
    // Only non-empty values set it, so a later null (or "") never resets it (C3).
    const reason = choice.finish_reason;
    if (typeof reason === 'string' && reason !== '') this.finishReason = reason;
    return null;
  }

  /**
   * Only `delta.content` counts; reasoning_content / reasoning are ignored (C4). Content sent as
   * an array of typed parts (Mistral's thinking models, some gateways) contributes its
   * `{type: "text", text}` parts; other parts (thinking, images) are not content.
   */
  private appendContent(content: unknown): StreamError | null {
    const value = Array.isArray(content) ? textOfParts(content) : content;
    if (typeof value !== 'string' || value === '') return null;
    const bytes = utf8ByteLength(value);
    if (this.contentBytes + bytes > this.limits.contentBytesMax) {
      return limitError(StreamErrorCode.contentTooLarge, `content exceeds ${this.limits.contentBytesMax} bytes`);
    }
    this.contentParts.push(value);
    this.contentBytes += bytes;
    return null;
  }

  /**
   * Reasoning text (DeepSeek, vLLM, OpenRouter: reasoning_content or reasoning), kept for the usage
   * audit only. Past contentBytesMax the rest is dropped (never an error: it bills nothing), and
   * the audit then compares the visible tokens only, as for a provider that hides its reasoning.
   */
  private appendReasoning(reasoning: unknown): void {
    if (typeof reasoning !== 'string' || reasoning === '' || this.reasoningBytes < 0) return;
    const bytes = utf8ByteLength(reasoning);
    if (this.reasoningBytes + bytes > this.limits.contentBytesMax) {
      this.reasoningBytes = -1;
      this.reasoningParts.length = 0;
      return;
    }
    this.reasoningParts.push(reasoning);
    this.reasoningBytes += bytes;
  }
}

function textOfParts(parts: unknown[]): string {
  let text = '';
  for (const part of parts) {
    if (isPlainObject(part) && part.type === 'text' && typeof part.text === 'string') text += part.text;
  }
  return text;
}
