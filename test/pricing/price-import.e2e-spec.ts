import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DatabaseService } from '../../src/database/database.service.js';
import { billingSuiteWithGateway, expectLedgerClean } from '../support/billing-fixtures.js';
import { LONG_CACHED_USAGE, usageEvent, pricedRows, type PricedRow } from './support/priced-requests.js';

// The whole LiteLLM catalog through POST /v1/admin/prices/import, events priced from it to the atto
// (amounts derived by hand in the comments), and genai-prices' history filling in the past.

const CATALOG_TEXT = readFileSync(fileURLToPath(new URL('../fixtures/prices/litellm-full/model_prices_and_context_window.json', import.meta.url)), 'utf8');
const IMPORTED_AT = '2026-07-24T00:00:00Z';

describe('catalog imports: the whole LiteLLM catalog and genai-prices history', () => {
  const { t, gw } = billingSuiteWithGateway('price-import', { userCreditUsd: '1000' });
  const importLitellm = (text: string) =>
    t.admin(t.http.post(`/v1/admin/prices/import?effective_from=${encodeURIComponent(IMPORTED_AT)}`)).set('Content-Type', 'application/json').send(text);

  it('imports the whole catalog with counts of models, variants, tiers and skips by reason, and again changes nothing', async () => {
    const first = await importLitellm(CATALOG_TEXT).expect(201);
    expect(first.body).toMatchObject({
      effective_from: '2026-07-24T00:00:00.000Z',
      imported: 2695,
      unchanged: 0,
      catalog: {
        models: 2379,
        versions: 2695,
        variants: { standard: 2379, batch: 109, priority: 100, flex: 33, us: 26, eu: 18, fast: 6, low: 8, medium: 8, high: 8 },
        tiers: 248,
        skipped_models: 606,
        skipped_by_code: { not_token_priced: 474, zero_priced: 107, precision: 23, not_a_model: 2 },
        dropped_by_code: { not_token_priced: 109, unsupported: 11, zero_priced: 44, invalid: 9 },
      },
    });
    expect(first.body.skipped).toHaveLength(606);
    expect(first.body.skipped).toContainEqual({ model: 'databricks/databricks-claude-3-7-sonnet', code: 'precision', reason: 'input_cost_per_token 2.9999900000000002e-06 needs more than 6 decimals' });
    expect(first.body.dropped).toHaveLength(173);
    const db = t.app.get(DatabaseService).prisma;
    expect(await db.price.count({ where: { source: 'litellm' } })).toBe(2695);
    const again = await importLitellm(CATALOG_TEXT).expect(200);
    expect(again.body).toMatchObject({ imported: 0, unchanged: 2695 });
    expect(await db.price.count({ where: { source: 'litellm' } })).toBe(2695);
  });

  it.each<PricedRow>([
    ...pricedRows({
      'claude-long': 'claude-sonnet-4-5',
      'claude-search': 'claude-sonnet-4-5',
      audio: 'gpt-4o-audio-preview',
      image: 'gemini/gemini-2.5-flash-image',
      'sonar-high': 'perplexity/sonar-pro',
      'gpt5-flex': 'gpt-5',
      'qwen-mid': 'dashscope/qwen3-max',
    }),
    // Claude Opus 4.6 US-only (1.1x): 120,000 x 5.5 + 100,000 x 0.55 + 20,000 x 6.875 + 10,000 x 11 + 2,000 x 27.5.
    ['opus-us', 'claude-opus-4-6', LONG_CACHED_USAGE, { price_variant: 'us' }, '1.0175'],
    // Gemini 2.5 Pro above 200k, grounded once per request: 250,000 x 2.5 + 50,000 x 0.25 + 10,000 x 15 + 0.035.
    ['gemini-long', 'gemini/gemini-2.5-pro', { prompt_tokens: 300000, cached_tokens: 50000, completion_tokens: 10000, web_search_calls: 4 }, {}, '0.8225'],
  ])('bills %s from the imported catalog exactly', async (id, model, usage, extra, officialUsd) => {
    const res = await gw(t.http.post('/v1/usage-events')).send(usageEvent(id, model, usage, extra)).expect(201);
    expect(res.body).toMatchObject({ status: 'priced', official_usd: officialUsd });
    await expectLedgerClean(t);
  });

  it('imports genai-prices history only before the LiteLLM versions, and prices old events at the price then in force', async () => {
    const models = ['claude-opus-4-6', 'gemini-3.6-flash', 'acme/unknown-model'];
    const first = await t.admin(t.http.post('/v1/admin/prices/import/genai-prices')).send({ models }).expect(201);
    // Opus 4.6: its price since 2020 (with the >200k tier) and from 2026-03-13 (without); Gemini
    // 3.6 Flash: its price since 2020; its 2027-01-01 price comes after the LiteLLM version.
    expect(first.body).toMatchObject({ models_requested: 3, models_matched: 2, imported: 3, unchanged: 0, superseded: 1 });
    const opus = await t.admin(t.http.get('/v1/admin/prices').query({ model: 'claude-opus-4-6' })).expect(200);
    const standard = (opus.body.data as { variant: string; effective_from: string; source: string }[]).filter((p) => p.variant === 'standard');
    expect(standard.map((p) => [p.effective_from, p.source])).toEqual([
      ['2020-01-01T00:00:00.000Z', 'genai-prices'],
      ['2026-03-13T00:00:00.000Z', 'genai-prices'],
      ['2026-07-24T00:00:00.000Z', 'litellm'],
    ]);
    const at = (id: string, occurredAt: string) => usageEvent(id, 'claude-opus-4-6', { prompt_tokens: 250000, completion_tokens: 1000 }, { occurred_at: occurredAt });
    // Before 2026-03-13 the whole request above 200k: 250,000 x 10 + 1,000 x 37.5.
    expect((await gw(t.http.post('/v1/usage-events')).send(at('opus-jan', '2026-01-15T12:00:00Z')).expect(201)).body.official_usd).toBe('2.5375');
    // From 2026-03-13 (genai-prices), and from 2026-07-24 (LiteLLM): 250,000 x 5 + 1,000 x 25.
    expect((await gw(t.http.post('/v1/usage-events')).send(at('opus-may', '2026-05-01T12:00:00Z')).expect(201)).body.official_usd).toBe('1.275');
    expect((await gw(t.http.post('/v1/usage-events')).send(at('opus-aug', '2026-08-01T12:00:00Z')).expect(201)).body.official_usd).toBe('1.275');

    const again = await t.admin(t.http.post('/v1/admin/prices/import/genai-prices')).send({ models }).expect(200);
    expect(again.body).toMatchObject({ imported: 0, unchanged: 3, superseded: 1 });
    await expectLedgerClean(t);
  });

  it('imports the history of every priced model by default, and refuses bad bodies', async () => {
    const res = await t.admin(t.http.post('/v1/admin/prices/import/genai-prices')).send({}).expect(201);
    expect(res.body.models_requested).toBeGreaterThan(2369);
    expect(res.body.models_matched).toBeGreaterThan(700);
    expect(res.body.imported).toBeGreaterThan(0);
    // Every genai-prices version is older than the LiteLLM one of its model (or of a model LiteLLM does not price).
    const db = t.app.get(DatabaseService).prisma;
    const late = await db.price.count({ where: { source: 'genai-prices', effectiveFrom: { gte: new Date(IMPORTED_AT) } } });
    expect(late).toBe(0);
    await t.admin(t.http.post('/v1/admin/prices/import/genai-prices')).send({ models: [] }).expect(400);
    await t.admin(t.http.post('/v1/admin/prices/import/genai-prices')).send({ models: ['has space'] }).expect(400);
    await t.admin(t.http.post('/v1/admin/prices/import/genai-prices')).send({ extra: true }).expect(400);
  });

  it('documents both imports in the OpenAPI document', async () => {
    const res = await t.http.get('/docs-json').expect(200);
    expect(res.body.paths['/v1/admin/prices/import/genai-prices']?.post).toBeDefined();
    const schemas = res.body.components.schemas as Record<string, { properties: Record<string, unknown> }>;
    expect(Object.keys(schemas.PriceImportResponseDto!.properties)).toEqual(expect.arrayContaining(['skipped', 'dropped', 'catalog']));
    expect(Object.keys(schemas.GenaiPricesImportResponseDto!.properties)).toEqual(expect.arrayContaining(['superseded', 'models_matched', 'catalog']));
  });
});
