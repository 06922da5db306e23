// Differential test: the service's exact arithmetic (pricing-math.ts) against @pydantic/genai-prices'
// float calcPrice, over its own bundled models imported as dated versions and random usage of every
// kind. genai-prices computes in binary floats, so the comparison allows its rounding error.
import { jest } from '@jest/globals';
import { calcPrice, type Provider } from '@pydantic/genai-prices';
import fc from 'fast-check';
import { toPriceBody, type VersionDraft } from './catalog-price-body.js';
import { bundledGenaiProviders } from './genai-prices-catalog.js';
import { planGenaiModel, type GenaiTarget } from './genai-prices-plan.js';
import { inForceAt } from './price-catalog-compare.js';
import { priceDraftFromBody } from './price-terms.js';
import { officialCostAtto } from './pricing-math.js';
import { createPriceSchema } from './pricing.schemas.js';
import type { PriceTerms, TokenUsage } from './pricing.types.js';

/** genai-prices' sums of products of floats: relative error far below 1e-12 for these magnitudes. */
const RELATIVE_TOLERANCE = 1e-9;
const ABSOLUTE_TOLERANCE_USD = 1e-15;
const RUNS = 1000;

interface Sample {
  provider: Provider;
  modelId: string;
  versions: VersionDraft[];
}

let samples: Sample[] = [];

beforeAll(async () => {
  const providers = await bundledGenaiProviders();
  samples = providers.flatMap((provider) =>
    provider.models
      // Time-of-day prices have no version here (dropped on import): those models differ by design.
      .filter((model) => !(Array.isArray(model.prices) && model.prices.some((p) => p.constraint?.type === 'time_of_date')))
      .map((model) => ({ provider, modelId: model.id, plan: planGenaiModel({ model: model.id, info: model as GenaiTarget['info'] }) }))
      // A skipped dated price would leave an older version in force here: compare only whole histories.
      .filter(({ plan }) => plan.skipped.length === 0 && plan.versions.length > 0)
      .map(({ provider: p, modelId, plan }) => ({ provider: p, modelId, versions: plan.versions })),
  );
});

function termsOf(version: VersionDraft): PriceTerms {
  return priceDraftFromBody(createPriceSchema.parse(toPriceBody(version)));
}

/** A token (or call) count from 0 to max. */
const count = (max: number) => fc.integer({ min: 0, max });

const usageArbitrary = fc
  .record({
    text: count(300_000),
    cachedText: count(100_000),
    cacheWrite5m: count(50_000),
    cacheWrite1h: count(50_000),
    cachedAudio: count(5_000),
    uncachedAudio: count(20_000),
    promptImage: count(10_000),
    textOutput: count(50_000),
    reasoning: count(30_000),
    completionAudio: count(10_000),
    completionImage: count(5_000),
    webSearchCalls: count(5),
  })
  .map(
    (p): TokenUsage => ({
      promptTokens: p.text + p.cachedText + p.cachedAudio + p.cacheWrite5m + p.cacheWrite1h + p.uncachedAudio + p.promptImage,
      cachedTokens: p.cachedText + p.cachedAudio,
      cacheWrite5mTokens: p.cacheWrite5m,
      cacheWrite1hTokens: p.cacheWrite1h,
      promptAudioTokens: p.cachedAudio + p.uncachedAudio,
      cachedAudioTokens: p.cachedAudio,
      promptImageTokens: p.promptImage,
      completionTokens: p.textOutput + p.reasoning + p.completionAudio + p.completionImage,
      reasoningTokens: p.reasoning,
      completionAudioTokens: p.completionAudio,
      completionImageTokens: p.completionImage,
      webSearchCalls: p.webSearchCalls,
    }),
  );

/** Our usage in genai-prices' keys: totals contain their parts there too. */
function genaiUsage(u: TokenUsage): Record<string, number> {
  return {
    input_tokens: u.promptTokens,
    cache_read_tokens: u.cachedTokens,
    cache_audio_read_tokens: u.cachedAudioTokens,
    cache_write_tokens: u.cacheWrite5mTokens + u.cacheWrite1hTokens,
    cache_write_1h_tokens: u.cacheWrite1hTokens,
    input_audio_tokens: u.promptAudioTokens,
    input_image_tokens: u.promptImageTokens,
    output_tokens: u.completionTokens,
    output_reasoning_tokens: u.reasoningTokens,
    output_audio_tokens: u.completionAudioTokens,
    output_image_tokens: u.completionImageTokens,
    web_searches: u.webSearchCalls,
  };
}

/**
 * The one rule where the two differ by design: without a cached-audio price, pricing.md bills a
 * cached audio token at the audio input price (then input); genai-prices at the cache-read price.
 * Such usage is compared without cached audio (docs/pricing.md lists the difference).
 */
function withoutUnpricedCachedAudio(u: TokenUsage, version: VersionDraft): TokenUsage {
  if (version.prices.cached_input_audio !== undefined || u.cachedAudioTokens === 0) return u;
  const n = u.cachedAudioTokens;
  return { ...u, promptTokens: u.promptTokens - n, cachedTokens: u.cachedTokens - n, promptAudioTokens: u.promptAudioTokens - n, cachedAudioTokens: 0 };
}

describe('exact arithmetic against @pydantic/genai-prices (differential)', () => {
  it(`agrees within float tolerance on ${RUNS} random (model, instant, usage) triples`, () => {
    expect(samples.length).toBeGreaterThan(1000);
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    let compared = 0;
    try {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: samples.length - 1 }),
          fc.date({ min: new Date('2024-01-01T00:00:00Z'), max: new Date('2027-06-30T00:00:00Z'), noInvalidDate: true }),
          usageArbitrary,
          (index, at, generated) => {
            let usage = generated;
            const sample = samples[index]!;
            const version = inForceAt(sample.versions, at).get(sample.modelId);
            if (!version) return;
            usage = withoutUnpricedCachedAudio(usage, version);
            let theirs: ReturnType<typeof calcPrice>;
            try {
              theirs = calcPrice(genaiUsage(usage), sample.modelId, { provider: sample.provider, timestamp: at });
            } catch {
              return; // genai-prices refuses this usage for this model's units (a missing join price)
            }
            if (theirs === null || theirs.model.id !== sample.modelId) return;
            const oursUsd = Number(officialCostAtto(usage, termsOf(version))) / 1e18;
            const tolerance = Math.max(ABSOLUTE_TOLERANCE_USD, RELATIVE_TOLERANCE * Math.abs(theirs.total_price));
            expect({ model: sample.modelId, at: at.toISOString(), diff: Math.abs(oursUsd - theirs.total_price) <= tolerance ? 0 : oursUsd - theirs.total_price }).toEqual({
              model: sample.modelId,
              at: at.toISOString(),
              diff: 0,
            });
            compared += 1;
          },
        ),
        { numRuns: RUNS, seed: 13 },
      );
    } finally {
      warn.mockRestore();
    }
    expect(compared).toBeGreaterThan(RUNS / 2);
  });
});
