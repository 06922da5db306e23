// LiteLLM StandardLoggingPayloads for tests, built from LiteLLM's own fixture
// (test/fixtures/litellm/standard_logging_payload.json) with the fields its types give them
// (test/fixtures/litellm/README.md).
import { readFileSync } from 'node:fs';

const BASE = JSON.parse(readFileSync(new URL('../fixtures/litellm/standard_logging_payload.json', import.meta.url), 'utf8')) as Record<string, unknown>;

/** A marker placed in every prompt and response: it must never be found in the database. */
export const MESSAGE_MARKER = 'MARKER-litellm-7f3a9c-never-stored';

export const DEPLOYMENT_MAPPED = 'dep-openai-east-1';

type Payload = Record<string, unknown>;

/** The fixture payload, made attributable: a deployment, a user key, an id and endTime of its own. */
export function litellmPayload(id: string, overrides: Payload = {}, options: { messageBytes?: number } = {}): Payload {
  const base = structuredClone(BASE) as Payload;
  const text = options.messageBytes ? `${MESSAGE_MARKER} ${'lorem ipsum dolor sit amet '.repeat(Math.ceil(options.messageBytes / 27))}`.slice(0, options.messageBytes) : `${MESSAGE_MARKER} Hello, world!`;
  const response = base.response as Payload;
  (response.choices as Array<{ message: { content: string } }>)[0]!.message.content = `${MESSAGE_MARKER} hi`;
  response.id = id;
  return {
    ...base,
    id,
    model_id: DEPLOYMENT_MAPPED,
    endTime: '2026-11-30 10:00:00.123456',
    metadata: { ...(base.metadata as Payload), user_api_key_user_id: 'u_42', user_api_key_hash: 'hash-of-key-1' },
    messages: [
      { role: 'system', content: `${MESSAGE_MARKER} You are a helpful assistant.` },
      { role: 'user', content: text },
    ],
    response,
    ...overrides,
  };
}

/** `response.usage` replaced (LiteLLM's Usage) and the model re-keyed. */
export function withUsage(payload: Payload, model: string, usage: Payload, extra: Payload = {}): Payload {
  const response = { ...(payload.response as Payload), model, usage, ...extra };
  return {
    ...payload,
    model,
    response,
    model_map_information: { model_map_key: model, model_map_value: null },
    hidden_params: { ...(payload.hidden_params as Payload), litellm_model_name: model },
  };
}

/** An Anthropic call through LiteLLM: 100 fresh input, 2000 cache read, 3000 cache written (1000 of them 1h), 400 out, 2 web searches. */
export function anthropicCachePayload(id: string): Payload {
  return withUsage(litellmPayload(id, { custom_llm_provider: 'anthropic' }), 'claude-sonnet-4-5', {
    prompt_tokens: 5100,
    completion_tokens: 400,
    total_tokens: 5500,
    cache_creation_input_tokens: 3000,
    cache_read_input_tokens: 2000,
    prompt_tokens_details: {
      cached_tokens: 2000,
      cache_creation_tokens: 3000,
      cache_creation_token_details: { ephemeral_5m_input_tokens: 2000, ephemeral_1h_input_tokens: 1000 },
      web_search_requests: 2,
    },
    completion_tokens_details: null,
    server_tool_use: { web_search_requests: 2 },
  });
}

/** An OpenAI reasoning call with a cached prompt: 1200 in (1000 cached), 800 out (600 reasoning). */
export function openaiCachedReasoningPayload(id: string): Payload {
  return withUsage(litellmPayload(id), 'o4-mini', {
    prompt_tokens: 1200,
    completion_tokens: 800,
    total_tokens: 2000,
    prompt_tokens_details: { cached_tokens: 1000, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 600, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  }, { service_tier: 'default' });
}
