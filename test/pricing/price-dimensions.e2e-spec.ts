import { billingSuiteWithGateway, expectLedgerClean } from '../support/billing-fixtures.js';
import { LONG_CACHED_USAGE, usageEvent, pricedRows, type PricedRow } from './support/priced-requests.js';

// Every price dimension of docs/pricing.md through the API: POST /v1/admin/prices, then usage
// events billed to the atto as the provider's price list says (amounts derived by hand in
// src/modules/pricing/pricing-math.spec.ts and in the comments here).

const CLAUDE = 'anthropic/claude-sonnet-4-5';
const claudeTier = { above_input_tokens: 200000, input_usd_per_mtok: '6', output_usd_per_mtok: '22.5', cached_input_usd_per_mtok: '0.6', cache_write_5m_usd_per_mtok: '7.5', cache_write_1h_usd_per_mtok: '12' };
const claude = {
  model: CLAUDE,
  effective_from: '2026-01-01T00:00:00Z',
  input_usd_per_mtok: '3',
  output_usd_per_mtok: '15',
  cached_input_usd_per_mtok: '0.3',
  cache_write_5m_usd_per_mtok: '3.75',
  cache_write_1h_usd_per_mtok: '6',
  tiers: [claudeTier],
  web_search_usd_per_call: '0.01',
};
const claudeUs = {
  model: CLAUDE,
  variant: 'us',
  effective_from: '2026-01-01T00:00:00Z',
  input_usd_per_mtok: '3.3',
  output_usd_per_mtok: '16.5',
  cached_input_usd_per_mtok: '0.33',
  cache_write_5m_usd_per_mtok: '4.125',
  cache_write_1h_usd_per_mtok: '6.6',
  tiers: [{ above_input_tokens: 200000, input_usd_per_mtok: '6.6', output_usd_per_mtok: '24.75', cached_input_usd_per_mtok: '0.66', cache_write_5m_usd_per_mtok: '8.25', cache_write_1h_usd_per_mtok: '13.2' }],
};
const prices = [
  claude,
  claudeUs,
  { model: 'gemini/gemini-2.5-pro', effective_from: '2026-01-01T00:00:00Z', input_usd_per_mtok: '1.25', output_usd_per_mtok: '10', cached_input_usd_per_mtok: '0.125', tiers: [{ above_input_tokens: 200000, input_usd_per_mtok: '2.5', output_usd_per_mtok: '15', cached_input_usd_per_mtok: '0.25' }] },
  { model: 'openai/gpt-4o-audio-preview', effective_from: '2026-01-01T00:00:00Z', input_usd_per_mtok: '2.5', output_usd_per_mtok: '10', input_audio_usd_per_mtok: '40', output_audio_usd_per_mtok: '80' },
  { model: 'gemini/gemini-2.5-flash-image', effective_from: '2026-01-01T00:00:00Z', input_usd_per_mtok: '0.3', output_usd_per_mtok: '2.5', output_image_usd_per_mtok: '30' },
  ...(['low', 'medium', 'high'] as const).map((variant, i) => ({ model: 'perplexity/sonar-pro', variant, effective_from: '2026-01-01T00:00:00Z', input_usd_per_mtok: '3', output_usd_per_mtok: '15', request_usd: ['0.006', '0.01', '0.014'][i] })),
  { model: 'openai/gpt-5', effective_from: '2026-01-01T00:00:00Z', input_usd_per_mtok: '1.25', output_usd_per_mtok: '10', cached_input_usd_per_mtok: '0.125' },
  { model: 'openai/gpt-5', variant: 'flex', effective_from: '2026-01-01T00:00:00Z', input_usd_per_mtok: '0.625', output_usd_per_mtok: '5', cached_input_usd_per_mtok: '0.0625' },
  { model: 'dashscope/qwen3-max', effective_from: '2026-01-01T00:00:00Z', input_usd_per_mtok: '1.2', output_usd_per_mtok: '6', tiers: [{ above_input_tokens: 128000, input_usd_per_mtok: '3', output_usd_per_mtok: '15' }, { above_input_tokens: 32000, input_usd_per_mtok: '2.4', output_usd_per_mtok: '12' }] },
];

describe('price dimensions: admin prices and usage events', () => {
  const { t, gw } = billingSuiteWithGateway('price-dimensions', { userCreditUsd: '1000' });

  beforeAll(async () => {
    for (const body of prices) await t.admin(t.http.post('/v1/admin/prices')).send(body).expect(201);
  });
  afterEach(async () => {
    await expectLedgerClean(t);
  });

  it('stores every field exactly and returns it (tiers ascending), a replay is 200', async () => {
    const res = await t.admin(t.http.get('/v1/admin/prices').query({ model: CLAUDE })).expect(200);
    expect(res.body.data.map((p: { variant: string }) => p.variant)).toEqual(['standard', 'us']);
    expect(res.body.data[0]).toMatchObject({
      model: CLAUDE,
      variant: 'standard',
      input_usd_per_mtok: '3',
      cache_write_5m_usd_per_mtok: '3.75',
      cache_write_1h_usd_per_mtok: '6',
      input_audio_usd_per_mtok: null,
      tiers: [{ ...claudeTier, inclusive: false }],
      web_search_usd_per_call: '0.01',
      web_search_billing: 'per_call',
      request_usd: null,
    });
    const qwen = await t.admin(t.http.get('/v1/admin/prices').query({ model: 'dashscope/qwen3-max' })).expect(200);
    expect(qwen.body.data[0].tiers.map((tier: { above_input_tokens: number }) => tier.above_input_tokens)).toEqual([32000, 128000]);
    await t.admin(t.http.post('/v1/admin/prices')).send(claude).expect(200);
    await t.admin(t.http.post('/v1/admin/prices')).send({ ...claude, tiers: [{ ...claudeTier, output_usd_per_mtok: '22.6' }] }).expect(409);
  });

  it('lists the current version per (model, variant)', async () => {
    const res = await t.admin(t.http.get('/v1/admin/prices')).expect(200);
    const keys = res.body.data.map((p: { model: string; variant: string }) => `${p.model}:${p.variant}`);
    expect(keys).toEqual(expect.arrayContaining(['perplexity/sonar-pro:low', 'perplexity/sonar-pro:medium', 'perplexity/sonar-pro:high', 'openai/gpt-5:flex', 'openai/gpt-5:standard', `${CLAUDE}:us`]));
  });

  it.each([
    [{ cache_write_5m_usd_per_mtok: '3.7500001' }, 'cache_write_5m_usd_per_mtok', /at most 6 decimals/],
    [{ reasoning_usd_per_mtok: 3 }, 'reasoning_usd_per_mtok', /decimal string/],
    [{ request_usd: '0.0000000000001' }, 'request_usd', /at most 12 decimals/],
    [{ web_search_usd_per_call: '-0.01' }, 'web_search_usd_per_call', /negative/],
    [{ web_search_billing: 'per_request' }, 'web_search_billing', /web_search_usd_per_call/],
    [{ variant: 'US' }, 'variant', /lowercase/],
    [{ variant: 'x'.repeat(65) }, 'variant', /1-64/],
    [{ tiers: [{ above_input_tokens: 1000 }] }, 'tiers.0', /at least one/],
    [{ tiers: [{ above_input_tokens: -1, input_usd_per_mtok: '1' }] }, 'tiers.0.above_input_tokens', /.+/],
    [{ tiers: [{ above_input_tokens: 10, input_usd_per_mtok: '1.0000001' }] }, 'tiers.0.input_usd_per_mtok', /at most 6 decimals/],
    [{ tiers: [{ above_input_tokens: 10, input_usd_per_mtok: '1' }, { above_input_tokens: 10, output_usd_per_mtok: '1' }] }, 'tiers.1.above_input_tokens', /same/],
    [{ tiers: [{ above_input_tokens: 10, input_usd_per_mtok: '1', web_search_usd_per_call: '1' }] }, 'tiers.0.web_search_usd_per_call', /unknown field/],
  ])('refuses %j with 400 naming the field, storing nothing', async (patch, field, message) => {
    const res = await t.admin(t.http.post('/v1/admin/prices')).send({ model: 'acme/bad', input_usd_per_mtok: '1', output_usd_per_mtok: '2', ...patch }).expect(400);
    const issue = (res.body.error.details as { field: string; message: string }[]).find((d) => d.field === field);
    expect(issue?.message).toMatch(message);
    const listed = await t.admin(t.http.get('/v1/admin/prices').query({ model: 'acme/bad' })).expect(200);
    expect(listed.body.data).toEqual([]);
  });

  it.each<PricedRow>([
    ...pricedRows({
      'claude-long': CLAUDE,
      'claude-search': CLAUDE,
      audio: 'openai/gpt-4o-audio-preview',
      image: 'gemini/gemini-2.5-flash-image',
      'sonar-high': 'perplexity/sonar-pro',
      'gpt5-flex': 'openai/gpt-5',
      'qwen-mid': 'dashscope/qwen3-max',
    }),
    // Claude US-only inference: the same request as claude-long at the `us` variant, 1.095 x 1.1.
    ['claude-us', CLAUDE, LONG_CACHED_USAGE, { price_variant: 'us' }, '1.2045'],
    // Gemini 2.5 Pro above 200k: 250,000 x 2.5 + 50,000 x 0.25 + 10,000 x 15.
    ['gemini-long', 'gemini/gemini-2.5-pro', { prompt_tokens: 300000, cached_tokens: 50000, completion_tokens: 10000, reasoning_tokens: 8000 }, {}, '0.7875'],
  ])('bills %s exactly and shows every count, the variant and the price version', async (id, model, usage, extra, officialUsd) => {
    const res = await gw(t.http.post('/v1/usage-events')).send(usageEvent(id, model, usage, extra)).expect(201);
    expect(res.body.status).toBe('priced');
    expect(res.body.official_usd).toBe(officialUsd);
    const detail = await gw(t.http.get(`/v1/usage-events/${id}`)).expect(200);
    expect(detail.body).toMatchObject({ price_variant: (extra as { price_variant?: string }).price_variant ?? 'standard', price_id: res.body.price_id, official_usd: officialUsd });
    expect(detail.body.usage).toEqual({
      cached_tokens: 0, reasoning_tokens: 0, cache_write_5m_tokens: 0, cache_write_1h_tokens: 0, prompt_audio_tokens: 0, cached_audio_tokens: 0,
      prompt_image_tokens: 0, completion_audio_tokens: 0, completion_image_tokens: 0, web_search_calls: 0, ...usage,
    });
  });

  it('refuses a usage that breaks containment with 400 naming the field', async () => {
    const res = await gw(t.http.post('/v1/usage-events'))
      .send(usageEvent('bad-containment', CLAUDE, { prompt_tokens: 100, cached_tokens: 60, cache_write_5m_tokens: 50, completion_tokens: 1 }))
      .expect(400);
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain('usage.cache_write_5m_tokens');
    await gw(t.http.get('/v1/usage-events/bad-containment')).expect(404);
  });

  it('is unpriced for a variant without a version (never priced at another), and reprices at that variant', async () => {
    const res = await gw(t.http.post('/v1/usage-events')).send(usageEvent('gpt5-priority', 'openai/gpt-5', { prompt_tokens: 1000, completion_tokens: 100 }, { price_variant: 'priority' })).expect(202);
    expect(res.body.status).toBe('unpriced');
    await t.admin(t.http.post('/v1/admin/prices')).send({ model: 'openai/gpt-5', variant: 'priority', effective_from: '2026-01-01T00:00:00Z', input_usd_per_mtok: '2.5', output_usd_per_mtok: '20' }).expect(201);
    const repriced = await t.admin(t.http.post('/v1/admin/usage-events/reprice')).expect(200);
    expect(repriced.body.priced).toBeGreaterThanOrEqual(1);
    const detail = await gw(t.http.get('/v1/usage-events/gpt5-priority')).expect(200);
    // 1,000 x 2.5 + 100 x 20 = 0.0025 + 0.002.
    expect(detail.body).toMatchObject({ status: 'priced', price_variant: 'priority', official_usd: '0.0045' });
  });

  it('an image model priced by image tokens only (gpt-image-1): all-image output is priced, text output is unpriced (#24 item 8)', async () => {
    const gptImage = { model: 'openai/gpt-image-1', effective_from: '2026-01-01T00:00:00Z', input_usd_per_mtok: '5', cached_input_usd_per_mtok: '1.25', input_image_usd_per_mtok: '10', output_image_usd_per_mtok: '40' };
    const created = await t.admin(t.http.post('/v1/admin/prices')).send(gptImage).expect(201);
    expect(created.body).toMatchObject({ input_usd_per_mtok: '5', output_usd_per_mtok: null, output_image_usd_per_mtok: '40' });
    // 50 x 5 + 1,000 x 10 + 4,160 x 40 = 0.00025 + 0.01 + 0.1664.
    const image = await gw(t.http.post('/v1/usage-events'))
      .send(usageEvent('gpt-image-all-image', 'openai/gpt-image-1', { prompt_tokens: 1050, prompt_image_tokens: 1000, completion_tokens: 4160, completion_image_tokens: 4160 }))
      .expect(201);
    expect(image.body).toMatchObject({ status: 'priced', official_usd: '0.17665', charge_usd: '0.229645', price_id: created.body.id });
    // One text output token needs the text output price the version does not have: parked unpriced.
    const text = await gw(t.http.post('/v1/usage-events'))
      .send(usageEvent('gpt-image-text-out', 'openai/gpt-image-1', { prompt_tokens: 50, completion_tokens: 4161, completion_image_tokens: 4160 }))
      .expect(202);
    expect(text.body.status).toBe('unpriced');
  });

  it.each([
    [{ output_usd_per_mtok: undefined }, 'output_usd_per_mtok'],
    [{ input_usd_per_mtok: undefined, cached_input_usd_per_mtok: '1' }, 'input_usd_per_mtok'],
  ])('still refuses %j without a text price or an image/audio price standing in for it', async (patch, field) => {
    const res = await t.admin(t.http.post('/v1/admin/prices')).send({ model: 'acme/no-root', input_usd_per_mtok: '1', output_usd_per_mtok: '2', ...patch }).expect(400);
    expect((res.body.error.details as { field: string }[]).map((d) => d.field)).toContain(field);
  });

  it('compares the new fields for idempotency: a changed cache write count is 409, the same payload a replay', async () => {
    const body = usageEvent('idem-cw', CLAUDE, { prompt_tokens: 1000, cache_write_5m_tokens: 100, completion_tokens: 10 });
    await gw(t.http.post('/v1/usage-events')).send(body).expect(201);
    await gw(t.http.post('/v1/usage-events')).send(body).expect(200);
    const changed = await gw(t.http.post('/v1/usage-events')).send({ ...body, usage: { ...body.usage, cache_write_5m_tokens: 101 } }).expect(409);
    expect(changed.body.error.code).toBe('idempotency_conflict');
    await gw(t.http.post('/v1/usage-events')).send({ ...body, price_variant: 'us' }).expect(409);
  });

  it('accepts every kind and price_variant in a batch', async () => {
    const res = await gw(t.http.post('/v1/usage-events/batch'))
      .send({
        events: [
          usageEvent('batch-sonar-low', 'perplexity/sonar-pro', { prompt_tokens: 1000, completion_tokens: 500 }, { price_variant: 'low' }),
          usageEvent('batch-qwen-high', 'dashscope/qwen3-max', { prompt_tokens: 200000, completion_tokens: 1000 }),
          usageEvent('batch-bad', CLAUDE, { prompt_tokens: 10, completion_tokens: 1, completion_audio_tokens: 2 }),
        ],
      })
      .expect(200);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['priced', 'priced', 'rejected']);
    // 0.003 + 0.0075 + 0.006; 200,000 x 3 + 1,000 x 15.
    expect((await gw(t.http.get('/v1/usage-events/batch-sonar-low')).expect(200)).body.official_usd).toBe('0.0165');
    expect((await gw(t.http.get('/v1/usage-events/batch-qwen-high')).expect(200)).body.official_usd).toBe('0.615');
  });

  it('earnings rows and CSV add the cache read, cache write and audio totals', async () => {
    const res = await t.admin(t.http.get('/v1/contributors/c_std/earnings?from=2026-11-29&to=2026-11-30&group_by=model')).expect(200);
    const byModel = new Map(res.body.rows.map((r: { model: string }) => [r.model, r]));
    // claude-long + claude-us: 100,000 reads and 30,000 writes each; idem-cw: 100 writes.
    expect(byModel.get(CLAUDE)).toMatchObject({ cached_tokens: 200000, cache_write_tokens: 60100, audio_tokens: 0 });
    expect(byModel.get('openai/gpt-4o-audio-preview')).toMatchObject({ audio_tokens: 1200, cache_write_tokens: 0 });
    expect(res.body.totals).toMatchObject({ cache_write_tokens: 60100, audio_tokens: 1200 });
    const csv = await t.admin(t.http.get('/v1/contributors/c_std/earnings.csv?from=2026-11-29&to=2026-11-30&group_by=model')).expect(200);
    expect(csv.text.split('\r\n')[0]).toBe('model,events,prompt_tokens,completion_tokens,official_usd,earned_usd,cached_tokens,cache_write_tokens,audio_tokens,refunds,refunded_usd,clawed_back_usd,net_earned_usd');
  });

  it('the OpenAPI document describes every price field, tiers and the usage kinds', async () => {
    const doc = (await t.http.get('/docs-json').expect(200)).body;
    const text = JSON.stringify(doc.components?.schemas ?? {});
    for (const field of ['cache_write_1h_usd_per_mtok', 'cached_input_audio_usd_per_mtok', 'output_image_usd_per_mtok', 'reasoning_usd_per_mtok', 'above_input_tokens', 'web_search_billing', 'request_usd', 'price_variant', 'cache_write_5m_tokens', 'completion_image_tokens', 'web_search_calls']) {
      expect(text).toContain(`"${field}"`);
    }
  });
});
