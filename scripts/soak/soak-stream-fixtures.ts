// SSE bodies the soak sends to POST /v1/usage-events/stream, one builder per wire format, each
// carrying the usage the soak planned (so its own oracle knows what must be billed). Main reads
// OpenAI Chat Completions streams; the Responses, Anthropic Messages and Gemini formats are being
// added on another branch: once they are, each is one entry here (query `format` plus a builder
// whose usage block carries prompt/completion tokens) and one name in STREAM_FORMATS.
import type { PlannedUsage } from './soak-schedule.js';

export interface StreamFixture {
  /** Extra query parameters (e.g. `format`). */
  query: Record<string, string>;
  body(usage: PlannedUsage, model: string): string;
}

const sse = (events: unknown[]): string => `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;

export const STREAM_FIXTURES = {
  'openai-chat': {
    query: {},
    body: (usage, model) => {
      const base = { id: 'chatcmpl-soak', object: 'chat.completion.chunk', created: 1_765_000_000, model };
      return sse([
        { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: 'Soak ' }, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: { content: 'test.' }, finish_reason: null }] },
        { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
        { ...base, choices: [], usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion } },
      ]);
    },
  },
  // 'openai-responses': { query: { format: 'openai-responses' }, body: ... },   (branch formats)
  // 'anthropic-messages': { query: { format: 'anthropic-messages' }, body: ... },
  // 'gemini': { query: { format: 'gemini' }, body: ... },
} satisfies Record<string, StreamFixture>;

export type StreamFormat = keyof typeof STREAM_FIXTURES;
export const STREAM_FORMATS = Object.keys(STREAM_FIXTURES) as StreamFormat[];
