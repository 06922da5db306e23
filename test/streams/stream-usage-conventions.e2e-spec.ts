// A stream from each provider convention (test/fixtures/sse 40-51) bills the usage its provider
// reported, at the price of its model and variant, through POST /v1/usage-events/stream.
// Every amount below is derived by hand from the fixture's usage and the price set here.
import { readFileSync } from 'node:fs';
import { expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp, testAppForSuite } from '../support/test-app.js';

const fixture = (name: string) => readFileSync(new URL(`../fixtures/sse/${name}.sse`, import.meta.url));

/** Prices in USD per Mtok, in force from 2026-01-01. */
const PRICES: Array<Record<string, string>> = [
  { model: 'deepseek-reasoner', input_usd_per_mtok: '0.55', output_usd_per_mtok: '2.19', cached_input_usd_per_mtok: '0.14' },
  { model: 'grok-3-mini', input_usd_per_mtok: '0.3', output_usd_per_mtok: '0.5', cached_input_usd_per_mtok: '0.075' },
  { model: 'kimi-k2-0905-preview', input_usd_per_mtok: '0.6', output_usd_per_mtok: '2.5', cached_input_usd_per_mtok: '0.15' },
  { model: 'llama-3.3-70b-versatile', input_usd_per_mtok: '0.59', output_usd_per_mtok: '0.79' },
  { model: 'magistral-medium-2509', input_usd_per_mtok: '2', output_usd_per_mtok: '5' },
  { model: 'gpt-4.1-mini', input_usd_per_mtok: '0.4', output_usd_per_mtok: '1.6', cached_input_usd_per_mtok: '0.1' },
];

describe('POST /v1/usage-events/stream: provider usage conventions', () => {
  let t: TestApp;
  const post = (query: string, body: Buffer) =>
    t.admin(t.http.post(`/v1/usage-events/stream?user_id=u_42&contributor_id=c_std&${query}`)).set('Content-Type', 'text/event-stream').send(body);

  beforeAll(async () => {
    t = await startTestApp('stream_conventions');
    await seedBilling(t);
    for (const price of PRICES) {
      await t.admin(t.http.post('/v1/admin/prices')).send({ ...price, effective_from: '2026-01-01T00:00:00Z' }).expect(201);
    }
  });
  afterEach(async () => {
    await expectLedgerClean(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    // (128 uncached x 0.55 + 1408 cached x 0.14 + 820 x 2.19) / 1e6; reasoning is inside completion
    ['44-deepseek-prompt-cache-hit-tokens', 'deepseek-reasoner', { prompt_tokens: 1536, completion_tokens: 820, cached_tokens: 1408, reasoning_tokens: 610 }, '0.00206332'],
    // reasoning 420 outside xAI's completion 48: (36 x 0.3 + 16 x 0.075 + 468 x 0.5) / 1e6
    ['45-xai-reasoning-outside-completion-running-usage', 'grok-3-mini', { prompt_tokens: 52, completion_tokens: 468, cached_tokens: 16, reasoning_tokens: 420 }, '0.000246'],
    // usage inside choices[0]: (262 x 0.6 + 2048 x 0.15 + 96 x 2.5) / 1e6
    ['46-moonshot-usage-inside-choice', 'kimi-k2-0905-preview', { prompt_tokens: 2310, completion_tokens: 96, cached_tokens: 2048, reasoning_tokens: 0 }, '0.0007044'],
    // x_groq.usage: (184 x 0.59 + 62 x 0.79) / 1e6
    ['47-groq-x-groq-usage', 'llama-3.3-70b-versatile', { prompt_tokens: 184, completion_tokens: 62, cached_tokens: 0, reasoning_tokens: 0 }, '0.00015754'],
    // typed content parts: (21 x 2 + 54 x 5) / 1e6
    ['50-mistral-content-typed-parts', 'magistral-medium-2509', { prompt_tokens: 21, completion_tokens: 54, cached_tokens: 0, reasoning_tokens: 0 }, '0.000312'],
    // a renamed tool-call id: (310 x 0.4 + 41 x 1.6) / 1e6
    ['51-gateway-tool-call-id-changes-mid-call', 'gpt-4.1-mini', { prompt_tokens: 310, completion_tokens: 41, cached_tokens: 0, reasoning_tokens: 0 }, '0.0001896'],
  ])('%s bills its provider usage for %s', async (name, model, usage, officialUsd) => {
    const res = await post(`event_id=conv-${name.slice(0, 2)}`, fixture(name)).expect(201);
    expect(res.body).toMatchObject({ status: 'priced', model, usage, official_usd: officialUsd, stream: { usage_source: 'provider', error: null } });
    const stored = await t.admin(t.http.get(`/v1/usage-events/conv-${name.slice(0, 2)}`)).expect(200);
    expect(stored.body).toMatchObject({ official_usd: officialUsd, usage });
  });

  it('keeps a renamed tool call one call and reads the text parts of typed content', async () => {
    const calls = await post('event_id=conv-51b', fixture('51-gateway-tool-call-id-changes-mid-call')).expect(201);
    expect(calls.body.stream.tool_calls).toEqual([
      { index: 0, id: 'call_Rk1', name: 'search_docs', arguments_valid: true },
      { index: 1, id: 'call_Zq1', name: 'get_order', arguments_valid: true },
    ]);
    const text = await post('event_id=conv-50b', fixture('50-mistral-content-typed-parts')).expect(201);
    expect(text.body.stream.content_length).toBe('You have two apples.'.length);
  });
});

describe('OpenAPI: the stream endpoint documents its query parameters', () => {
  const t = testAppForSuite('stream_openapi');

  it('lists price_variant beside the other parameters', async () => {
    const doc = await t.http.get('/docs-json').expect(200);
    const params = (doc.body.paths['/v1/usage-events/stream'].post.parameters as Array<{ name: string; in: string; required: boolean }>).filter((p) => p.in === 'query');
    expect(Object.fromEntries(params.map((p) => [p.name, p.required]))).toEqual({
      event_id: true,
      user_id: true,
      contributor_id: true,
      model: false,
      hold_id: false,
      key_id: false,
      occurred_at: false,
      prompt_tokens: false,
      price_variant: false,
      format: false,
    });
  });
});

describe('POST /v1/usage-events/stream: every usage kind and the variant, priced (pricing.md)', () => {
  let t: TestApp;
  const post = (query: string, body: Buffer | string) =>
    t.admin(t.http.post(`/v1/usage-events/stream?user_id=u_42&contributor_id=c_std&${query}`)).set('Content-Type', 'text/event-stream').send(body);
  const price = (body: Record<string, unknown>) =>
    t.admin(t.http.post('/v1/admin/prices')).send({ effective_from: '2026-01-01T00:00:00Z', ...body }).expect(201);

  beforeAll(async () => {
    t = await startTestApp('stream_kinds');
    await seedBilling(t);
    await price({ model: 'gpt-4o-audio-preview-2025-06-03', input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', cached_input_usd_per_mtok: '1.25', input_audio_usd_per_mtok: '40', output_audio_usd_per_mtok: '80' });
    await price({ model: 'claude-sonnet-4-5-20250929', input_usd_per_mtok: '3', output_usd_per_mtok: '15', cached_input_usd_per_mtok: '0.3', cache_write_5m_usd_per_mtok: '3.75', cache_write_1h_usd_per_mtok: '6' });
    await price({ model: 'claude-opus-4-1-20250805', input_usd_per_mtok: '15', output_usd_per_mtok: '75', cached_input_usd_per_mtok: '1.5', cache_write_5m_usd_per_mtok: '18.75', cache_write_1h_usd_per_mtok: '30', web_search_usd_per_call: '0.01' });
    await price({ model: 'anthropic/claude-sonnet-4', input_usd_per_mtok: '3', output_usd_per_mtok: '15', cached_input_usd_per_mtok: '0.3', cache_write_5m_usd_per_mtok: '3.75' });
    // No input image price: image input bills at the input price (parent fallback).
    await price({ model: 'gemini-2.5-flash-image', input_usd_per_mtok: '0.3', output_usd_per_mtok: '2.5', output_image_usd_per_mtok: '30' });
    await price({ model: 'o3-2025-04-16', input_usd_per_mtok: '2', output_usd_per_mtok: '8', cached_input_usd_per_mtok: '0.5' });
    await price({ model: 'o3-2025-04-16', variant: 'flex', input_usd_per_mtok: '1', output_usd_per_mtok: '4', cached_input_usd_per_mtok: '0.25' });
  });
  afterEach(async () => {
    await expectLedgerClean(t);
  });
  afterAll(async () => {
    await t?.close();
  });

  it.each([
    // 186 text in x 2.5 + 1920 cached x 1.25 + 640 audio in x 40 + 32 text out x 10 + 380 audio out x 80 = 59,185 / 1e6
    ['40-openai-audio-in-out-cached-usage', { prompt_tokens: 2746, completion_tokens: 412, cached_tokens: 1920, prompt_audio_tokens: 640, completion_audio_tokens: 380 }, '0.059185'],
    // 1200 x 3 + 18000 cached x 0.3 + 1024 5m x 3.75 + 3072 1h x 6 + 350 x 15 = 36,522 / 1e6
    ['41-litellm-anthropic-cache-write-5m-1h', { prompt_tokens: 23296, completion_tokens: 350, cached_tokens: 18000, cache_write_5m_tokens: 1024, cache_write_1h_tokens: 3072 }, '0.036522'],
    // 86 x 15 + 12000 x 1.5 + 500 x 18.75 + 2000 x 30 + 640 x 75 = 136,665 / 1e6, + 3 searches x 0.01
    ['42-gateway-anthropic-native-usage-web-search', { prompt_tokens: 14586, completion_tokens: 640, cached_tokens: 12000, cache_write_5m_tokens: 500, cache_write_1h_tokens: 2000, web_search_calls: 3 }, '0.166665'],
    // 210 x 3 + 8192 x 0.3 + 2048 x 3.75 + 180 x 15 = 13,467.6 / 1e6
    ['43-openrouter-cache-write-tokens', { prompt_tokens: 10450, completion_tokens: 180, cached_tokens: 8192, cache_write_5m_tokens: 2048 }, '0.0134676'],
    // 14 text + 258 image in x 0.3 + 12 text out x 2.5 + 1290 image out x 30 = 38,811.6 / 1e6
    ['48-gemini-compat-image-in-and-out', { prompt_tokens: 272, completion_tokens: 1302, prompt_image_tokens: 258, completion_image_tokens: 1290 }, '0.0388116'],
  ])('%s bills every kind its provider reported at its own price', async (name, usage, officialUsd) => {
    const id = `kind-${name.slice(0, 2)}`;
    const res = await post(`event_id=${id}`, fixture(name)).expect(201);
    expect(res.body).toMatchObject({ status: 'priced', official_usd: officialUsd, stream: { usage_source: 'provider' } });
    const stored = await t.admin(t.http.get(`/v1/usage-events/${id}`)).expect(200);
    expect(stored.body).toMatchObject({ official_usd: officialUsd, usage, price_variant: 'standard' });
  });

  it('an image model streaming a 1.43 MB base64 image in one SSE event is billed on its provider usage (#24 item 7)', async () => {
    // OpenRouter's google/gemini-2.5-flash-image: the whole PNG in delta.images of one event.
    const image = { type: 'image_url', image_url: { url: `data:image/png;base64,${'iVBORw0KGgo'.repeat(130_000)}` } };
    const chunk = (delta: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id: 'gen-1', object: 'chat.completion.chunk', model: 'google/gemini-2.5-flash-image', provider: 'Google', choices: [{ index: 0, delta, finish_reason: null, ...extra }] })}\n\n`;
    const usage = { prompt_tokens: 7, completion_tokens: 1290, total_tokens: 1297, cost: 0.0387, prompt_tokens_details: { cached_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, image_tokens: 1290 } };
    const body = [
      chunk({ role: 'assistant', content: '' }),
      chunk({ role: 'assistant', content: '', images: [image] }),
      chunk({ role: 'assistant', content: '' }, { finish_reason: 'stop', native_finish_reason: 'STOP' }),
      `data: ${JSON.stringify({ id: 'gen-1', object: 'chat.completion.chunk', model: 'google/gemini-2.5-flash-image', choices: [], usage })}\n\n`,
      'data: [DONE]\n\n',
    ].join('');
    expect(Buffer.byteLength(body)).toBeGreaterThan(1_430_000);
    // 7 x 0.3 + 1290 image out x 30 = 38,702.1 / 1e6
    const res = await post('event_id=kind-image-big&model=gemini-2.5-flash-image', body).expect(201);
    expect(res.body).toMatchObject({ status: 'priced', official_usd: '0.0387021', stream: { usage_source: 'provider', error: null, finish_reason: 'stop' } });
    const stored = await t.admin(t.http.get('/v1/usage-events/kind-image-big')).expect(200);
    expect(stored.body.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 1290, completion_image_tokens: 1290 });
  });

  it('a flex stream bills at the flex price; a request names the most it may be billed at, never raised by the stream', async () => {
    // flex: 256 x 1 + 2944 x 0.25 + 1850 x 4 = 8,392 / 1e6; standard: 256 x 2 + 2944 x 0.5 + 1850 x 8 = 16,784 / 1e6
    const flex = await post('event_id=flex-1', fixture('49-openai-flex-service-tier')).expect(201);
    expect(flex.body).toMatchObject({ status: 'priced', official_usd: '0.008392' });
    expect((await t.admin(t.http.get('/v1/usage-events/flex-1')).expect(200)).body.price_variant).toBe('flex');
    // A cheaper tier than the one requested was served: it is billed (pricing.md "Where usage comes from").
    const standard = await post('event_id=flex-2&price_variant=standard', fixture('49-openai-flex-service-tier')).expect(201);
    expect(standard.body.official_usd).toBe('0.008392');
    // A tier dearer than the request: the request is billed and the event marked.
    const claimed = await post('event_id=flex-3&price_variant=batch', fixture('49-openai-flex-service-tier').toString('utf8').replaceAll('"service_tier":"flex"', '"service_tier":"priority"')).expect(202);
    expect(claimed.body.status).toBe('unpriced');
    expect((await t.admin(t.http.get('/v1/usage-events/flex-3')).expect(200)).body).toMatchObject({ price_variant: 'batch', stream: { variant_claimed: true, claimed_variant: 'priority' } });
  });

  it('refuses a provider usage whose parts exceed the prompt with a 400 naming the field, and bills nothing', async () => {
    const before = await expectLedgerClean(t);
    const body = 'data: {"model":"anthropic/claude-sonnet-4","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}],' +
      '"usage":{"prompt_tokens":100,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":60,"cache_write_tokens":50}}}\n\ndata: [DONE]\n\n';
    const res = await post('event_id=bad-kinds', body).expect(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field).join(' ')).toMatch(/^usage\./);
    const badVariant = await post('event_id=bad-variant&price_variant=Not%20A%20Variant', fixture('49-openai-flex-service-tier')).expect(400);
    expect(badVariant.body.error.details.map((d: { field: string }) => d.field)).toEqual(['price_variant']);
    expect((await expectLedgerClean(t)).journal_entries).toBe(before.journal_entries);
  });
});
