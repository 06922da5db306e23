import type { VersionDraft } from './catalog-price-body.js';
import { compareCatalogs, inForceAt } from './price-catalog-compare.js';

const MICRO = 1_000_000n;

function version(overrides: Partial<VersionDraft>): VersionDraft {
  return { model: 'm', variant: 'standard', prices: { input: 3n * MICRO, output: 15n * MICRO }, tiers: [], webSearch: null, requestFeePicoUsd: null, effectiveFrom: null, ...overrides };
}

describe('compareCatalogs', () => {
  it('compares LiteLLM with the genai-prices version in force at the instant, kind by kind', () => {
    const genai = [
      version({ effectiveFrom: new Date('2020-01-01T00:00:00Z'), prices: { input: 5n * MICRO, output: 15n * MICRO } }),
      version({
        effectiveFrom: new Date('2026-03-13T00:00:00Z'),
        prices: { input: 3n * MICRO, output: 15n * MICRO, cache_write_5m: 3_750_000n },
        tiers: [{ aboveInputTokens: 199_999, inclusive: false, prices: { input: 6n * MICRO } }],
        webSearch: { feePicoUsd: 10_000_000_000n, billing: 'per_call' },
      }),
      version({ model: 'same' }),
      version({ model: 'later', effectiveFrom: new Date('2027-01-01T00:00:00Z') }),
    ];
    const litellm = [
      version({ prices: { input: 3n * MICRO, output: 15n * MICRO, cached_input: 300_000n }, tiers: [{ aboveInputTokens: 200_000, inclusive: false, prices: { input: 6n * MICRO } }] }),
      version({ variant: 'flex' }),
      version({ model: 'same' }),
      version({ model: 'later' }),
      version({ model: 'litellm-only' }),
    ];
    const result = compareCatalogs({ litellm, genai, at: new Date('2026-07-24T00:00:00Z') });
    expect(result).toEqual({
      compared: 2,
      agreeing: 1,
      disagreements: [
        { model: 'm', what: 'only_litellm', kind: 'cached_input', price: '0.3' },
        { model: 'm', what: 'only_genai', kind: 'cache_write_5m', price: '3.75' },
        { model: 'm', what: 'tiers', litellm: '>200000: input 6', genai: '>199999: input 6' },
        { model: 'm', what: 'web_search', litellm: 'none', genai: '0.01 per_call' },
      ],
    });
    expect(inForceAt(genai, new Date('2026-03-12T23:59:59Z')).get('m')?.prices.input).toBe(5n * MICRO);
  });
});
