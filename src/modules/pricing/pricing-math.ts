// Pure pricing: official price of an event and the user/contributor/platform split, exact.
import { assert } from '../../common/errors/index.js';
import { multiplyAtto, type DecimalMultiplier } from '../../common/money/index.js';
import type { PriceVersion, TokenUsage } from './pricing.types.js';

export const TOKENS_PER_MTOK = 1_000_000n;

export interface PricedAmounts {
  officialAtto: bigint;
  chargeAtto: bigint;
  payoutAtto: bigint;
  marginAtto: bigint;
}

/**
 * Official cost: prompt tokens include cached tokens (billed at the cached-input price when the
 * model has one, else the input price); completion tokens include reasoning tokens (billed at the
 * output price, never again). Prices have at most 6 decimals per Mtok, so the division is exact.
 */
export function officialCostAtto(usage: TokenUsage, price: PriceVersion): bigint {
  assert(usage.cachedTokens <= usage.promptTokens, 'cached tokens are part of prompt tokens');
  assert(usage.reasoningTokens <= usage.completionTokens, 'reasoning tokens are part of completion tokens');
  const uncachedPrompt = BigInt(usage.promptTokens - usage.cachedTokens);
  const cached = BigInt(usage.cachedTokens);
  const completion = BigInt(usage.completionTokens);
  const cachedPrice = price.cachedInputAttoPerMtok ?? price.inputAttoPerMtok;
  const scaled = uncachedPrompt * price.inputAttoPerMtok + cached * cachedPrice + completion * price.outputAttoPerMtok;
  assert(scaled % TOKENS_PER_MTOK === 0n, 'per-Mtok prices must have at most 12 decimals of USD per token');
  return scaled / TOKENS_PER_MTOK;
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

export function priceUsage(input: {
  usage: TokenUsage;
  price: PriceVersion;
  userMarkup: DecimalMultiplier;
  payoutMultiplier: DecimalMultiplier;
}): PricedAmounts {
  return splitCharge({
    officialAtto: officialCostAtto(input.usage, input.price),
    userMarkup: input.userMarkup,
    payoutMultiplier: input.payoutMultiplier,
  });
}
