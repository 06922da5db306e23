import fc from 'fast-check';
import { formatAttoAsUsd, parseMultiplier, parseUsdToAtto } from '../../common/money/index.js';
import { createPriceBook } from './price-book.js';
import { billedTokens, kindPrice, officialCostAtto, priceUsage, selectTier, usageContainmentProblem } from './pricing-math.js';
import { NO_EXTRA_PRICES, NO_EXTRA_USAGE, PRICE_FIELDS, PRICE_PARENT, type ContextTier, type OptionalPriceField, type PriceField, type PriceTerms, type PriceVersion, type TokenUsage } from './pricing.types.js';

// Hand-derived cases: each expected amount is worked out in the comment from the provider's list
// price (USD per million tokens) and written as the decimal USD it comes to, never recomputed here.

const usd = (text: string) => parseUsdToAtto(text, { decimalsMax: 12 });
const markup = parseMultiplier('1.3');
const standardPayout = parseMultiplier('1.1');
const premiumPayout = parseMultiplier('1.2');

type PriceUsd = Partial<Record<PriceField, string>>;
function terms(base: PriceUsd, extra: { tiers?: Array<{ above: number; inclusive?: boolean; prices: PriceUsd }>; webSearch?: string; webSearchBilling?: 'per_call' | 'per_request'; request?: string } = {}): PriceTerms {
  const out: Record<string, unknown> = { ...NO_EXTRA_PRICES, cachedInputAttoPerMtok: null, inputAttoPerMtok: null, outputAttoPerMtok: null };
  for (const [field, value] of Object.entries(base)) out[field] = usd(value);
  out.tiers = (extra.tiers ?? []).map((t): ContextTier => ({
    aboveInputTokens: t.above,
    inclusive: t.inclusive ?? false,
    prices: Object.fromEntries(Object.entries(t.prices).map(([f, v]) => [f, usd(v)])),
  }));
  out.webSearchAttoPerCall = extra.webSearch === undefined ? null : usd(extra.webSearch);
  out.webSearchBilling = extra.webSearch === undefined ? null : (extra.webSearchBilling ?? 'per_call');
  out.requestAtto = extra.request === undefined ? null : usd(extra.request);
  return out as unknown as PriceTerms;
}
const usage = (u: Partial<TokenUsage> & { promptTokens: number; completionTokens: number }): TokenUsage => ({ ...NO_EXTRA_USAGE, cachedTokens: 0, reasoningTokens: 0, ...u });
const official = (u: TokenUsage, p: PriceTerms) => formatAttoAsUsd(officialCostAtto(u, p)!);

// Claude Sonnet 4.5: $3 / $15, cache read $0.30, cache write 5m $3.75 (1.25x), 1h $6 (2x); the
// whole request above 200k prompt tokens: $6 / $22.50, read $0.60, 5m $7.50, 1h $12.
const claudeSonnet = terms(
  { inputAttoPerMtok: '3', outputAttoPerMtok: '15', cachedInputAttoPerMtok: '0.3', cacheWrite5mAttoPerMtok: '3.75', cacheWrite1hAttoPerMtok: '6' },
  { tiers: [{ above: 200_000, prices: { inputAttoPerMtok: '6', outputAttoPerMtok: '22.5', cachedInputAttoPerMtok: '0.6', cacheWrite5mAttoPerMtok: '7.5', cacheWrite1hAttoPerMtok: '12' } }], webSearch: '0.01' },
);
// The `us` variant (US-only inference): every price x1.1, entered as its own version.
const claudeSonnetUs = terms(
  { inputAttoPerMtok: '3.3', outputAttoPerMtok: '16.5', cachedInputAttoPerMtok: '0.33', cacheWrite5mAttoPerMtok: '4.125', cacheWrite1hAttoPerMtok: '6.6' },
  { tiers: [{ above: 200_000, prices: { inputAttoPerMtok: '6.6', outputAttoPerMtok: '24.75', cachedInputAttoPerMtok: '0.66', cacheWrite5mAttoPerMtok: '8.25', cacheWrite1hAttoPerMtok: '13.2' } }] },
);
const claudeLong = usage({ promptTokens: 250_000, cachedTokens: 100_000, cacheWrite5mTokens: 20_000, cacheWrite1hTokens: 10_000, completionTokens: 2_000 });

describe('officialCostAtto: one table per dimension, amounts derived by hand', () => {
  it('Claude 5m/1h cache writes above 200k: the whole request at the long-context rates', () => {
    // text input 250,000 - 100,000 - 20,000 - 10,000 = 120,000 x $6 = 0.72; cache read 100,000 x
    // $0.60 = 0.06; 5m write 20,000 x $7.50 = 0.15; 1h write 10,000 x $12 = 0.12; output 2,000 x
    // $22.50 = 0.045. Total 1.095.
    expect(official(claudeLong, claudeSonnet)).toBe('1.095');
    // At exactly 200,000 the tier (> 200k) does not apply: 120,000-cached... here prompt 200,000 with
    // 50,000 5m writes: text 150,000 x $3 = 0.45; 50,000 x $3.75 = 0.1875; output 1,000 x $15 = 0.015.
    expect(official(usage({ promptTokens: 200_000, cacheWrite5mTokens: 50_000, completionTokens: 1_000 }), claudeSonnet)).toBe('0.6525');
  });

  it('Claude web search: $10 per 1,000 calls, per call', () => {
    // 10,000 x $3 = 0.03; 500 x $15 = 0.0075; 3 calls x 0.01 = 0.03. Total 0.0675.
    expect(official(usage({ promptTokens: 10_000, completionTokens: 500, webSearchCalls: 3 }), claudeSonnet)).toBe('0.0675');
  });

  it('Claude `us` variant at 1.1x, charged 1.3x and paid 1.1x/1.2x exactly', () => {
    // 120,000 x 6.6 = 0.792; 100,000 x 0.66 = 0.066; 20,000 x 8.25 = 0.165; 10,000 x 13.2 = 0.132;
    // 2,000 x 24.75 = 0.0495. Total 1.2045 (= 1.095 x 1.1).
    const standard = priceUsage({ usage: claudeLong, price: claudeSonnetUs, userMarkup: markup, payoutMultiplier: standardPayout })!;
    expect(formatAttoAsUsd(standard.officialAtto)).toBe('1.2045');
    expect(formatAttoAsUsd(standard.chargeAtto)).toBe('1.56585'); // 1.2045 x 1.3
    expect(formatAttoAsUsd(standard.payoutAtto)).toBe('1.32495'); // 1.2045 x 1.1
    expect(formatAttoAsUsd(standard.marginAtto)).toBe('0.2409');
    const premium = priceUsage({ usage: claudeLong, price: claudeSonnetUs, userMarkup: markup, payoutMultiplier: premiumPayout })!;
    expect(formatAttoAsUsd(premium.payoutAtto)).toBe('1.4454'); // 1.2045 x 1.2
    expect(formatAttoAsUsd(premium.marginAtto)).toBe('0.12045');
  });

  it('Gemini 2.5 Pro above 200k: input, cache and output all at the higher rate', () => {
    // $1.25 / $10, cached $0.125; above 200k: $2.50 / $15, cached $0.25. Thinking bills as output.
    const gemini = terms(
      { inputAttoPerMtok: '1.25', outputAttoPerMtok: '10', cachedInputAttoPerMtok: '0.125' },
      { tiers: [{ above: 200_000, prices: { inputAttoPerMtok: '2.5', outputAttoPerMtok: '15', cachedInputAttoPerMtok: '0.25' } }] },
    );
    // 250,000 x 2.5 = 0.625; 50,000 x 0.25 = 0.0125; 10,000 (8,000 reasoning) x 15 = 0.15.
    expect(official(usage({ promptTokens: 300_000, cachedTokens: 50_000, completionTokens: 10_000, reasoningTokens: 8_000 }), gemini)).toBe('0.7875');
    // 150,000 x 1.25 = 0.1875; 50,000 x 0.125 = 0.00625; 10,000 x 10 = 0.1.
    expect(official(usage({ promptTokens: 200_000, cachedTokens: 50_000, completionTokens: 10_000 }), gemini)).toBe('0.29375');
  });

  it('gpt-4o-audio: audio tokens at the audio prices, text at the text prices', () => {
    // gpt-4o-audio-preview: text $2.50 / $10, audio in $40, audio out $80.
    const audio = terms({ inputAttoPerMtok: '2.5', outputAttoPerMtok: '10', inputAudioAttoPerMtok: '40', outputAudioAttoPerMtok: '80' });
    // text in 200 x 2.5 = 0.0005; audio in 800 x 40 = 0.032; text out 100 x 10 = 0.001; audio out 400 x 80 = 0.032.
    expect(official(usage({ promptTokens: 1_000, promptAudioTokens: 800, completionTokens: 500, completionAudioTokens: 400 }), audio)).toBe('0.0655');
  });

  it('gpt-realtime: cached audio at its own price, cached text at the cached price', () => {
    // text $4 / $16, cached $0.40; audio in $32, cached audio $0.40, audio out $64.
    const realtime = terms({ inputAttoPerMtok: '4', outputAttoPerMtok: '16', cachedInputAttoPerMtok: '0.4', inputAudioAttoPerMtok: '32', cachedInputAudioAttoPerMtok: '0.4', outputAudioAttoPerMtok: '64' });
    // prompt 10,000: cached 6,000 (5,000 of them audio), audio 8,000 -> text 10,000-6,000-3,000 = 1,000 x 4 = 0.004;
    // cached text 1,000 x 0.4 = 0.0004; audio 3,000 x 32 = 0.096; cached audio 5,000 x 0.4 = 0.002;
    // text out 500 x 16 = 0.008; audio out 1,500 x 64 = 0.096. Total 0.2064.
    const u = usage({ promptTokens: 10_000, cachedTokens: 6_000, promptAudioTokens: 8_000, cachedAudioTokens: 5_000, completionTokens: 2_000, completionAudioTokens: 1_500 });
    expect(official(u, realtime)).toBe('0.2064');
  });

  it('Gemini image output: image tokens at the image price', () => {
    // gemini-2.5-flash-image: $0.30 in, $2.50 text out, $30 per Mtok image out (1,290 tokens = $0.039).
    const image = terms({ inputAttoPerMtok: '0.3', outputAttoPerMtok: '2.5', outputImageAttoPerMtok: '30' });
    // 500 x 0.3 = 0.00015; 10 x 2.5 = 0.000025; 1,290 x 30 = 0.0387.
    expect(official(usage({ promptTokens: 500, completionTokens: 1_300, completionImageTokens: 1_290 }), image)).toBe('0.038875');
  });

  it('gpt-image-1: an output image price and no text output price prices all-image output (#24 item 8)', () => {
    // gpt-image-1: $5 text in, $1.25 cached text in, $10 image in, $40 per Mtok image out, no text out.
    const image = terms({ inputAttoPerMtok: '5', cachedInputAttoPerMtok: '1.25', inputImageAttoPerMtok: '10', outputImageAttoPerMtok: '40' });
    // 50 x 5 = 0.00025; 1,000 x 10 = 0.01; 4,160 x 40 = 0.1664 (a 1024x1536 high-quality image).
    const allImage = usage({ promptTokens: 1_050, promptImageTokens: 1_000, completionTokens: 4_160, completionImageTokens: 4_160 });
    expect(official(allImage, image)).toBe('0.17665');
    // One text output token uses a kind without a price: unpriced, never billed at another price.
    expect(officialCostAtto(usage({ promptTokens: 50, completionTokens: 4_161, completionImageTokens: 4_160 }), image)).toBeNull();
    expect(priceUsage({ usage: usage({ promptTokens: 50, completionTokens: 1 }), price: image, userMarkup: markup, payoutMultiplier: standardPayout })).toBeNull();
  });

  it('an audio-only version: text input without a price is unpriced, audio alone is priced', () => {
    // A TTS-like model: $2.5 per Mtok audio in... only audio prices.
    const audio = terms({ inputAudioAttoPerMtok: '2.5', outputAudioAttoPerMtok: '10' });
    // 400 x 2.5 = 0.001; 1,000 x 10 = 0.01.
    expect(official(usage({ promptTokens: 400, promptAudioTokens: 400, completionTokens: 1_000, completionAudioTokens: 1_000 }), audio)).toBe('0.011');
    expect(officialCostAtto(usage({ promptTokens: 401, promptAudioTokens: 400, completionTokens: 0 }), audio)).toBeNull();
  });

  it('Perplexity sonar-pro: a per-request fee by search context size, one variant each', () => {
    // $3 / $15 plus $6 / $10 / $14 per 1,000 requests (low / medium / high).
    const sonar = (fee: string) => terms({ inputAttoPerMtok: '3', outputAttoPerMtok: '15' }, { request: fee });
    const u = usage({ promptTokens: 1_000, completionTokens: 500 });
    // 1,000 x 3 = 0.003; 500 x 15 = 0.0075; + the request fee.
    expect(official(u, sonar('0.006'))).toBe('0.0165');
    expect(official(u, sonar('0.01'))).toBe('0.0205');
    expect(official(u, sonar('0.014'))).toBe('0.0245');
  });

  it('Gemini 2.x grounding: one fee per grounded request, however many queries', () => {
    // $0.30 / $2.50 plus $35 per 1,000 grounded requests.
    const flash = terms({ inputAttoPerMtok: '0.3', outputAttoPerMtok: '2.5' }, { webSearch: '0.035', webSearchBilling: 'per_request' });
    // 1,000 x 0.3 = 0.0003; 100 x 2.5 = 0.00025; + 0.035 once for 5 queries.
    expect(official(usage({ promptTokens: 1_000, completionTokens: 100, webSearchCalls: 5 }), flash)).toBe('0.03555');
    expect(official(usage({ promptTokens: 1_000, completionTokens: 100 }), flash)).toBe('0.00055');
  });

  it('gpt-5 flex: the flex variant has its own (half) prices', () => {
    const standard = terms({ inputAttoPerMtok: '1.25', outputAttoPerMtok: '10', cachedInputAttoPerMtok: '0.125' });
    const flex = terms({ inputAttoPerMtok: '0.625', outputAttoPerMtok: '5', cachedInputAttoPerMtok: '0.0625' });
    const u = usage({ promptTokens: 20_000, cachedTokens: 10_000, completionTokens: 5_000, reasoningTokens: 4_000 });
    // flex: 10,000 x 0.625 = 0.00625; 10,000 x 0.0625 = 0.000625; 5,000 x 5 = 0.025.
    expect(official(u, flex)).toBe('0.031875');
    // standard: 0.0125 + 0.00125 + 0.05.
    expect(official(u, standard)).toBe('0.06375');
  });

  it('Qwen range tiers (0, 32k], (32k, 128k], (128k, 252k] as base + tiers above 32k and 128k', () => {
    // qwen3-max: $1.20 / $6; above 32k $2.40 / $12; above 128k $3 / $15.
    const qwen = terms(
      { inputAttoPerMtok: '1.2', outputAttoPerMtok: '6' },
      { tiers: [{ above: 32_000, prices: { inputAttoPerMtok: '2.4', outputAttoPerMtok: '12' } }, { above: 128_000, prices: { inputAttoPerMtok: '3', outputAttoPerMtok: '15' } }] },
    );
    // 32,000 x 1.2 = 0.0384; 1,000 x 6 = 0.006.
    expect(official(usage({ promptTokens: 32_000, completionTokens: 1_000 }), qwen)).toBe('0.0444');
    // 32,001 x 2.4 = 0.0768024; 1,000 x 12 = 0.012.
    expect(official(usage({ promptTokens: 32_001, completionTokens: 1_000 }), qwen)).toBe('0.0888024');
    // 128,000 is still in (32k, 128k]: 128,000 x 2.4 = 0.3072; + 0.012.
    expect(official(usage({ promptTokens: 128_000, completionTokens: 1_000 }), qwen)).toBe('0.3192');
    // 200,000 x 3 = 0.6; 1,000 x 15 = 0.015.
    expect(official(usage({ promptTokens: 200_000, completionTokens: 1_000 }), qwen)).toBe('0.615');
  });

  it('an inclusive tier applies from exactly its threshold', () => {
    const p = terms({ inputAttoPerMtok: '1', outputAttoPerMtok: '1' }, { tiers: [{ above: 1_000, inclusive: true, prices: { inputAttoPerMtok: '2' } }] });
    // 999 x 1 = 0.000999; 1,000 x 2 = 0.002 (output stays at the base $1: the tier lists only input).
    expect(official(usage({ promptTokens: 999, completionTokens: 0 }), p)).toBe('0.000999');
    expect(official(usage({ promptTokens: 1_000, completionTokens: 1_000 }), p)).toBe('0.003');
  });

  it('parent fallback after the overlay: 1h write -> 5m write, cached audio -> audio, reasoning -> output', () => {
    // Base lists 5m writes at $3.75 and a tier lists 5m at $7.50 only: a 1h write above the tier
    // bills at the tier's 5m price (the version has no 1h price of its own).
    const p = terms({ inputAttoPerMtok: '3', outputAttoPerMtok: '15', cacheWrite5mAttoPerMtok: '3.75' }, { tiers: [{ above: 100, prices: { cacheWrite5mAttoPerMtok: '7.5' } }] });
    // 100 x 3 (text) = 0.0003 ... prompt 1,100: 1h 1,000 x 7.5 = 0.0075; text 100 x 3 = 0.0003.
    expect(official(usage({ promptTokens: 1_100, cacheWrite1hTokens: 1_000, completionTokens: 0 }), p)).toBe('0.0078');
    // Below the tier: 1h 50 x 3.75 = 0.0001875; text 50 x 3 = 0.00015; reasoning 10 x 15 = 0.00015.
    expect(official(usage({ promptTokens: 100, cacheWrite1hTokens: 50, completionTokens: 10, reasoningTokens: 10 }), p)).toBe('0.0004875');
  });

  it('a reasoning price of its own bills reasoning tokens apart from the rest of the output', () => {
    const p = terms({ inputAttoPerMtok: '1', outputAttoPerMtok: '4', reasoningAttoPerMtok: '3.5' });
    // 1,000 x 1 = 0.001; 600 x 4 = 0.0024; 400 x 3.5 = 0.0014.
    expect(official(usage({ promptTokens: 1_000, completionTokens: 1_000, reasoningTokens: 400 }), p)).toBe('0.0048');
  });
});

describe('usageContainmentProblem', () => {
  it('names the field that does not fit', () => {
    expect(usageContainmentProblem(usage({ promptTokens: 10, cachedTokens: 5, cacheWrite5mTokens: 6, completionTokens: 0 }))?.field).toBe('cache_write_5m_tokens');
    expect(usageContainmentProblem(usage({ promptTokens: 10, cachedTokens: 2, cachedAudioTokens: 3, promptAudioTokens: 5, completionTokens: 0 }))?.field).toBe('cached_audio_tokens');
    expect(usageContainmentProblem(usage({ promptTokens: 10, promptAudioTokens: 2, cachedAudioTokens: 3, cachedTokens: 3, completionTokens: 0 }))?.field).toBe('cached_audio_tokens');
    expect(usageContainmentProblem(usage({ promptTokens: 10, completionTokens: 5, reasoningTokens: 3, completionImageTokens: 3 }))?.field).toBe('completion_image_tokens');
    expect(usageContainmentProblem(usage({ promptTokens: 10, cachedTokens: 4, cachedAudioTokens: 4, promptAudioTokens: 10, completionTokens: 0 }))).toBeNull();
  });
});

// ---- properties ---------------------------------------------------------------------------

const count = fc.integer({ min: 0, max: 5_000_000 });
/** Any usage that satisfies containment, built part by part. */
const validUsage: fc.Arbitrary<TokenUsage> = fc
  .record({ text: count, cachedText: count, cachedAudio: count, audio: count, image: count, w5: count, w1: count, outText: count, reasoning: count, outAudio: count, outImage: count, calls: fc.integer({ min: 0, max: 20 }) })
  .map((p) => ({
    promptTokens: p.text + p.cachedText + p.cachedAudio + p.audio + p.image + p.w5 + p.w1,
    cachedTokens: p.cachedText + p.cachedAudio,
    cachedAudioTokens: p.cachedAudio,
    promptAudioTokens: p.audio + p.cachedAudio,
    promptImageTokens: p.image,
    cacheWrite5mTokens: p.w5,
    cacheWrite1hTokens: p.w1,
    completionTokens: p.outText + p.reasoning + p.outAudio + p.outImage,
    reasoningTokens: p.reasoning,
    completionAudioTokens: p.outAudio,
    completionImageTokens: p.outImage,
    webSearchCalls: p.calls,
  }));
const anyUsage: fc.Arbitrary<TokenUsage> = fc.record({
  promptTokens: count, completionTokens: count, cachedTokens: count, reasoningTokens: count, cacheWrite5mTokens: count, cacheWrite1hTokens: count,
  promptAudioTokens: count, cachedAudioTokens: count, promptImageTokens: count, completionAudioTokens: count, completionImageTokens: count, webSearchCalls: count,
});
/** USD per Mtok with up to 6 decimals, as atto. */
const perMtok = fc.bigInt({ min: 0n, max: 200_000_000n }).map((micro) => micro * 10n ** 12n);
const maybePrice = fc.option(perMtok, { nil: null });
const priceSubset = fc.dictionary(fc.constantFrom(...PRICE_FIELDS), perMtok, { maxKeys: 5 }) as fc.Arbitrary<Partial<Record<PriceField, bigint>>>;
const tiersArb = fc
  .uniqueArray(fc.integer({ min: 0, max: 30_000_000 }), { maxLength: 4 })
  .chain((thresholds) => fc.tuple(...thresholds.sort((a, b) => a - b).map((n) => fc.record({ aboveInputTokens: fc.constant(n), inclusive: fc.boolean(), prices: priceSubset }))));
const priceArb: fc.Arbitrary<PriceTerms> = fc.record({
  inputAttoPerMtok: perMtok, outputAttoPerMtok: perMtok, cachedInputAttoPerMtok: maybePrice, cacheWrite5mAttoPerMtok: maybePrice, cacheWrite1hAttoPerMtok: maybePrice,
  inputAudioAttoPerMtok: maybePrice, cachedInputAudioAttoPerMtok: maybePrice, outputAudioAttoPerMtok: maybePrice, inputImageAttoPerMtok: maybePrice,
  outputImageAttoPerMtok: maybePrice, reasoningAttoPerMtok: maybePrice, tiers: tiersArb,
  webSearchAttoPerCall: fc.option(fc.bigInt({ min: 0n, max: 10n ** 18n }).map((pico) => pico * 10n ** 6n), { nil: null }),
  webSearchBilling: fc.constantFrom('per_call' as const, 'per_request' as const),
  requestAtto: fc.option(fc.bigInt({ min: 0n, max: 10n ** 12n }).map((pico) => pico * 10n ** 6n), { nil: null }),
}).map((p) => ({ ...p, webSearchBilling: p.webSearchAttoPerCall === null ? null : p.webSearchBilling }));

/** The rule of pricing.md written out independently: disjoint parts, overlay then parent chain. */
function reference(u: TokenUsage, p: PriceTerms): bigint {
  let tier: ContextTier | undefined;
  for (const t of p.tiers) if (t.inclusive ? u.promptTokens >= t.aboveInputTokens : u.promptTokens > t.aboveInputTokens) tier = t;
  const priceOf = (f: PriceField): bigint => {
    const own = tier && f in tier.prices ? tier.prices[f]! : p[f];
    if (own !== null) return own;
    return priceOf(PRICE_PARENT[f as OptionalPriceField]);
  };
  const parts: Array<[number, PriceField]> = [
    [u.promptTokens - u.cachedTokens - u.cacheWrite5mTokens - u.cacheWrite1hTokens - (u.promptAudioTokens - u.cachedAudioTokens) - u.promptImageTokens, 'inputAttoPerMtok'],
    [u.cachedTokens - u.cachedAudioTokens, 'cachedInputAttoPerMtok'],
    [u.cacheWrite5mTokens, 'cacheWrite5mAttoPerMtok'],
    [u.cacheWrite1hTokens, 'cacheWrite1hAttoPerMtok'],
    [u.promptAudioTokens - u.cachedAudioTokens, 'inputAudioAttoPerMtok'],
    [u.cachedAudioTokens, 'cachedInputAudioAttoPerMtok'],
    [u.promptImageTokens, 'inputImageAttoPerMtok'],
    [u.completionTokens - u.reasoningTokens - u.completionAudioTokens - u.completionImageTokens, 'outputAttoPerMtok'],
    [u.reasoningTokens, 'reasoningAttoPerMtok'],
    [u.completionAudioTokens, 'outputAudioAttoPerMtok'],
    [u.completionImageTokens, 'outputImageAttoPerMtok'],
  ];
  let scaled = 0n;
  for (const [n, f] of parts) scaled += BigInt(n) * priceOf(f);
  let fees = p.requestAtto ?? 0n;
  if (p.webSearchAttoPerCall !== null && u.webSearchCalls > 0) fees += p.webSearchBilling === 'per_request' ? p.webSearchAttoPerCall : p.webSearchAttoPerCall * BigInt(u.webSearchCalls);
  return scaled / 1_000_000n + fees;
}

describe('pricing properties', () => {
  it('containment: valid exactly when the three rules of pricing.md hold', () => {
    fc.assert(
      fc.property(fc.oneof(validUsage, anyUsage), (u) => {
        const holds =
          u.cachedAudioTokens <= Math.min(u.cachedTokens, u.promptAudioTokens) &&
          u.cachedTokens + u.cacheWrite5mTokens + u.cacheWrite1hTokens + (u.promptAudioTokens - u.cachedAudioTokens) + u.promptImageTokens <= u.promptTokens &&
          u.reasoningTokens + u.completionAudioTokens + u.completionImageTokens <= u.completionTokens;
        expect(usageContainmentProblem(u) === null).toBe(holds);
        if (holds) expect(Object.values(billedTokens(u)).every((n) => n >= 0)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('official equals the rule written out independently, and is a whole number of atto', () => {
    fc.assert(fc.property(validUsage, priceArb, (u, p) => expect(officialCostAtto(u, p)).toBe(reference(u, p))), { numRuns: 2000 });
  });

  it('tier choice is monotone in prompt tokens', () => {
    fc.assert(
      fc.property(tiersArb, count, count, (tiers, a, b) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        const index = (n: number) => {
          const t = selectTier(tiers, n);
          return t === undefined ? -1 : tiers.indexOf(t);
        };
        expect(index(low)).toBeLessThanOrEqual(index(high));
      }),
    );
  });

  it('parent fallback: an absent price bills exactly like that price set to its parent', () => {
    fc.assert(
      fc.property(validUsage, priceArb, fc.constantFrom(...(Object.keys(PRICE_PARENT) as OptionalPriceField[])), (u, p, field) => {
        const withoutOwn = { ...p, [field]: null, tiers: p.tiers.map((t) => ({ ...t, prices: Object.fromEntries(Object.entries(t.prices).filter(([f]) => f !== field)) })) };
        const tierOf = selectTier(withoutOwn.tiers, u.promptTokens);
        const explicit = { ...withoutOwn, [field]: kindPrice(withoutOwn, tierOf, PRICE_PARENT[field]) };
        // With the tier's own price of the parent in force, the explicit copy must hold it too.
        const explicitTiers = withoutOwn.tiers.map((t) => (t === tierOf ? { ...t, prices: { ...t.prices, [field]: kindPrice(withoutOwn, tierOf, PRICE_PARENT[field]) } } : t));
        expect(officialCostAtto(u, withoutOwn)).toBe(officialCostAtto(u, { ...explicit, tiers: explicitTiers }));
      }),
      { numRuns: 1000 },
    );
  });

  it('charge == payout + margin, each exactly official x its multiplier', () => {
    fc.assert(
      fc.property(validUsage, priceArb, fc.constantFrom(standardPayout, premiumPayout), (u, p, payoutMultiplier) => {
        const a = priceUsage({ usage: u, price: p, userMarkup: markup, payoutMultiplier })!;
        expect(a.chargeAtto).toBe(a.payoutAtto + a.marginAtto);
        expect(a.chargeAtto * 10n).toBe(a.officialAtto * 13n);
        expect(a.payoutAtto * 10n).toBe(a.officialAtto * (payoutMultiplier === standardPayout ? 11n : 12n));
      }),
      { numRuns: 1000 },
    );
  });

  it('a tier prices the whole request, not only the tokens above its threshold', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 1_000_000 }), count, perMtok, perMtok, (threshold, above, completion, input, output) => {
        const base = { ...NO_EXTRA_PRICES, cachedInputAttoPerMtok: null, inputAttoPerMtok: input, outputAttoPerMtok: output };
        const tiered = { ...base, tiers: [{ aboveInputTokens: threshold, inclusive: false, prices: { inputAttoPerMtok: 2n * input, outputAttoPerMtok: 2n * output } }] };
        const u = usage({ promptTokens: threshold + above, completionTokens: completion });
        expect(officialCostAtto(u, tiered)).toBe(2n * officialCostAtto(u, base)!);
      }),
    );
  });
});

describe('price book variants', () => {
  const at = new Date('2026-06-01T00:00:00Z');
  const version = (variant: string, id: bigint): PriceVersion => ({ ...terms({ inputAttoPerMtok: '3', outputAttoPerMtok: '15' }, { request: '0.006' }), id, model: 'perplexity/sonar-pro', variant, effectiveFrom: new Date('2026-01-01T00:00:00Z') });
  const book = createPriceBook([version('low', 1n), version('high', 2n)]);

  it('finds a version only for the variant named: never another variant', () => {
    expect(book.priceAt('perplexity/sonar-pro', at, 'high')?.id).toBe(2n);
    expect(book.priceAt('perplexity/sonar-pro', at, 'low')?.id).toBe(1n);
    expect(book.priceAt('perplexity/sonar-pro', at)).toBeNull();
    expect(book.priceAt('perplexity/sonar-pro', at, 'medium')).toBeNull();
    expect(book.variantsOf('perplexity/sonar-pro')).toEqual(['high', 'low']);
  });
});
