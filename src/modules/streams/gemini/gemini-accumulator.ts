// Gemini GenerateContentResponse objects, streamed (streamGenerateContent?alt=sse) or whole
// (pricing.md "Other wire formats"): content = the text of candidate 0's parts that are not
// `thought: true`; a tool call = a functionCall part (index by order); finish = the last
// finishReason; usage = the last complete usageMetadata (cumulative, never summed); grounding
// searches = the last groundingMetadata.webSearchQueries. Built from recorded streams
// (test/fixtures/formats).
import { type AccumulatedStream, type AccumulatorLimits, type FormatAccumulator, type StreamEnd, TextParts, ToolCallSlots, nonEmptyText } from '../format-accumulator.js';
import { type ReassembledUsage, type StreamError, isFirstChoice, isPlainObject } from '../reassembler-types.js';
import { readChunkError } from '../stream-errors.js';

export class GeminiAccumulator implements FormatAccumulator {
  readonly format = 'gemini' as const;
  private readonly content: TextParts;
  private readonly calls: ToolCallSlots;
  private usage: ReassembledUsage | null = null;
  private webSearchQueries = 0;
  private model: string | null = null;
  private finishReason: string | null = null;
  private terminal = false;

  constructor(limits: AccumulatorLimits) {
    this.content = new TextParts(limits.contentBytesMax);
    this.calls = new ToolCallSlots(limits);
  }

  apply(_eventType: string, data: Record<string, unknown>): StreamError | null {
    this.model ??= nonEmptyText(data.modelVersion);
    const usage = geminiUsage(data.usageMetadata);
    if (usage !== null) this.usage = usage;
    // A blocked prompt ends the call without candidates.
    if (isPlainObject(data.promptFeedback) && nonEmptyText(data.promptFeedback.blockReason) !== null) this.terminal = true;
    const candidate = Array.isArray(data.candidates) ? data.candidates.find((c) => isPlainObject(c) && isFirstChoice(c)) : undefined;
    const error = isPlainObject(candidate) ? this.applyCandidate(candidate) : null;
    return error ?? readChunkError(data);
  }

  finish(): AccumulatedStream {
    let usage = this.usage;
    if (usage !== null && this.webSearchQueries > 0) usage = { ...usage, web_search_calls: this.webSearchQueries };
    return { content: this.content.text(), reasoning: '', finish_reason: this.finishReason, tool_calls: this.calls.finish(), usage, model: this.model, service_tier: null };
  }

  truncated(end: StreamEnd): boolean {
    return !this.terminal || end.midEvent;
  }

  private applyCandidate(candidate: Record<string, unknown>): StreamError | null {
    const reason = nonEmptyText(candidate.finishReason);
    if (reason !== null) {
      this.finishReason = reason;
      this.terminal = true;
    }
    const grounding = candidate.groundingMetadata;
    if (isPlainObject(grounding) && Array.isArray(grounding.webSearchQueries)) this.webSearchQueries = grounding.webSearchQueries.length;
    const content = candidate.content;
    if (!isPlainObject(content) || !Array.isArray(content.parts)) return null;
    for (const part of content.parts) {
      if (!isPlainObject(part) || part.thought === true) continue;
      const error = this.applyPart(part);
      if (error !== null) return error;
    }
    return null;
  }

  private applyPart(part: Record<string, unknown>): StreamError | null {
    if (typeof part.text === 'string') return this.content.append(part.text);
    const call = part.functionCall;
    if (!isPlainObject(call) || nonEmptyText(call.name) === null) return null;
    const index = this.calls.size;
    return this.calls.open(index, typeof call.id === 'string' ? call.id : '', call.name) ?? this.calls.setWholeArguments(index, call.args);
  }
}

/**
 * usageMetadata in api.md names, or null unless complete (a promptTokenCount: Vertex's chunks
 * before the last carry only trafficType). prompt = promptTokenCount + toolUsePromptTokenCount;
 * completion = candidatesTokenCount + thoughtsTokenCount (thoughts are outside candidates) and
 * reasoning = thoughtsTokenCount; audio / image by modality.
 */
export function geminiUsage(value: unknown): ReassembledUsage | null {
  if (!isPlainObject(value)) return null;
  const promptCount = count(value.promptTokenCount);
  if (promptCount === null) return null;
  const toolUse = count(value.toolUsePromptTokenCount) ?? 0;
  const candidates = count(value.candidatesTokenCount) ?? 0;
  const thoughts = count(value.thoughtsTokenCount);
  const usage: ReassembledUsage = { prompt_tokens: promptCount + toolUse, completion_tokens: candidates + (thoughts ?? 0) };
  const total = count(value.totalTokenCount);
  if (total !== null) usage.total_tokens = total;
  const cached = count(value.cachedContentTokenCount);
  if (cached !== null) usage.cached_tokens = cached;
  if (thoughts !== null) usage.reasoning_tokens = thoughts;
  const prompt = byModality(value.promptTokensDetails, value.toolUsePromptTokensDetails);
  const cache = byModality(value.cacheTokensDetails);
  const output = byModality(value.candidatesTokensDetails);
  const kinds: Array<[keyof ReassembledUsage, number]> = [
    ['prompt_audio_tokens', prompt.AUDIO],
    ['cached_audio_tokens', cache.AUDIO],
    ['prompt_image_tokens', prompt.IMAGE],
    ['completion_audio_tokens', output.AUDIO],
    ['completion_image_tokens', output.IMAGE],
  ];
  for (const [key, tokens] of kinds) if (tokens > 0) usage[key] = tokens;
  return usage;
}

/** The AUDIO and IMAGE entries of `[{modality, tokenCount}]` lists, summed (TEXT, VIDEO ... bill as text). */
function byModality(...lists: unknown[]): { AUDIO: number; IMAGE: number } {
  const totals = { AUDIO: 0, IMAGE: 0 };
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      if (!isPlainObject(entry) || (entry.modality !== 'AUDIO' && entry.modality !== 'IMAGE')) continue;
      totals[entry.modality] += count(entry.tokenCount) ?? 0;
    }
  }
  return totals;
}

function count(value: unknown): number | null {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : null;
}
