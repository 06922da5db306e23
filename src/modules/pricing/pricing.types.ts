// Shared shapes of the price catalog (docs/pricing.md); amounts in atto-USD per million tokens,
// fees in atto-USD.

/**
 * Every per-kind price of a version, by its field name. None is required of every version: a
 * version needs a price only for the kinds an event uses (pricing.md), e.g. an image model with an
 * output image price and no text output price.
 */
export const PRICE_FIELDS = [
  'inputAttoPerMtok',
  'outputAttoPerMtok',
  'cachedInputAttoPerMtok',
  'cacheWrite5mAttoPerMtok',
  'cacheWrite1hAttoPerMtok',
  'inputAudioAttoPerMtok',
  'cachedInputAudioAttoPerMtok',
  'outputAudioAttoPerMtok',
  'inputImageAttoPerMtok',
  'outputImageAttoPerMtok',
  'reasoningAttoPerMtok',
] as const;
export type PriceField = (typeof PRICE_FIELDS)[number];
/** The kinds with a parent; input and output are the roots. */
export type OptionalPriceField = Exclude<PriceField, 'inputAttoPerMtok' | 'outputAttoPerMtok'>;

/** A kind without a price of its own bills at its parent's (after the tier overlay). */
export const PRICE_PARENT: Readonly<Record<OptionalPriceField, PriceField>> = {
  cachedInputAttoPerMtok: 'inputAttoPerMtok',
  cacheWrite5mAttoPerMtok: 'inputAttoPerMtok',
  cacheWrite1hAttoPerMtok: 'cacheWrite5mAttoPerMtok',
  inputAudioAttoPerMtok: 'inputAttoPerMtok',
  cachedInputAudioAttoPerMtok: 'inputAudioAttoPerMtok',
  inputImageAttoPerMtok: 'inputAttoPerMtok',
  outputAudioAttoPerMtok: 'outputAttoPerMtok',
  outputImageAttoPerMtok: 'outputAttoPerMtok',
  reasoningAttoPerMtok: 'outputAttoPerMtok',
};

/**
 * The prices of a version as stored; null = the parent's price, and a root (input, output) that is
 * null leaves its kinds without a price: an event using one of them is unpriced.
 */
export type KindPrices = { [K in PriceField]: bigint | null };

/**
 * A context tier: when the request's prompt_tokens passes `aboveInputTokens` (`>`, or `>=` when
 * inclusive) the tier's listed prices replace the base ones for the whole request.
 */
export interface ContextTier {
  aboveInputTokens: number;
  inclusive: boolean;
  prices: Partial<Record<PriceField, bigint>>;
}

export type WebSearchBilling = 'per_call' | 'per_request';

/** What a version charges: everything but its identity. What the importers build. */
export interface PriceTerms extends KindPrices {
  /** Ascending by aboveInputTokens, distinct thresholds. */
  tiers: readonly ContextTier[];
  webSearchAttoPerCall: bigint | null;
  /** Set exactly when webSearchAttoPerCall is. */
  webSearchBilling: WebSearchBilling | null;
  requestAtto: bigint | null;
}

export const DEFAULT_PRICE_VARIANT = 'standard';

export interface PriceVersion extends PriceTerms {
  id: bigint;
  model: string;
  /** "standard" unless the model is also sold another way (flex, batch, us, low, ...). */
  variant: string;
  effectiveFrom: Date;
}

/** An immutable view of all price versions, answering "which price was in force". */
export interface PriceBook {
  priceAt(model: string, at: Date, variant?: string): PriceVersion | null;
}

/**
 * Every usage kind of docs/pricing.md, OpenAI containment: prompt contains cached, cache writes,
 * audio and image input; cached contains cached audio; completion contains reasoning, audio and
 * image output. Absent kinds are 0. What the REST/queue schema and the stream extractor produce.
 */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  reasoningTokens: number;
  cacheWrite5mTokens: number;
  cacheWrite1hTokens: number;
  promptAudioTokens: number;
  cachedAudioTokens: number;
  promptImageTokens: number;
  completionAudioTokens: number;
  completionImageTokens: number;
  webSearchCalls: number;
}

/** The kinds beyond the original four, all 0: spread into a plain text usage. */
export const NO_EXTRA_USAGE = Object.freeze({
  cacheWrite5mTokens: 0,
  cacheWrite1hTokens: 0,
  promptAudioTokens: 0,
  cachedAudioTokens: 0,
  promptImageTokens: 0,
  completionAudioTokens: 0,
  completionImageTokens: 0,
  webSearchCalls: 0,
});

/** The terms beyond input/output/cached input, all absent: spread into a plain text price. */
export const NO_EXTRA_PRICES = Object.freeze({
  cacheWrite5mAttoPerMtok: null,
  cacheWrite1hAttoPerMtok: null,
  inputAudioAttoPerMtok: null,
  cachedInputAudioAttoPerMtok: null,
  outputAudioAttoPerMtok: null,
  inputImageAttoPerMtok: null,
  outputImageAttoPerMtok: null,
  reasoningAttoPerMtok: null,
  tiers: Object.freeze([]) as readonly ContextTier[],
  webSearchAttoPerCall: null,
  webSearchBilling: null,
  requestAtto: null,
});
