import { jest } from '@jest/globals';
import { calcPrice } from '@pydantic/genai-prices';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { countCatalogPlan, toPriceBody } from './catalog-price-body.js';
import { bundledGenaiProviders, genaiTargets, resolveGenaiModel } from './genai-prices-catalog.js';
import { GENAI_PRICES_EPOCH, planGenaiModel, planGenaiPrices, type GenaiTarget } from './genai-prices-plan.js';

const LITELLM_PATH = fileURLToPath(new URL('../../../test/fixtures/prices/litellm-full/model_prices_and_context_window.json', import.meta.url));

describe('planGenaiModel: dated versions, amounts derived by hand', () => {
  it('Claude Opus 4.6: the long-context premium until 2026-03-13, none from that day on', () => {
    const plan = planGenaiModel({
      model: 'claude-opus-4-6',
      info: {
        id: 'claude-opus-4-6',
        prices: [
          {
            prices: {
              input_mtok: { base: 5, tiers: [{ start: 200000, price: 10 }] },
              cache_write_mtok: { base: 6.25, tiers: [{ start: 200000, price: 12.5 }] },
              cache_read_mtok: { base: 0.5, tiers: [{ start: 200000, price: 1 }] },
              output_mtok: { base: 25, tiers: [{ start: 200000, price: 37.5 }] },
              cache_write_1h_mtok: { base: 10, tiers: [{ start: 200000, price: 20 }] },
              web_searches_kcount: 10,
            },
          },
          {
            constraint: { type: 'start_date', start_date: '2026-03-13' },
            prices: { input_mtok: 5, cache_write_mtok: 6.25, cache_read_mtok: 0.5, output_mtok: 25, cache_write_1h_mtok: 10, web_searches_kcount: 10 },
          },
        ],
      },
    });
    expect(plan.skipped).toEqual([]);
    const flat = {
      model: 'claude-opus-4-6',
      variant: 'standard',
      input_usd_per_mtok: '5',
      output_usd_per_mtok: '25',
      cached_input_usd_per_mtok: '0.5',
      cache_write_5m_usd_per_mtok: '6.25',
      cache_write_1h_usd_per_mtok: '10',
      web_search_usd_per_call: '0.01',
      web_search_billing: 'per_call',
    };
    expect(plan.versions.map(toPriceBody)).toEqual([
      {
        ...flat,
        effective_from: GENAI_PRICES_EPOCH.toISOString(),
        tiers: [
          {
            above_input_tokens: 200000,
            inclusive: false,
            input_usd_per_mtok: '10',
            output_usd_per_mtok: '37.5',
            cached_input_usd_per_mtok: '1',
            cache_write_5m_usd_per_mtok: '12.5',
            cache_write_1h_usd_per_mtok: '20',
          },
        ],
      },
      { ...flat, effective_from: '2026-03-13T00:00:00.000Z' },
    ]);
  });

  it('keys tiered at different thresholds: every tier lists the price each key has there', () => {
    const plan = planGenaiModel({
      model: 'm',
      info: {
        id: 'm',
        prices: {
          input_mtok: { base: 1, tiers: [{ start: 200000, price: 3 }, { start: 128000, price: 2 }] },
          output_mtok: { base: 4, tiers: [{ start: 200000, price: 9 }] },
          cache_read_mtok: 0.1,
        },
      },
    });
    expect(toPriceBody(plan.versions[0]!).tiers).toEqual([
      { above_input_tokens: 128000, inclusive: false, input_usd_per_mtok: '2' },
      { above_input_tokens: 200000, inclusive: false, input_usd_per_mtok: '3', output_usd_per_mtok: '9' },
    ]);
  });

  it('reads fees per thousand, drops time-of-day prices and unknown keys, skips what it cannot hold', () => {
    const plan = planGenaiPrices([
      { model: 'perplexity/sonar', info: { id: 'sonar', prices: { input_mtok: 1, output_mtok: 1, requests_kcount: 12 } } },
      {
        model: 'deepseek-chat',
        info: {
          id: 'deepseek-chat',
          prices: [
            { prices: { input_mtok: 0.135, cache_read_mtok: 0.035, output_mtok: 0.55 } },
            { constraint: { type: 'time_of_date', start_time: '00:30:00Z', end_time: '16:30:00Z' }, prices: { input_mtok: 0.27, output_mtok: 1.1 } },
          ],
        },
      },
      { model: 'video', info: { id: 'video', prices: { input_mtok: 1, output_mtok: 2, input_video_mtok: 3, cache_write_mtok: 0 } } },
      { model: 'too-fine', info: { id: 'too-fine', prices: { input_mtok: 1e-7, output_mtok: 1 } } },
      { model: 'free', info: { id: 'free', prices: { input_mtok: 0, output_mtok: 0 } } },
      { model: 'ocr', info: { id: 'ocr', prices: { input_document_kpages: 1 } } },
    ]);
    expect(plan.versions.map((v) => [v.model, toPriceBody(v).request_usd, toPriceBody(v).cached_input_usd_per_mtok])).toEqual([
      ['perplexity/sonar', '0.012', undefined],
      ['deepseek-chat', undefined, '0.035'],
      ['video', undefined, undefined],
    ]);
    expect(plan.dropped.map((d) => [d.model, d.field, d.code])).toEqual([
      ['deepseek-chat', 'prices[1]', 'unsupported'],
      ['video', 'prices[0].input_video_mtok', 'unsupported'],
      ['video', 'prices[0].cache_write_mtok', 'zero_priced'],
      ['ocr', 'prices[0].input_document_kpages', 'unsupported'],
    ]);
    expect(plan.skipped.map((s) => [s.model, s.code])).toEqual([
      ['too-fine', 'precision'],
      ['free', 'zero_priced'],
      ['ocr', 'not_token_priced'],
    ]);
  });
});

describe('the bundled genai-prices catalog', () => {
  it('resolves names exactly as genai-prices itself does, for every key of the LiteLLM catalog', async () => {
    const providers = await bundledGenaiProviders();
    const names = Object.keys(JSON.parse(readFileSync(LITELLM_PATH, 'utf8')) as object);
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    let resolved = 0;
    try {
      for (const name of names) {
        const ours = resolveGenaiModel(providers, name);
        const theirs = calcPrice({ input_tokens: 1 }, name, { providerId: 'litellm' });
        expect([name, ours?.provider.id ?? null, ours?.model.id ?? null]).toEqual([name, theirs?.provider.id ?? null, theirs?.model.id ?? null]);
        if (ours) resolved += 1;
      }
    } finally {
      warn.mockRestore();
    }
    expect(resolved).toBe(genaiTargets(providers, names).targets.length);
    expect(resolved).toBe(745);
  });

  it('plans every bundled model with its dated history', async () => {
    const providers = await bundledGenaiProviders();
    const targets = providers.flatMap((p) => p.models.map((m) => ({ model: `${p.id}/${m.id}`, info: m as GenaiTarget['info'] })));
    const plan = planGenaiPrices(targets);
    const counts = countCatalogPlan(plan);
    // Every dated or undated price becomes a version or a skip; time-of-day prices are dropped.
    const priceEntries = targets.flatMap((t) => (Array.isArray(t.info.prices) ? t.info.prices : [{}]) as { constraint?: { type: string } }[]);
    const allDay = priceEntries.filter((p) => p.constraint?.type !== 'time_of_date');
    expect(counts.versions + counts.skippedVariants).toBe(allDay.length);
    expect(plan.dropped.filter((d) => /^prices\[\d+\]$/.test(d.field))).toHaveLength(priceEntries.length - allDay.length);
    expect(counts).toEqual({
      models: 1462,
      versions: 1482,
      variants: { standard: 1482 },
      tiers: 60,
      versionsWithTiers: 60,
      skippedModels: 0,
      skippedVariants: 236,
      // Prices per page, hour or search only; and float artifacts such as 0.08333333333333334.
      skippedByCode: { not_token_priced: 229, precision: 7 },
      droppedByCode: { unsupported: 81 },
    });
    const dated = plan.versions.filter((v) => v.effectiveFrom !== null && v.effectiveFrom.getTime() !== GENAI_PRICES_EPOCH.getTime());
    expect(dated.map((v) => v.model).sort()).toContain('anthropic/claude-opus-4-6');
  });
});
