// The LiteLLM phase of npm run bench (--only litellm): POST /v1/integrations/litellm with batches
// of LiteLLM StandardLoggingPayloads carrying realistic messages and responses (a system prompt,
// a user question with pasted context, an assistant answer: about 6 KB a payload, as LiteLLM's
// generic_api logger sends them) against /v1/usage-events/batch with the same events, in the same
// run, alternating. Target (design.md): LiteLLM at least 0.8x the batch events/s.
import { benchContributorId, benchEvent, BENCH_CONTRIBUTORS, call, runBatchPostLoad, type AdminApi, type BatchLoadOptions, type LoadResult, type LoadTarget } from './bench-http.js';

export const LITELLM_BATCH_SIZE = 500;
export const LITELLM_TARGET_RATIO = 0.8;
export const benchDeploymentId = (i: number) => `bench-dep-${String(i).padStart(4, '0')}`;

/** Maps one LiteLLM deployment per bench contributor (as an operator would, through the API). */
export async function seedLitellmDeployments(api: AdminApi): Promise<void> {
  for (let i = 0; i < BENCH_CONTRIBUTORS; i += 1) {
    await call(api, 'PUT', `/v1/admin/integrations/litellm/deployments/${benchDeploymentId(i)}`, { contributor_id: benchContributorId(i) }, [200, 201]);
  }
}

const SYSTEM_PROMPT = JSON.stringify(
  'You are a careful assistant for a logistics company. Answer in the customer\'s language, cite the order number, never promise delivery dates the carrier has not confirmed, and escalate damaged-goods claims to a human agent. '.repeat(4),
);
const CONTEXT = JSON.stringify(
  'Order 48213-A shipped 2026-11-27 from Rotterdam via DHL Express, tracking JD014600006281234567, two parcels (12.4 kg, 3.1 kg), customs cleared 2026-11-28, last scan: "arrived at delivery facility, Lyon". The customer wrote twice about a missing invoice and asked whether the second parcel can be redirected to a pickup point. '.repeat(6),
);
const ANSWER = JSON.stringify(
  'Thank you for your patience. Your order 48213-A left Rotterdam on 27 November with DHL Express and cleared customs the next day; the latest scan shows it at the Lyon delivery facility. Both parcels travel together, so the second one can be redirected to a pickup point from the carrier\'s page once it is out for delivery. I have attached your invoice again and flagged your request for a human agent. '.repeat(3),
);

/** The n-th bench event as a StandardLoggingPayload (the fields LiteLLM's callback sends, with messages). */
function litellmPayloadJson(prefix: string, n: number): string {
  const e = benchEvent(n);
  const id = `${prefix}-${n}`;
  // Now, as LiteLLM stamps a call that just ended (the bench prices are in force from a day ago).
  const end = (Date.now() / 1000).toFixed(6);
  return (
    `{"id":"${id}","trace_id":"t-${id}","call_type":"acompletion","stream":true,"status":"success","custom_llm_provider":"openai",` +
    `"startTime":${end},"endTime":${end},"completionStartTime":${end},"response_time":0.81,"model":"${e.model}","model_id":"${benchDeploymentId(e.contributorIndex)}","model_group":"${e.model}","api_base":"https://api.example.com",` +
    `"metadata":{"user_api_key_hash":"hash-${e.userId}","user_api_key_alias":null,"user_api_key_team_id":null,"user_api_key_user_id":"${e.userId}","spend_logs_metadata":null,"requester_ip_address":null,"applied_guardrails":[]},` +
    `"cache_hit":null,"cache_key":null,"saved_cache_cost":0.0,"response_cost":0.0012345,"total_tokens":${e.prompt + e.completion},"prompt_tokens":${e.prompt},"completion_tokens":${e.completion},"request_tags":[],"end_user":"",` +
    `"messages":[{"role":"system","content":${SYSTEM_PROMPT}},{"role":"user","content":${CONTEXT}}],` +
    `"response":{"id":"${id}","created":1764496800,"model":"${e.model}","object":"chat.completion","choices":[{"finish_reason":"stop","index":0,"message":{"content":${ANSWER},"role":"assistant","tool_calls":null}}],` +
    `"usage":{"completion_tokens":${e.completion},"prompt_tokens":${e.prompt},"total_tokens":${e.prompt + e.completion},"completion_tokens_details":{"reasoning_tokens":0},"prompt_tokens_details":{"cached_tokens":${e.cached}}}},` +
    `"model_parameters":{"temperature":0.2,"stream":true},"hidden_params":{"model_id":"${benchDeploymentId(e.contributorIndex)}","litellm_model_name":"${e.model}","response_cost":0.0012345},` +
    `"model_map_information":{"model_map_key":"${e.model}","model_map_value":null},"error_str":null}`
  );
}

/** Bytes of one bench payload (printed with the figures). */
export const litellmPayloadBytes = () => Buffer.byteLength(litellmPayloadJson('size', 1));

/** POST /v1/integrations/litellm with `size` fresh payloads per request (json_array, LiteLLM's default). */
export function runLitellmLoad(options: BatchLoadOptions): Promise<LoadResult> {
  return runBatchPostLoad(options, '/v1/integrations/litellm', litellmPayloadJson, (payloads) => `[${payloads}]`);
}

/**
 * The n-th bench event as the LiteLLM mapping hands it to the usage module: same user, contributor,
 * model and usage, and the occurred_at and metadata (deployment id, LiteLLM's cost estimate) the
 * mapping adds, so the batch side validates and stores the same events as the push side.
 */
function sameEventJson(prefix: string, n: number): string {
  const e = benchEvent(n);
  return (
    `{"event_id":"${prefix}-${n}","user_id":"${e.userId}","contributor_id":"${benchContributorId(e.contributorIndex)}","model":"${e.model}","occurred_at":"${new Date().toISOString()}",` +
    `"metadata":{"litellm_model_id":"${benchDeploymentId(e.contributorIndex)}","litellm_response_cost_usd":"0.0012345"},` +
    `"usage":{"prompt_tokens":${e.prompt},"completion_tokens":${e.completion},"cached_tokens":${e.cached},"reasoning_tokens":0}}`
  );
}

/** The batch endpoint with the same events (same n: same user, contributor, model, usage, occurred_at and metadata). */
export function runSameEventsBatchLoad(options: { baseUrl: LoadTarget; key: string; connections: number; durationS: number; prefix: string }): Promise<LoadResult> {
  return runBatchPostLoad({ ...options, size: LITELLM_BATCH_SIZE }, '/v1/usage-events/batch', sameEventJson, (events) => `{"events":[${events}]}`);
}
