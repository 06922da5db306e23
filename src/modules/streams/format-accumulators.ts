// One accumulator per wire format, behind FormatAccumulator.
import { AnthropicMessagesAccumulator } from './anthropic-messages/anthropic-messages-accumulator.js';
import type { AccumulatorLimits, FormatAccumulator } from './format-accumulator.js';
import { GeminiAccumulator } from './gemini/gemini-accumulator.js';
import { ChatChunkAccumulator } from './openai-chat/chat-chunk-accumulator.js';
import { ResponsesAccumulator } from './openai-responses/responses-accumulator.js';
import type { StreamFormat } from './stream-format.js';

export function createAccumulator(format: StreamFormat, limits: AccumulatorLimits): FormatAccumulator {
  switch (format) {
    case 'openai-chat':
      return new ChatChunkAccumulator(limits);
    case 'openai-responses':
      return new ResponsesAccumulator(limits);
    case 'anthropic-messages':
      return new AnthropicMessagesAccumulator(limits);
    case 'gemini':
      return new GeminiAccumulator(limits);
  }
}
