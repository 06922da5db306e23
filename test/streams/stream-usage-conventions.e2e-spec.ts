// A stream from each provider convention (test/fixtures/sse 40-51) bills the usage its provider
// reported, at the price of its model and variant, through POST /v1/usage-events/stream.
// Every amount below is derived by hand from the fixture's usage and the price set here.
import { readFileSync } from 'node:fs';
import { expectLedgerClean, seedBilling } from '../support/billing-fixtures.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

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
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('stream_openapi');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists price_variant beside the other parameters', async () => {
    const doc = await t.http.get('/docs-json').expect(200);
    const params = (doc.body.paths['/v1/usage-events/stream'].post.parameters as Array<{ name: string; in: string; required: boolean }>).filter((p) => p.in === 'query');
    expect(Object.fromEntries(params.map((p) => [p.name, p.required]))).toEqual({
      event_id: true,
      user_id: true,
      contributor_id: true,
      model: false,
      hold_id: false,
      occurred_at: false,
      prompt_tokens: false,
      price_variant: false,
    });
  });
});
