import fc from 'fast-check';
import { formatScaledDecimal } from '../../common/money/index.js';
import { toPriceBody, type CatalogPlan, type PriceBody } from './catalog-price-body.js';
import { parseLitellmDocument } from './litellm-import.js';
import { planLitellmCatalog } from './litellm-plan.js';

/** Entries are written as JSON text so the numbers keep their catalog spelling (2.9999900000000002e-06). */
function plan(entries: Record<string, string>): CatalogPlan {
  const text = `{${Object.entries(entries)
    .map(([model, entry]) => `${JSON.stringify(model)}: ${entry}`)
    .join(',')}}`;
  return planLitellmCatalog(parseLitellmDocument(text));
}

function bodies(result: CatalogPlan): Record<string, PriceBody> {
  return Object.fromEntries(result.versions.map((v) => [`${v.model}|${v.variant}`, toPriceBody(v)]));
}

describe('planLitellmCatalog: one dimension per entry, amounts derived by hand', () => {
  it('Claude: cache writes 5m and 1h, the whole request above 200k, web search per call, US-only 1.1x and fast 6x', () => {
    const result = plan({
      'claude-sonnet-4-5': `{"litellm_provider": "anthropic", "input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05,
        "cache_read_input_token_cost": 3e-07, "cache_creation_input_token_cost": 3.75e-06, "cache_creation_input_token_cost_above_1hr": 6e-06,
        "input_cost_per_token_above_200k_tokens": 6e-06, "output_cost_per_token_above_200k_tokens": 2.25e-05,
        "cache_read_input_token_cost_above_200k_tokens": 6e-07, "cache_creation_input_token_cost_above_200k_tokens": 7.5e-06,
        "cache_creation_input_token_cost_above_1hr_above_200k_tokens": 1.2e-05,
        "search_context_cost_per_query": {"search_context_size_low": 0.01, "search_context_size_medium": 0.01, "search_context_size_high": 0.01},
        "provider_specific_entry": {"us": 1.1, "fast": 6}, "max_input_tokens": 1000000, "supports_prompt_caching": true}`,
    });
    expect(result.skipped).toEqual([]);
    expect(result.dropped).toEqual([]);
    const tier = {
      above_input_tokens: 200000,
      inclusive: false,
      input_usd_per_mtok: '6',
      output_usd_per_mtok: '22.5',
      cached_input_usd_per_mtok: '0.6',
      cache_write_5m_usd_per_mtok: '7.5',
      cache_write_1h_usd_per_mtok: '12',
    };
    const search = { web_search_usd_per_call: '0.01', web_search_billing: 'per_call' };
    expect(bodies(result)).toEqual({
      'claude-sonnet-4-5|standard': {
        model: 'claude-sonnet-4-5',
        variant: 'standard',
        input_usd_per_mtok: '3',
        output_usd_per_mtok: '15',
        cached_input_usd_per_mtok: '0.3',
        cache_write_5m_usd_per_mtok: '3.75',
        cache_write_1h_usd_per_mtok: '6',
        tiers: [tier],
        ...search,
      },
      // 3 x 1.1 = 3.3, 15 x 1.1 = 16.5, 0.3 x 1.1 = 0.33, 3.75 x 1.1 = 4.125, 6 x 1.1 = 6.6; the tier too.
      'claude-sonnet-4-5|us': {
        model: 'claude-sonnet-4-5',
        variant: 'us',
        input_usd_per_mtok: '3.3',
        output_usd_per_mtok: '16.5',
        cached_input_usd_per_mtok: '0.33',
        cache_write_5m_usd_per_mtok: '4.125',
        cache_write_1h_usd_per_mtok: '6.6',
        tiers: [{ ...tier, input_usd_per_mtok: '6.6', output_usd_per_mtok: '24.75', cached_input_usd_per_mtok: '0.66', cache_write_5m_usd_per_mtok: '8.25', cache_write_1h_usd_per_mtok: '13.2' }],
        ...search,
      },
      'claude-sonnet-4-5|fast': {
        model: 'claude-sonnet-4-5',
        variant: 'fast',
        input_usd_per_mtok: '18',
        output_usd_per_mtok: '90',
        cached_input_usd_per_mtok: '1.8',
        cache_write_5m_usd_per_mtok: '22.5',
        cache_write_1h_usd_per_mtok: '36',
        tiers: [{ ...tier, input_usd_per_mtok: '36', output_usd_per_mtok: '135', cached_input_usd_per_mtok: '3.6', cache_write_5m_usd_per_mtok: '45', cache_write_1h_usd_per_mtok: '72' }],
        ...search,
      },
    });
  });

  it('gpt-5: flex, priority and batch variants keep the standard price of every kind they do not list', () => {
    const result = plan({
      'gpt-5': `{"litellm_provider": "openai", "input_cost_per_token": 1.25e-06, "output_cost_per_token": 1e-05, "cache_read_input_token_cost": 1.25e-07,
        "input_cost_per_token_flex": 6.25e-07, "output_cost_per_token_flex": 5e-06, "cache_read_input_token_cost_flex": 6.25e-08,
        "input_cost_per_token_priority": 2.5e-06, "output_cost_per_token_priority": 2e-05, "cache_read_input_token_cost_priority": 2.5e-07,
        "input_cost_per_token_batches": 6.25e-07, "output_cost_per_token_batches": 5e-06}`,
    });
    const all = bodies(result);
    expect(Object.keys(all).sort()).toEqual(['gpt-5|batch', 'gpt-5|flex', 'gpt-5|priority', 'gpt-5|standard']);
    expect(all['gpt-5|flex']).toEqual({ model: 'gpt-5', variant: 'flex', input_usd_per_mtok: '0.625', output_usd_per_mtok: '5', cached_input_usd_per_mtok: '0.0625' });
    expect(all['gpt-5|priority']).toMatchObject({ input_usd_per_mtok: '2.5', output_usd_per_mtok: '20', cached_input_usd_per_mtok: '0.25' });
    // Batch lists no cache price: the standard one (0.125) stays, as LiteLLM computes it.
    expect(all['gpt-5|batch']).toEqual({ model: 'gpt-5', variant: 'batch', input_usd_per_mtok: '0.625', output_usd_per_mtok: '5', cached_input_usd_per_mtok: '0.125' });
  });

  it('gpt-5.4: the 272k tier, per-variant tiers and data residency (eu, us) at 1.1x', () => {
    const result = plan({
      'gpt-5.4': `{"litellm_provider": "openai", "input_cost_per_token": 2.5e-06, "output_cost_per_token": 1.5e-05, "cache_read_input_token_cost": 2.5e-07,
        "input_cost_per_token_above_272k_tokens": 5e-06, "output_cost_per_token_above_272k_tokens": 2.25e-05,
        "input_cost_per_token_priority": 5e-06, "output_cost_per_token_priority": 3e-05,
        "input_cost_per_token_above_272k_tokens_priority": 1e-05, "output_cost_per_token_above_272k_tokens_priority": 4.5e-05,
        "regional_processing_uplift_multiplier_eu": 1.1, "regional_processing_uplift_multiplier_us": 1.1}`,
    });
    const all = bodies(result);
    expect(all['gpt-5.4|standard']?.tiers).toEqual([{ above_input_tokens: 272000, inclusive: false, input_usd_per_mtok: '5', output_usd_per_mtok: '22.5' }]);
    expect(all['gpt-5.4|priority']).toMatchObject({
      input_usd_per_mtok: '5',
      output_usd_per_mtok: '30',
      cached_input_usd_per_mtok: '0.25',
      tiers: [{ above_input_tokens: 272000, inclusive: false, input_usd_per_mtok: '10', output_usd_per_mtok: '45' }],
    });
    for (const region of ['eu', 'us']) {
      expect(all[`gpt-5.4|${region}`]).toEqual({
        model: 'gpt-5.4',
        variant: region,
        input_usd_per_mtok: '2.75',
        output_usd_per_mtok: '16.5',
        cached_input_usd_per_mtok: '0.275',
        tiers: [{ above_input_tokens: 272000, inclusive: false, input_usd_per_mtok: '5.5', output_usd_per_mtok: '24.75' }],
      });
    }
  });

  it('gpt-4o-audio and a realtime model: audio, cached audio and image input prices; per-image fields are dropped', () => {
    const result = plan({
      'gpt-4o-audio-preview': `{"litellm_provider": "openai", "input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05,
        "input_cost_per_audio_token": 4e-05, "output_cost_per_audio_token": 8e-05}`,
      'gpt-realtime': `{"litellm_provider": "openai", "input_cost_per_token": 4e-06, "output_cost_per_token": 1.6e-05, "cache_read_input_token_cost": 4e-07,
        "input_cost_per_audio_token": 3.2e-05, "cache_read_input_audio_token_cost": 4e-07, "output_cost_per_audio_token": 6.4e-05,
        "input_cost_per_image_token": 5e-06, "input_cost_per_image": 0.000005, "cache_creation_input_audio_token_cost": 4e-07}`,
    });
    expect(bodies(result)).toEqual({
      'gpt-4o-audio-preview|standard': {
        model: 'gpt-4o-audio-preview',
        variant: 'standard',
        input_usd_per_mtok: '2.5',
        output_usd_per_mtok: '10',
        input_audio_usd_per_mtok: '40',
        output_audio_usd_per_mtok: '80',
      },
      'gpt-realtime|standard': {
        model: 'gpt-realtime',
        variant: 'standard',
        input_usd_per_mtok: '4',
        output_usd_per_mtok: '16',
        cached_input_usd_per_mtok: '0.4',
        input_audio_usd_per_mtok: '32',
        cached_input_audio_usd_per_mtok: '0.4',
        output_audio_usd_per_mtok: '64',
        input_image_usd_per_mtok: '5',
      },
    });
    expect(result.dropped.map((d) => [d.field, d.code])).toEqual([['input_cost_per_image', 'not_token_priced']]);
  });

  it("OpenAI's realtime models: cache_creation_input_audio_token_cost is the cached input audio price", () => {
    // LiteLLM's catalog lists gpt-realtime-mini's cached audio input (0.3 USD per Mtok, 1/33 of
    // its 10 USD audio input) only under this misnamed field; without it cached audio billed at 10.
    const result = plan({
      'gpt-realtime-mini': `{"litellm_provider": "openai", "input_cost_per_token": 6e-07, "output_cost_per_token": 2.4e-06,
        "input_cost_per_audio_token": 1e-05, "cache_creation_input_audio_token_cost": 3e-07, "output_cost_per_audio_token": 2e-05}`,
      'both-named': `{"litellm_provider": "openai", "input_cost_per_token": 4e-06, "output_cost_per_token": 1.6e-05,
        "input_cost_per_audio_token": 3.2e-05, "cache_creation_input_audio_token_cost": 5e-07, "cache_read_input_audio_token_cost": 4e-07}`,
    });
    expect(bodies(result)['gpt-realtime-mini|standard']).toMatchObject({ input_audio_usd_per_mtok: '10', cached_input_audio_usd_per_mtok: '0.3' });
    expect(bodies(result)['both-named|standard']).toMatchObject({ cached_input_audio_usd_per_mtok: '0.4' });
    expect(result.dropped.map((d) => [d.model, d.field, d.code])).toEqual([['both-named', 'cache_creation_input_audio_token_cost', 'invalid']]);
  });

  it('Gemini image output and reasoning per token; Gemini 2.x grounding per request, Gemini 3 per query', () => {
    const result = plan({
      'gemini/gemini-2.5-flash-image': `{"litellm_provider": "gemini", "input_cost_per_token": 3e-07, "output_cost_per_token": 2.5e-06,
        "output_cost_per_image_token": 3e-05, "output_cost_per_reasoning_token": 2.5e-06, "output_cost_per_image": 0.039,
        "search_context_cost_per_query": {"search_context_size_low": 0.035, "search_context_size_medium": 0.035, "search_context_size_high": 0.035}}`,
      'gemini/gemini-3-flash-preview': `{"litellm_provider": "gemini", "input_cost_per_token": 5e-07, "output_cost_per_token": 3e-06, "web_search_billing_unit": "per_query",
        "search_context_cost_per_query": {"search_context_size_low": 0.014, "search_context_size_medium": 0.014, "search_context_size_high": 0.014}}`,
    });
    const all = bodies(result);
    expect(all['gemini/gemini-2.5-flash-image|standard']).toEqual({
      model: 'gemini/gemini-2.5-flash-image',
      variant: 'standard',
      input_usd_per_mtok: '0.3',
      output_usd_per_mtok: '2.5',
      output_image_usd_per_mtok: '30',
      reasoning_usd_per_mtok: '2.5',
      web_search_usd_per_call: '0.035',
      web_search_billing: 'per_request',
    });
    expect(all['gemini/gemini-3-flash-preview|standard']).toMatchObject({ web_search_usd_per_call: '0.014', web_search_billing: 'per_call' });
    // Equal fees for every context size need no size variants.
    expect(Object.keys(all)).toHaveLength(2);
  });

  it('Qwen tiered_pricing ranges (0, 32k], (32k, 128k], (128k, 256k] become the base plus tiers above 32k and 128k', () => {
    const result = plan({
      'dashscope/qwen3-coder-plus': `{"litellm_provider": "dashscope", "tiered_pricing": [
        {"input_cost_per_token": 1.8e-06, "output_cost_per_token": 9e-06, "cache_read_input_token_cost": 1.8e-07, "range": [32000.0, 128000.0]},
        {"input_cost_per_token": 1e-06, "output_cost_per_token": 5e-06, "cache_read_input_token_cost": 1e-07, "range": [0, 32000.0]},
        {"input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05, "output_cost_per_reasoning_token": 3e-05, "range": [128000.0, 256000.0]}]}`,
    });
    expect(bodies(result)['dashscope/qwen3-coder-plus|standard']).toEqual({
      model: 'dashscope/qwen3-coder-plus',
      variant: 'standard',
      input_usd_per_mtok: '1',
      output_usd_per_mtok: '5',
      cached_input_usd_per_mtok: '0.1',
      tiers: [
        { above_input_tokens: 32000, inclusive: false, input_usd_per_mtok: '1.8', output_usd_per_mtok: '9', cached_input_usd_per_mtok: '0.18' },
        { above_input_tokens: 128000, inclusive: false, input_usd_per_mtok: '3', output_usd_per_mtok: '15', reasoning_usd_per_mtok: '30' },
      ],
    });
  });

  it('Perplexity and *-search-preview: a request fee by search context size, as variants low/medium/high', () => {
    const result = plan({
      'perplexity/sonar-pro': `{"litellm_provider": "perplexity", "input_cost_per_token": 3e-06, "output_cost_per_token": 1.5e-05,
        "search_context_cost_per_query": {"search_context_size_high": 0.014, "search_context_size_low": 0.006, "search_context_size_medium": 0.01}}`,
      'gpt-4o-search-preview': `{"litellm_provider": "openai", "input_cost_per_token": 2.5e-06, "output_cost_per_token": 1e-05,
        "search_context_cost_per_query": {"search_context_size_high": 0.05, "search_context_size_low": 0.03, "search_context_size_medium": 0.035}}`,
      'perplexity/pplx-70b-online': `{"litellm_provider": "perplexity", "input_cost_per_request": 0.005, "input_cost_per_token": 0.0, "output_cost_per_token": 2.8e-06}`,
    });
    const fee = (key: string) => bodies(result)[key]?.request_usd;
    // Perplexity's default context size is low, OpenAI's medium: that prices the standard variant.
    expect(['standard', 'low', 'medium', 'high'].map((v) => fee(`perplexity/sonar-pro|${v}`))).toEqual(['0.006', '0.006', '0.01', '0.014']);
    expect(['standard', 'low', 'medium', 'high'].map((v) => fee(`gpt-4o-search-preview|${v}`))).toEqual(['0.035', '0.03', '0.035', '0.05']);
    expect(bodies(result)['perplexity/pplx-70b-online|standard']).toEqual({
      model: 'perplexity/pplx-70b-online',
      variant: 'standard',
      input_usd_per_mtok: '0',
      output_usd_per_mtok: '2.8',
      request_usd: '0.005',
    });
    expect(bodies(result)['perplexity/sonar-pro|high']?.web_search_usd_per_call).toBeUndefined();
  });

  it('DeepSeek names its cache-read price input_cost_per_token_cache_hit; cache_read_input_token_cost wins when both differ', () => {
    const result = plan({
      'deepseek/deepseek-coder': `{"litellm_provider": "deepseek", "input_cost_per_token": 1.4e-07, "output_cost_per_token": 2.8e-07, "input_cost_per_token_cache_hit": 1.4e-08}`,
      both: `{"input_cost_per_token_cache_hit": 2e-08, "input_cost_per_token": 1.4e-07, "output_cost_per_token": 2.8e-07, "cache_read_input_token_cost": 1.4e-08}`,
    });
    expect(bodies(result)['deepseek/deepseek-coder|standard']?.cached_input_usd_per_mtok).toBe('0.014');
    expect(bodies(result)['both|standard']?.cached_input_usd_per_mtok).toBe('0.014');
    expect(result.dropped).toEqual([expect.objectContaining({ model: 'both', field: 'input_cost_per_token_cache_hit', code: 'invalid' })]);
  });
});

describe('planLitellmCatalog: what is skipped or dropped, and why', () => {
  it('skips models by reason and imports none of them at 0', () => {
    const result = plan({
      sample_spec: `{"input_cost_per_token": 0, "output_cost_per_token": 0}`,
      'free-model': `{"input_cost_per_token": 0.0, "output_cost_per_token": 0, "cache_read_input_token_cost": 0}`,
      'image-model': `{"input_cost_per_token": 0, "output_cost_per_token": 0, "output_cost_per_image": 0.04}`,
      'per-second': `{"input_cost_per_second": 0.0001}`,
      'no-price': `{"litellm_provider": "dashscope", "max_tokens": 8192}`,
      'float-artifact': `{"input_cost_per_token": 2.9999900000000002e-06, "output_cost_per_token": 1.5e-05}`,
      'too-fine-cache': `{"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06, "cache_read_input_token_cost": 1.5e-13}`,
      'string-price': `{"input_cost_per_token": "1e-06", "output_cost_per_token": 2e-06}`,
      'negative': `{"input_cost_per_token": -1e-06, "output_cost_per_token": 2e-06}`,
      'gaps': `{"tiered_pricing": [{"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06, "range": [0, 32000]},
        {"input_cost_per_token": 2e-06, "output_cost_per_token": 4e-06, "range": [64000, 128000]}]}`,
      'search-api': `{"mode": "search", "tiered_pricing": [{"input_cost_per_query": 0.005, "max_results_range": [0, 25]}]}`,
      'has space': `{"input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06}`,
      last_updated: `"2026-07-24"`,
    });
    expect(result.versions).toEqual([]);
    expect(result.skipped.map((s) => [s.model, s.code])).toEqual([
      ['sample_spec', 'not_a_model'],
      ['free-model', 'zero_priced'],
      ['image-model', 'not_token_priced'],
      ['per-second', 'not_token_priced'],
      ['no-price', 'not_token_priced'],
      ['float-artifact', 'precision'],
      ['too-fine-cache', 'precision'],
      ['string-price', 'invalid'],
      ['negative', 'invalid'],
      ['gaps', 'invalid'],
      ['search-api', 'not_token_priced'],
      ['has space', 'invalid'],
      ['last_updated', 'not_a_model'],
    ]);
    const reason = (model: string) => result.skipped.find((s) => s.model === model)?.reason;
    expect(reason('float-artifact')).toBe('input_cost_per_token 2.9999900000000002e-06 needs more than 6 decimals');
    expect(reason('image-model')).toBe('0 per token; priced per output_cost_per_image');
    expect(reason('gaps')).toMatch(/not contiguous at 32000\.\.64000/);
  });

  it('drops an optional price of 0, an unknown price field and a tier price without a base price, with reasons', () => {
    const result = plan({
      m: `{"litellm_provider": "vertex_ai-language-models", "input_cost_per_token": 1.25e-06, "output_cost_per_token": 1e-05,
        "cache_creation_input_token_cost": 0.0, "input_cost_per_token_above_200k_tokens": 2.5e-06,
        "cache_creation_input_token_cost_above_200k_tokens": 2.5e-07, "future_cost_per_thought": 1e-06, "supports_vision": true, "output_cost_per_pixel": 0,
        "supports_service_tier": true, "pricing_note": "see the provider's page"}`,
    });
    expect(bodies(result)['m|standard']).toEqual({
      model: 'm',
      variant: 'standard',
      input_usd_per_mtok: '1.25',
      output_usd_per_mtok: '10',
      tiers: [{ above_input_tokens: 200000, inclusive: false, input_usd_per_mtok: '2.5' }],
    });
    expect(result.dropped.map((d) => [d.field, d.code])).toEqual([
      ['cache_creation_input_token_cost', 'zero_priced'],
      ['future_cost_per_thought', 'unknown_field'],
      ['cache_creation_input_token_cost_above_200k_tokens', 'invalid'],
    ]);
  });

  it('skips only the variant whose own prices or multiplier do not fit 6 decimals', () => {
    const result = plan({
      m: `{"input_cost_per_token": 1e-12, "output_cost_per_token": 2e-06, "input_cost_per_token_flex": 5e-13, "output_cost_per_token_flex": 1e-06,
        "input_cost_per_token_batches": 1e-12, "output_cost_per_token_batches": 1e-06, "provider_specific_entry": {"us": 1.1, "fast": 2, "bedrock_invocation_schema": "titan_v2"}}`,
    });
    expect(result.versions.map((v) => v.variant)).toEqual(['standard', 'batch', 'fast']);
    expect(result.skipped).toEqual([
      { model: 'm', variant: 'flex', code: 'precision', reason: 'input_cost_per_token_flex 5e-13 needs more than 6 decimals' },
      // 0.000001 USD per Mtok x 1.1 = 0.0000011: a seventh decimal.
      { model: 'm', variant: 'us', code: 'precision', reason: 'provider_specific_entry.us times the input price needs more than 6 decimals per Mtok' },
    ]);
  });

  it('drops a search fee whose provider meaning is unknown rather than guessing it', () => {
    const result = plan({
      m: `{"litellm_provider": "newcloud", "input_cost_per_token": 1e-06, "output_cost_per_token": 2e-06,
        "search_context_cost_per_query": {"search_context_size_low": 0.01, "search_context_size_medium": 0.01, "search_context_size_high": 0.01}}`,
    });
    expect(bodies(result)['m|standard']?.web_search_usd_per_call).toBeUndefined();
    expect(result.dropped).toEqual([expect.objectContaining({ field: 'search_context_cost_per_query', code: 'unknown_field', reason: 'no known meaning for provider "newcloud"' })]);
  });
});

describe('planLitellmCatalog properties', () => {
  const microUsdPerMtok = fc.bigInt({ min: 1n, max: 10n ** 12n });
  /** USD per token with 12 decimals is USD per Mtok with 6. */
  const perToken = (value: bigint) => formatScaledDecimal(value, 12);
  const perMtok = (value: bigint) => formatScaledDecimal(value, 6);

  it('imports any per-token price with at most 12 decimals exactly, in every variant', () => {
    fc.assert(
      fc.property(microUsdPerMtok, microUsdPerMtok, microUsdPerMtok, (input, output, flexInput) => {
        const result = plan({ m: `{"input_cost_per_token": ${perToken(input)}, "output_cost_per_token": ${perToken(output)}, "input_cost_per_token_flex": ${perToken(flexInput)}}` });
        const all = bodies(result);
        expect(all['m|standard']).toMatchObject({ input_usd_per_mtok: perMtok(input), output_usd_per_mtok: perMtok(output) });
        expect(all['m|flex']).toMatchObject({ input_usd_per_mtok: perMtok(flexInput), output_usd_per_mtok: perMtok(output) });
      }),
    );
  });

  it('a multiplied variant is the standard price times the multiplier exactly, or skipped for precision', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.integer({ min: 1, max: 99 }), (microUsdPerMtok, tenths) => {
        const multiplier = formatScaledDecimal(BigInt(tenths), 1);
        const text = formatScaledDecimal(microUsdPerMtok, 12);
        const result = plan({ m: `{"input_cost_per_token": ${text}, "output_cost_per_token": ${text}, "provider_specific_entry": {"us": ${multiplier}}}` });
        const product = microUsdPerMtok * BigInt(tenths);
        if (product % 10n === 0n) {
          expect(bodies(result)['m|us']?.input_usd_per_mtok).toBe(formatScaledDecimal(product / 10n, 6));
        } else {
          expect(result.skipped).toEqual([expect.objectContaining({ variant: 'us', code: 'precision' })]);
        }
      }),
    );
  });
});
