// A streamed and a non-streamed call of each wire format (OpenAI Responses, Anthropic Messages,
// Gemini; chat's own suites are beside this one) billed through the real app: content, tool calls,
// finish reason, every usage kind and the exact charge. Fixtures: test/fixtures/formats (real
// recorded streams; constructed cases are marked in its README). Amounts derived by hand from the
// fixture's usage and the prices set here.
import { readFileSync } from 'node:fs';
import type { UsageAuditSample } from '../../src/queue/jobs.js';
import { UsageAuditProducer } from '../../src/modules/usage-audit/usage-audit.producer.js';
import { expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const file = (name: string) => readFileSync(new URL(`../fixtures/formats/${name}`, import.meta.url));
const stream = (name: string) => file(`${name}.sse`);
const body = (name: string) => JSON.parse(file(`${name}.json`).toString('utf8')) as Record<string, unknown>;

/** USD per Mtok (fees per call), in force from 2026-01-01. */
const PRICES: Array<Record<string, string>> = [
  { model: 'gpt-5-mini-2025-08-07', input_usd_per_mtok: '0.25', output_usd_per_mtok: '2', cached_input_usd_per_mtok: '0.025', web_search_usd_per_call: '0.01' },
  { model: 'gpt-5.4-2026-03-05', input_usd_per_mtok: '2.5', output_usd_per_mtok: '15', cached_input_usd_per_mtok: '0.25' },
  { model: 'claude-sonnet-4-20250514', input_usd_per_mtok: '3', output_usd_per_mtok: '15', cached_input_usd_per_mtok: '0.3', cache_write_5m_usd_per_mtok: '3.75', web_search_usd_per_call: '0.01' },
  { model: 'claude-sonnet-5', input_usd_per_mtok: '3', output_usd_per_mtok: '15', cached_input_usd_per_mtok: '0.3', cache_write_5m_usd_per_mtok: '3.75', cache_write_1h_usd_per_mtok: '6' },
  { model: 'claude-sonnet-4-5-20250929', input_usd_per_mtok: '3', output_usd_per_mtok: '15', cached_input_usd_per_mtok: '0.3' },
  { model: 'claude-haiku-4-5-20251001', input_usd_per_mtok: '1', output_usd_per_mtok: '5', cached_input_usd_per_mtok: '0.1' },
  // Gemini 2.x grounding: a fee per grounded request, however many queries it ran (pricing.md).
  { model: 'gemini-2.5-flash', input_usd_per_mtok: '0.3', output_usd_per_mtok: '2.5', web_search_usd_per_call: '0.035', web_search_billing: 'per_request' },
  { model: 'gemini-3-pro-preview', input_usd_per_mtok: '2', output_usd_per_mtok: '12' },
  { model: 'gemini-3-flash-preview', input_usd_per_mtok: '0.5', output_usd_per_mtok: '3' },
  { model: 'gemini-3.1-flash-image', input_usd_per_mtok: '0.5', output_usd_per_mtok: '3', output_image_usd_per_mtok: '30' },
  { model: 'gpt-4o-2024-08-06', input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', cached_input_usd_per_mtok: '1.25' },
];

const STREAM_LIMIT_BYTES = 4 * 1024 * 1024;
/** The image response with its inline base64 data grown to about `bytes` (a real image answer's size). */
const imageResponseOf = (bytes: number) => {
  const json = body('gemini-image-response') as { candidates: Array<{ content: { parts: Array<{ inlineData: { data: string } }> } }> };
  json.candidates[0]!.content.parts[0]!.inlineData.data = '/9j/4AAQ'.repeat(Math.ceil(bytes / 8));
  return json;
};

describe('every wire format through POST /v1/usage-events/stream and /response', () => {
  let t: TestApp;
  const postStream = (query: string, sse: Buffer | string) =>
    t.admin(t.http.post(`/v1/usage-events/stream?user_id=u_42&contributor_id=c_std&${query}`)).set('Content-Type', 'text/event-stream').send(sse);
  const postResponse = (query: string, json: unknown) =>
    t.admin(t.http.post(`/v1/usage-events/response?user_id=u_42&contributor_id=c_std&${query}`)).set('Content-Type', 'application/json').send(JSON.stringify(json));
  const stored = async (eventId: string) => (await t.admin(t.http.get(`/v1/usage-events/${encodeURIComponent(eventId)}`)).expect(200)).body;

  beforeAll(async () => {
    // A stream limit above the 2 MiB JSON limit and small enough to cross here.
    t = await startTestApp('wire_formats', { STREAM_BODY_LIMIT_BYTES: String(STREAM_LIMIT_BYTES) });
    await seedBilling(t);
    for (const price of PRICES) await t.admin(t.http.post('/v1/admin/prices')).send({ ...price, effective_from: '2026-01-01T00:00:00Z' }).expect(201);
  });
  afterEach(async () => {
    await expectLedgerClean(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('OpenAI Responses', () => {
    it('content, 6 web searches, reasoning and cache reads of response.completed, billed exactly (the call of issue #33)', async () => {
      const res = await postStream('event_id=r-web', stream('responses-web-search')).expect(201);
      // (27,361 x 0.25 + 3,712 x 0.025 + 4,416 x 2) / 1e6 + 6 x 0.01
      expect(res.body).toMatchObject({
        status: 'priced', model: 'gpt-5-mini-2025-08-07', official_usd: '0.07576505', charge_usd: '0.098494565',
        stream: { format: 'openai-responses', finish_reason: 'completed', content_length: 3645, tool_calls: [], usage_source: 'provider', truncated: false, error: null },
      });
      expect((await stored('r-web')).usage).toMatchObject({ prompt_tokens: 31073, completion_tokens: 4416, cached_tokens: 3712, reasoning_tokens: 3712, web_search_calls: 6 });
    });

    it('a function call with its arguments, the format given, the model from the query', async () => {
      const res = await postStream('event_id=r-fn&format=openai-responses&model=gpt-5.4-2026-03-05', stream('responses-function-call')).expect(201);
      // (467 x 2.5 + 26 x 15) / 1e6
      expect(res.body).toMatchObject({
        official_usd: '0.0015575', charge_usd: '0.00202475',
        stream: { format: 'openai-responses', finish_reason: 'completed', tool_calls: [{ index: 0, id: 'call_Q7pq6EfVGRnauPLWSSYBGJ1l', name: 'get_weather', arguments_valid: true }] },
      });
    });

    it('response.incomplete: billed on its usage, finish "incomplete", not truncated', async () => {
      const res = await postStream('event_id=r-inc', stream('responses-incomplete')).expect(201);
      expect(res.body).toMatchObject({ official_usd: '0.07576505', stream: { finish_reason: 'incomplete', truncated: false, usage_source: 'provider' } });
    });

    it('an error event then response.failed: the terminal usage billed exactly, finish "failed", the error recorded', async () => {
      const res = await postStream('event_id=r-failed&model=gpt-5-mini-2025-08-07', stream('responses-error-failed-usage')).expect(201);
      // (12 x 0.25 + 7 x 2) / 1e6
      expect(res.body).toMatchObject({
        official_usd: '0.000017', charge_usd: '0.0000221',
        stream: { finish_reason: 'failed', truncated: false, usage_source: 'provider', content_length: 14, error: { code: 'server_error' } },
      });
    });

    it('a stream cut off before its terminal event: truncated, completion estimated, prompt from the query', async () => {
      const missing = await postStream('event_id=r-cut', stream('responses-cut-off')).expect(400);
      expect(missing.body.error.details[0].field).toBe('prompt_tokens');
      const res = await postStream('event_id=r-cut&prompt_tokens=31073', stream('responses-cut-off')).expect(201);
      expect(res.body).toMatchObject({ model: 'gpt-5-mini-2025-08-07', stream: { truncated: true, finish_reason: null, usage_source: 'estimated', content_length: 3645 } });
      expect(res.body.usage.completion_tokens).toBeGreaterThan(500);
    });

    it('the non-streamed response object: 3 searches, usage, content', async () => {
      const res = await postResponse('event_id=r-body', body('responses-web-search-response')).expect(201);
      // (15,969 x 0.25 + 3,712 x 0.025 + 3,773 x 2) / 1e6 + 3 x 0.01
      expect(res.body).toMatchObject({ official_usd: '0.04163105', charge_usd: '0.054120365', stream: { format: 'openai-responses', finish_reason: 'completed', truncated: false } });
      expect((await stored('r-body')).usage).toMatchObject({ prompt_tokens: 19681, completion_tokens: 3773, web_search_calls: 3 });
    });
  });

  describe('Anthropic Messages', () => {
    it('server_tool_use web search: not content nor a client call, 1 search, usage of the last message_delta', async () => {
      const res = await postStream('event_id=a-web', stream('anthropic-web-search-tool')).expect(201);
      // (15,665 x 3 + 795 x 15) / 1e6 + 1 x 0.01
      expect(res.body).toMatchObject({ official_usd: '0.06892', charge_usd: '0.089596', stream: { format: 'anthropic-messages', finish_reason: 'end_turn', tool_calls: [], truncated: false } });
      expect((await stored('a-web')).usage).toMatchObject({ prompt_tokens: 15665, completion_tokens: 795, web_search_calls: 1 });
    });

    it('several cumulative message_delta usages: the last wins, never summed', async () => {
      const res = await postStream('event_id=a-multi', stream('anthropic-several-message-delta')).expect(201);
      expect(res.body.official_usd).toBe('0.06892');
    });

    it('cache reads and writes: prompt = input + reads + writes, the write total of message_delta as 5m', async () => {
      const res = await postStream('event_id=a-cache', stream('anthropic-code-execution-20260120-prompt-cache')).expect(201);
      // (6 x 3 + 6,289 x 0.3 + 3,337 x 3.75 + 198 x 15) / 1e6
      expect(res.body).toMatchObject({ official_usd: '0.01738845', charge_usd: '0.022604985' });
      expect((await stored('a-cache')).usage).toMatchObject({ prompt_tokens: 9632, cached_tokens: 6289, cache_write_5m_tokens: 3337, completion_tokens: 198 });
    });

    it('a tool_use block with its input_json_delta arguments', async () => {
      const res = await postStream('event_id=a-tool', stream('anthropic-json-tool')).expect(201);
      // (849 x 1 + 47 x 5) / 1e6
      expect(res.body).toMatchObject({ official_usd: '0.001084', charge_usd: '0.0014092', stream: { finish_reason: 'tool_use', content_length: 0, tool_calls: [{ index: 0, id: 'toolu_01KFbKqPYSuAKujiL6mTfzYA', name: 'json', arguments_valid: true }] } });
    });

    it('an error event: the usage so far billed, truncated, the error recorded', async () => {
      const res = await postStream('event_id=a-err', stream('anthropic-error-event')).expect(201);
      // (12 x 3 + 1 x 15) / 1e6
      expect(res.body).toMatchObject({ official_usd: '0.000051', charge_usd: '0.0000663', stream: { truncated: true, finish_reason: null, usage_source: 'provider', error: { code: 'overloaded_error', message: 'Overloaded' } } });
    });

    it('thinking is not content', async () => {
      const res = await postStream('event_id=a-think', stream('anthropic-clear-thinking')).expect(201);
      expect(res.body.stream).toMatchObject({ content_length: [...'925 ÷ 5 = 185'].length, finish_reason: 'end_turn' });
    });

    it('the non-streamed message', async () => {
      const res = await postResponse('event_id=a-body', body('anthropic-tool-response')).expect(201);
      // (1,151 x 1 + 87 x 5) / 1e6
      expect(res.body).toMatchObject({ official_usd: '0.001586', charge_usd: '0.0020618', stream: { format: 'anthropic-messages', finish_reason: 'tool_use', tool_calls: [{ index: 0, name: 'json', arguments_valid: true }] } });
    });
  });

  describe('Gemini', () => {
    it('grounding: tool-use prompt tokens in the prompt, thoughts in the completion, one grounded request fee', async () => {
      const res = await postStream('event_id=g-search', stream('gemini-google-search-grounding')).expect(201);
      // (325 x 0.3 + 370 x 2.5) / 1e6 + 0.035 (per grounded request, 2 queries)
      expect(res.body).toMatchObject({ official_usd: '0.0360225', charge_usd: '0.04682925', stream: { format: 'gemini', finish_reason: 'STOP', content_length: 47, truncated: false } });
      expect((await stored('g-search')).usage).toMatchObject({ prompt_tokens: 325, completion_tokens: 370, reasoning_tokens: 333, web_search_calls: 2 });
    });

    it('thinking: thoughtsTokenCount added to the completion and as reasoning', async () => {
      const res = await postStream('event_id=g-think', stream('gemini-reasoning')).expect(201);
      // (9 x 2 + 285 x 12) / 1e6
      expect(res.body).toMatchObject({ official_usd: '0.003438', charge_usd: '0.0044694' });
      expect((await stored('g-think')).usage).toMatchObject({ prompt_tokens: 9, completion_tokens: 285, reasoning_tokens: 256 });
    });

    it('thought parts are not content; functionCall parts are calls, in order', async () => {
      const res = await postStream('event_id=g-thought', stream('gemini-stream-no-args-tool-call')).expect(201);
      expect(res.body.stream).toMatchObject({ content_length: 0, finish_reason: 'STOP' });
      expect(res.body.stream.tool_calls.map((c: { index: number; name: string }) => [c.index, c.name])).toEqual([[0, 'read_theme'], [1, 'read_screen'], [2, 'read_screen'], [3, 'read_screen']]);
      const call = await postStream('event_id=g-call', stream('gemini-tool-call')).expect(201);
      // (29 x 2 + 60 x 12) / 1e6
      expect(call.body).toMatchObject({ official_usd: '0.000778', stream: { tool_calls: [{ index: 0, id: '', name: 'weather', arguments_valid: true }] } });
    });

    it('the non-streamed response: image output tokens by modality', async () => {
      const res = await postResponse('event_id=g-image', body('gemini-image-response')).expect(201);
      // (10 x 0.5 + 272 x 3 + 1,120 x 30) / 1e6
      expect(res.body).toMatchObject({ official_usd: '0.034421', charge_usd: '0.0447473', stream: { format: 'gemini', finish_reason: 'STOP' } });
      expect((await stored('g-image')).usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 1392, completion_image_tokens: 1120 });
    });

    it('a response body above the 2 MiB JSON limit (inline image data) is read up to the stream limit and billed exactly', async () => {
      const large = JSON.stringify(imageResponseOf(3 * 1024 * 1024));
      expect(large.length).toBeGreaterThan(3 * 1024 * 1024);
      const res = await postResponse('event_id=g-image-large', JSON.parse(large)).expect(201);
      expect(res.body).toMatchObject({ official_usd: '0.034421', charge_usd: '0.0447473', stream: { format: 'gemini', finish_reason: 'STOP' } });
    });

    it('a response body over the stream limit: 413 payload_too_large, nothing written', async () => {
      const before = await expectLedgerClean(t);
      const res = await postResponse('event_id=g-image-too-large', imageResponseOf(STREAM_LIMIT_BYTES + 1024)).expect(413);
      expect(res.body.error.code).toBe('payload_too_large');
      await t.admin(t.http.get('/v1/usage-events/g-image-too-large')).expect(404);
      // Other JSON routes keep BODY_LIMIT_BYTES (2 MiB).
      const other = await t.admin(t.http.post('/v1/usage-events')).set('Content-Type', 'application/json').send(JSON.stringify({ pad: 'x'.repeat(3 * 1024 * 1024) })).expect(413);
      expect(other.body.error.code).toBe('payload_too_large');
      expect((await expectLedgerClean(t)).journal_entries).toBe(before.journal_entries);
    });
  });

  it('a chat.completion body through /response', async () => {
    const res = await postResponse('event_id=c-body', {
      id: 'chatcmpl-1', object: 'chat.completion', model: 'gpt-4o-2024-08-06',
      choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'Hello there.' } }],
      usage: { prompt_tokens: 80, completion_tokens: 30, total_tokens: 110, prompt_tokens_details: { cached_tokens: 64 } },
    }).expect(201);
    // (16 x 2.5 + 64 x 1.25 + 30 x 10) / 1e6
    expect(res.body).toMatchObject({ official_usd: '0.00042', charge_usd: '0.000546', stream: { format: 'openai-chat', finish_reason: 'stop', content_length: 12 } });
  });

  describe('a variant dearer than the one requested is never billed', () => {
    it('Anthropic usage.service_tier "priority" on a standard request: standard billed, marked variant_claimed', async () => {
      const priority = stream('anthropic-text').toString('utf8').replace('"service_tier":"standard"', '"service_tier":"priority"');
      const res = await postStream('event_id=v-anthropic', priority).expect(201);
      // (12 x 3 + 30 x 15) / 1e6 at the standard price
      expect(res.body).toMatchObject({ status: 'priced', official_usd: '0.000486', stream: { variant_claimed: true, claimed_variant: 'priority' } });
      expect(await stored('v-anthropic')).toMatchObject({ price_variant: 'standard', stream: { variant_claimed: true, claimed_variant: 'priority' } });
    });

    it('Responses response.service_tier "priority" on a flex request: flex billed (unpriced here, never at another variant), marked', async () => {
      const priority = stream('responses-function-call').toString('utf8').replace('"service_tier":"default","store"', '"service_tier":"priority","store"');
      const res = await postStream('event_id=v-responses&price_variant=flex', priority).expect(202);
      expect(await stored('v-responses')).toMatchObject({ status: 'unpriced', price_variant: 'flex', stream: { variant_claimed: true, claimed_variant: 'priority' } });
      expect(res.body.status).toBe('unpriced');
    });

    it('the tier requested is not a claim', async () => {
      const res = await postStream('event_id=v-same', stream('anthropic-text')).expect(201);
      expect(res.body.stream).not.toHaveProperty('variant_claimed');
    });
  });

  it('every format hands its reassembled output to the usage audit (content, thinking, tool calls; hidden reasoning left out)', async () => {
    const producer = t.app.get(UsageAuditProducer);
    const offered: UsageAuditSample[] = [];
    const original = producer.offer.bind(producer);
    producer.offer = (sample: UsageAuditSample) => {
      offered.push(sample);
      return original(sample);
    };
    try {
      await postStream('event_id=audit-r', stream('responses-function-call')).expect(201);
      await postStream('event_id=audit-a', stream('anthropic-clear-thinking')).expect(201);
      await postStream('event_id=audit-g', stream('gemini-reasoning')).expect(201);
      await postResponse('event_id=audit-body', body('anthropic-tool-response')).expect(201);
    } finally {
      producer.offer = original;
    }
    const byId = Object.fromEntries(offered.map((s) => [s.event_id, s]));
    expect(byId['audit-r']).toMatchObject({ reported_tokens: 26, texts: ['get_weather', '{"location":"San Francisco, CA","unit":"fahrenheit"}'] });
    expect(byId['audit-a']!.texts).toEqual(['925 ÷ 5 = 185', expect.stringContaining('The previous result was 925.')]);
    // Gemini's 256 thought tokens are not streamed as text: left out of the reported side.
    expect(byId['audit-g']).toMatchObject({ reported_tokens: 29, model: 'gemini-3-pro-preview' });
    expect(byId['audit-body']!.texts[0]).toBe('json');
  });

  it('a bad body or format is a 400 and writes nothing', async () => {
    const before = await expectLedgerClean(t);
    const unknown = await postStream('event_id=bad-1&format=cohere', stream('anthropic-text')).expect(400);
    expect(unknown.body.error.code).toBe('unsupported_stream_format');
    const contradicting = await postStream('event_id=bad-2&format=gemini', stream('anthropic-text')).expect(400);
    expect(contradicting.body.error).toMatchObject({ code: 'unsupported_stream_format', details: [{ field: '(body)' }] });
    const none = await postStream('event_id=bad-3&prompt_tokens=5', 'data: {"id":"x","text":"hi"}\n\n').expect(400);
    expect(none.body.error.code).toBe('unsupported_stream_format');
    const noBody = await postResponse('event_id=bad-4', { id: 'x', text: 'hi' }).expect(400);
    expect(noBody.body.error.code).toBe('unsupported_response_format');
    const otherFormat = await postResponse('event_id=bad-5&format=gemini', body('anthropic-tool-response')).expect(400);
    expect(otherFormat.body.error.code).toBe('unsupported_response_format');
    const badFormat = await postResponse('event_id=bad-6&format=x', body('anthropic-tool-response')).expect(400);
    expect(badFormat.body.error.code).toBe('unsupported_response_format');
    await t.admin(t.http.post('/v1/usage-events/response?event_id=bad-7&user_id=u_42&contributor_id=c_std')).set('Content-Type', 'text/plain').send('hi').expect(415);
    for (const id of ['bad-1', 'bad-2', 'bad-3', 'bad-4', 'bad-5', 'bad-6', 'bad-7']) await t.admin(t.http.get(`/v1/usage-events/${id}`)).expect(404);
    expect((await expectLedgerClean(t)).journal_entries).toBe(before.journal_entries);
  });
});
