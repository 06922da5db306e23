// Pure pricing: official price of an event and the user/contributor/platform split, exact.
// The rule set is docs/pricing.md: usage kinds with OpenAI containment, context tiers over the
// whole request, parent fallback after the tier overlay, fees per search call or per request.
import { assert } from '../../common/errors/index.js';
import { multiplyAtto, type DecimalMultiplier } from '../../common/money/index.js';
import { PRICE_PARENT, type ContextTier, type OptionalPriceField, type PriceField, type PriceTerms, type TokenUsage } from './pricing.types.js';

export const TOKENS_PER_MTOK = 1_000_000n;

export interface PricedAmounts {
  officialAtto: bigint;
  chargeAtto: bigint;
  payoutAtto: bigint;
  marginAtto: bigint;
}

/** The usage field a containment rule names, in the wire (snake_case) spelling. */
export interface UsageProblem {
  field: string;
  message: string;
}

/**
 * The containment rules of pricing.md; null when the usage is valid. Names the part that does not
 * fit: cached_audio_tokens <= min(cached, prompt_audio); cached + cache writes + uncached audio +
 * image input <= prompt; reasoning + audio + image output <= completion.
 */
export function usageContainmentProblem(u: TokenUsage): UsageProblem | null {
  if (u.cachedAudioTokens > u.cachedTokens) {
    return { field: 'cached_audio_tokens', message: 'cached_audio_tokens is part of cached_tokens and cannot exceed it' };
  }
  if (u.cachedAudioTokens > u.promptAudioTokens) {
    return { field: 'cached_audio_tokens', message: 'cached_audio_tokens is part of prompt_audio_tokens and cannot exceed it' };
  }
  const inputPart = firstPartOver(u, PROMPT_PARTS, u.promptTokens);
  if (inputPart !== null) return inputProblem(inputPart);
  const outputPart = firstPartOver(u, COMPLETION_PARTS, u.completionTokens);
  if (outputPart !== null) return outputProblem(outputPart);
  return null;
}

type UsagePart = readonly [field: string, tokens: (u: TokenUsage) => number];
/** The disjoint parts of prompt_tokens, in the order a problem names them. */
const PROMPT_PARTS: readonly UsagePart[] = [
  ['cached_tokens', (u) => u.cachedTokens],
  ['cache_write_5m_tokens', (u) => u.cacheWrite5mTokens],
  ['cache_write_1h_tokens', (u) => u.cacheWrite1hTokens],
  ['prompt_audio_tokens', (u) => u.promptAudioTokens - u.cachedAudioTokens],
  ['prompt_image_tokens', (u) => u.promptImageTokens],
];
/** The disjoint parts of completion_tokens, in the order a problem names them. */
const COMPLETION_PARTS: readonly UsagePart[] = [
  ['reasoning_tokens', (u) => u.reasoningTokens],
  ['completion_audio_tokens', (u) => u.completionAudioTokens],
  ['completion_image_tokens', (u) => u.completionImageTokens],
];

/** A running sum, so the first part that no longer fits is the one named (no allocation when valid). */
function firstPartOver(u: TokenUsage, parts: readonly UsagePart[], total: number): string | null {
  let sum = 0;
  for (const [field, tokens] of parts) {
    sum += tokens(u);
    if (sum > total) return field;
  }
  return null;
}

function inputProblem(field: string): UsageProblem {
  return {
    field,
    message: `${field} is part of prompt_tokens: cached + cache_write_5m + cache_write_1h + (prompt_audio - cached_audio) + prompt_image must not exceed prompt_tokens`,
  };
}

function outputProblem(field: string): UsageProblem {
  return { field, message: `${field} is part of completion_tokens: reasoning + completion_audio + completion_image must not exceed completion_tokens` };
}

/**
 * The tier that applies to the whole request: the one with the highest threshold the prompt
 * passes (`> N`, or `>= N` when inclusive); undefined = base prices. Tiers are ascending.
 */
export function selectTier(tiers: readonly ContextTier[], promptTokens: number): ContextTier | undefined {
  for (let i = tiers.length - 1; i >= 0; i -= 1) {
    const tier = tiers[i]!;
    if (tier.inclusive ? promptTokens >= tier.aboveInputTokens : promptTokens > tier.aboveInputTokens) return tier;
  }
  return undefined;
}

/**
 * The price of one kind: the tier's own, else the version's own, else its parent's (recursively);
 * null when the root (input or output) has no price either.
 */
export function kindPrice(price: PriceTerms, tier: ContextTier | undefined, field: PriceField): bigint | null {
  for (let f: PriceField = field; ; f = PRICE_PARENT[f as OptionalPriceField]) {
    const own = tier?.prices[f] ?? price[f];
    if (own !== null && own !== undefined) return own;
    if (f === 'inputAttoPerMtok' || f === 'outputAttoPerMtok') return null;
  }
}

/** The token count billed at each price of a request (disjoint parts of prompt and completion). */
export function billedTokens(u: TokenUsage): Record<PriceField, number> {
  const uncachedAudio = u.promptAudioTokens - u.cachedAudioTokens;
  return {
    inputAttoPerMtok: u.promptTokens - u.cachedTokens - u.cacheWrite5mTokens - u.cacheWrite1hTokens - uncachedAudio - u.promptImageTokens,
    cachedInputAttoPerMtok: u.cachedTokens - u.cachedAudioTokens,
    cacheWrite5mAttoPerMtok: u.cacheWrite5mTokens,
    cacheWrite1hAttoPerMtok: u.cacheWrite1hTokens,
    inputAudioAttoPerMtok: uncachedAudio,
    cachedInputAudioAttoPerMtok: u.cachedAudioTokens,
    inputImageAttoPerMtok: u.promptImageTokens,
    outputAttoPerMtok: u.completionTokens - u.reasoningTokens - u.completionAudioTokens - u.completionImageTokens,
    reasoningAttoPerMtok: u.reasoningTokens,
    outputAudioAttoPerMtok: u.completionAudioTokens,
    outputImageAttoPerMtok: u.completionImageTokens,
  };
}

/**
 * True when the event bills only input, cached input and output (the common plain text event):
 * no cache writes, audio or image, and reasoning (if any) at the output price.
 */
function isPlainText(u: TokenUsage, price: PriceTerms): boolean {
  return (
    price.inputAttoPerMtok !== null &&
    price.outputAttoPerMtok !== null &&
    u.cacheWrite5mTokens === 0 &&
    u.cacheWrite1hTokens === 0 &&
    u.promptAudioTokens === 0 &&
    u.promptImageTokens === 0 &&
    u.completionAudioTokens === 0 &&
    u.completionImageTokens === 0 &&
    (u.reasoningTokens === 0 || price.reasoningAttoPerMtok === null)
  );
}

/** The fees of a request: per web search call (or once per request that searched) and per request. */
export function feesAtto(u: TokenUsage, price: PriceTerms): bigint {
  let fees = price.requestAtto ?? 0n;
  if (price.webSearchAttoPerCall !== null && u.webSearchCalls > 0) {
    fees += price.webSearchBilling === 'per_request' ? price.webSearchAttoPerCall : price.webSearchAttoPerCall * BigInt(u.webSearchCalls);
  }
  return fees;
}

/**
 * official = sum over kinds(tokens_of_kind x price_of_kind_per_mtok) / 1e6 + fees, with the tier
 * chosen by prompt_tokens applied to the whole request. Prices have at most 6 decimals of USD per
 * Mtok (multiples of 1e12 atto), so the division is exact; fees have at most 12 decimals.
 * null: the event uses a kind the version has no price for (the event is unpriced).
 */
export function officialCostAtto(usage: TokenUsage, price: PriceTerms): bigint | null {
  const problem = usageContainmentProblem(usage);
  assert(problem === null, problem?.message ?? '');
  const tier = selectTier(price.tiers, usage.promptTokens);
  let scaled: bigint;
  if (tier === undefined && isPlainText(usage, price)) {
    // The plain text event: input, cached input (cached audio is 0 here: it is part of prompt audio), output.
    const input = price.inputAttoPerMtok!;
    scaled =
      BigInt(usage.promptTokens - usage.cachedTokens) * input +
      BigInt(usage.cachedTokens) * (price.cachedInputAttoPerMtok ?? input) +
      BigInt(usage.completionTokens) * price.outputAttoPerMtok!;
  } else {
    const tokens = billedTokens(usage);
    scaled = 0n;
    for (const field of Object.keys(tokens) as PriceField[]) {
      const count = tokens[field];
      if (count === 0) continue;
      const perMtok = kindPrice(price, tier, field);
      if (perMtok === null) return null;
      scaled += BigInt(count) * perMtok;
    }
  }
  assert(scaled % TOKENS_PER_MTOK === 0n, 'per-Mtok prices must have at most 12 decimals of USD per token');
  return scaled / TOKENS_PER_MTOK + feesAtto(usage, price);
}

export function splitCharge(input: {
  officialAtto: bigint;
  userMarkup: DecimalMultiplier;
  payoutMultiplier: DecimalMultiplier;
}): PricedAmounts {
  const chargeAtto = multiplyAtto(input.officialAtto, input.userMarkup);
  const payoutAtto = multiplyAtto(input.officialAtto, input.payoutMultiplier);
  const marginAtto = chargeAtto - payoutAtto;
  assert(chargeAtto === payoutAtto + marginAtto, 'charge == payout + margin');
  return { officialAtto: input.officialAtto, chargeAtto, payoutAtto, marginAtto };
}

/** null: the version has no price for a kind the event uses (pricing.md): the event is unpriced. */
export function priceUsage(input: {
  usage: TokenUsage;
  price: PriceTerms;
  userMarkup: DecimalMultiplier;
  payoutMultiplier: DecimalMultiplier;
}): PricedAmounts | null {
  const officialAtto = officialCostAtto(input.usage, input.price);
  if (officialAtto === null) return null;
  return splitCharge({
    officialAtto,
    userMarkup: input.userMarkup,
    payoutMultiplier: input.payoutMultiplier,
  });
}
