// The bodies the soak sends to POST /v1/usage-events/stream (SSE) and /v1/usage-events/response
// (JSON), one entry per wire format. OpenAI chat chunks are built here; the Responses, Anthropic
// Messages and Gemini bodies are the real recorded ones of test/fixtures/formats with their usage
// blocks rewritten to the usage the soak planned (its own oracle knows what must be billed), as
// pricing.md "Other wire formats" reads them: Responses input_tokens (cached inside it) and
// output_tokens of the terminal event; Anthropic prompt = input + cache read (+ cache write, 0
// here), the last message_delta's output_tokens; Gemini the last usageMetadata, prompt with the
// cached tokens inside it. Service tiers are removed: a tier names a price variant the soak does not price.
import { readFileSync } from 'node:fs';
import type { PlannedUsage } from './soak-schedule.js';

export interface StreamFixture {
  /** The `format` query value (also sent without it: the service detects the format). */
  format: string;
  /** Whether the format carries cached prompt tokens (openai chat chunks here do not). */
  cached: boolean;
  body(usage: PlannedUsage, model: string): string;
}

const FORMATS_DIR = new URL('../../test/fixtures/formats/', import.meta.url);
const fixture = (name: string) => readFileSync(new URL(name, FORMATS_DIR), 'utf8');

const sse = (events: unknown[]): string => `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;

/** Each `data:` JSON of a recorded SSE body through `rewrite`, the framing (event: lines, blank lines) kept. */
function rewriteSse(text: string, rewrite: (event: any) => void): string {
  return text
    .split('\n')
    .map((line) => {
      const m = /^data: ?(.*?)(\r?)$/.exec(line);
      if (!m || !m[1]!.startsWith('{')) return line;
      const event = JSON.parse(m[1]!);
      rewrite(event);
      return `data: ${JSON.stringify(event)}${m[2]}`;
    })
    .join('\n');
}

const responsesUsage = (u: PlannedUsage) => ({
  input_tokens: u.prompt,
  input_tokens_details: { cached_tokens: u.cached },
  output_tokens: u.completion,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: u.prompt + u.completion,
});
const anthropicUsage = (u: PlannedUsage, output: number) => ({
  input_tokens: u.prompt - u.cached,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: u.cached,
  cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
  output_tokens: output,
});
const geminiUsage = (u: PlannedUsage) => ({
  promptTokenCount: u.prompt,
  candidatesTokenCount: u.completion,
  cachedContentTokenCount: u.cached,
  totalTokenCount: u.prompt + u.completion,
  promptTokensDetails: [{ modality: 'TEXT', tokenCount: u.prompt }],
});

const RESPONSES_SSE = fixture('responses-function-call.sse');
const ANTHROPIC_SSE = fixture('anthropic-text.sse');
const GEMINI_SSE = fixture('gemini-text.sse');

export const STREAM_FIXTURES = {
  'openai-chat': {
    format: 'openai-chat',
    cached: false,
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
  'openai-responses': {
    format: 'openai-responses',
    cached: true,
    body: (usage) =>
      rewriteSse(RESPONSES_SSE, (e) => {
        if (!e.response) return;
        delete e.response.service_tier;
        if (e.type === 'response.completed') e.response.usage = responsesUsage(usage);
      }),
  },
  'anthropic-messages': {
    format: 'anthropic-messages',
    cached: true,
    body: (usage) =>
      rewriteSse(ANTHROPIC_SSE, (e) => {
        if (e.type === 'message_start') e.message.usage = anthropicUsage(usage, 1);
        if (e.type === 'message_delta') e.usage = anthropicUsage(usage, usage.completion);
      }),
  },
  gemini: {
    format: 'gemini',
    cached: true,
    body: (usage) =>
      rewriteSse(GEMINI_SSE, (e) => {
        if (e.usageMetadata) e.usageMetadata = geminiUsage(usage);
      }),
  },
} satisfies Record<string, StreamFixture>;

export type StreamFormat = keyof typeof STREAM_FIXTURES;
export const STREAM_FORMATS = Object.keys(STREAM_FIXTURES) as StreamFormat[];

/** Non-streamed bodies for POST /v1/usage-events/response, by format. */
export const RESPONSE_FIXTURES = {
  'openai-chat': {
    format: 'openai-chat',
    cached: true,
    body: (usage, model) =>
      JSON.stringify({
        id: 'chatcmpl-soak', object: 'chat.completion', created: 1_765_000_000, model,
        choices: [{ index: 0, message: { role: 'assistant', content: 'Soak test.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: usage.prompt, completion_tokens: usage.completion, total_tokens: usage.prompt + usage.completion, prompt_tokens_details: { cached_tokens: usage.cached } },
      }),
  },
  'openai-responses': {
    format: 'openai-responses',
    cached: true,
    body: (usage) => {
      const body = JSON.parse(fixture('responses-web-search-response.json'));
      // The recorded searches are priced per call; the soak prices tokens only.
      body.output = body.output.filter((o: { type: string }) => o.type !== 'web_search_call');
      delete body.service_tier;
      body.usage = responsesUsage(usage);
      return JSON.stringify(body);
    },
  },
  'anthropic-messages': {
    format: 'anthropic-messages',
    cached: true,
    body: (usage) => JSON.stringify({ ...JSON.parse(fixture('anthropic-text-response.json')), usage: anthropicUsage(usage, usage.completion) }),
  },
  gemini: {
    format: 'gemini',
    cached: true,
    body: (usage) => JSON.stringify({ ...JSON.parse(fixture('gemini-tool-call-response.json')), usageMetadata: geminiUsage(usage) }),
  },
} satisfies Record<StreamFormat, StreamFixture>;
