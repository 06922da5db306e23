// Pure: prices a set of normalized events and derives their journal entries and rollup deltas.
import type { AppConfig } from '../../config/index.js';
import type { DecimalMultiplier } from '../../common/money/index.js';
import { usageDraft, type JournalDraft, type JournalKind } from '../ledger/journal-kinds.js';
import { priceUsage } from '../pricing/pricing-math.js';
import type { PriceBook } from '../pricing/pricing.types.js';
import type { NormalizedEvent } from './usage-event.js';
import type { ContributorTierName, PlannedEvent, RollupDelta } from './usage.types.js';

export const USAGE_JOURNAL_KIND = 'usage' satisfies JournalKind;

export interface TierBookView {
  tierAt(contributorId: string, at: Date): ContributorTierName | null;
}

export interface Multipliers {
  userMarkup: DecimalMultiplier;
  payoutByTier: Record<ContributorTierName, DecimalMultiplier>;
  /** PAYOUT_MATURITY_DAYS > 0: the payout is credited to the contributor's pending account. */
  payoutMaturing?: boolean;
}

/** The multipliers of the configuration (the writer and the repricer use the same ones). */
export function multipliersOf(config: Pick<AppConfig, 'USER_MARKUP' | 'PAYOUT_STANDARD' | 'PAYOUT_PREMIUM' | 'PAYOUT_MATURITY_DAYS'>): Multipliers {
  return {
    userMarkup: config.USER_MARKUP,
    payoutByTier: { standard: config.PAYOUT_STANDARD, premium: config.PAYOUT_PREMIUM },
    payoutMaturing: config.PAYOUT_MATURITY_DAYS > 0,
  };
}

/** Prices one event with the price and tier in force at occurred_at; null tier = unknown contributor. */
export function planEvent(event: NormalizedEvent, books: { prices: PriceBook; tiers: TierBookView }, multipliers: Multipliers): PlannedEvent | null {
  const tier = books.tiers.tierAt(event.contributorId, event.occurredAt);
  if (tier === null) return null;
  const price = books.prices.priceAt(event.model, event.occurredAt, event.priceVariant);
  const payoutMultiplier = multipliers.payoutByTier[tier];
  // No version in force, or one without a price for a kind this event uses: unpriced.
  const amounts = price ? priceUsage({ usage: event.usage, price, userMarkup: multipliers.userMarkup, payoutMultiplier }) : null;
  if (!price || !amounts) return { event, tier, priceId: null, userMarkupText: null, payoutMultiplierText: null, amounts: null };
  return {
    event,
    tier,
    priceId: price.id,
    userMarkupText: multipliers.userMarkup.text,
    payoutMultiplierText: payoutMultiplier.text,
    amounts,
    ...(multipliers.payoutMaturing ? { payoutMaturing: true } : {}),
  };
}

/** One journal transaction per priced event: the user pays the charge, split payout + margin. */
export function usageJournalDraft(planned: PlannedEvent): JournalDraft | null {
  const amounts = planned.amounts;
  if (!amounts) return null;
  const event = planned.event;
  return usageDraft({
    eventId: event.eventId,
    userId: event.userId,
    contributorId: event.contributorId,
    chargeAtto: amounts.chargeAtto,
    payoutAtto: amounts.payoutAtto,
    marginAtto: amounts.marginAtto,
    payoutMaturing: planned.payoutMaturing === true,
  });
}

export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

const DAY_MS = 86_400_000;

/** Priced events summed per contributor, UTC day and model. */
export function rollupDeltas(planned: PlannedEvent[]): RollupDelta[] {
  // Counts and token sums stay exact as numbers (at most 2^31 tokens per event; far below 2^53 for
  // any batch) and become bigint once per key; events of a batch mostly share a day, so its text is reused.
  const byKey = new Map<string, { delta: RollupDelta; events: number; promptTokens: number; completionTokens: number; cachedTokens: number; cacheWriteTokens: number; audioTokens: number }>();
  let lastDayIndex = Number.NaN;
  let lastDay = '';
  for (const p of planned) {
    const amounts = p.amounts;
    if (!amounts) continue;
    const event = p.event;
    const dayIndex = Math.floor(event.occurredAt.getTime() / DAY_MS);
    if (dayIndex !== lastDayIndex) {
      lastDayIndex = dayIndex;
      lastDay = utcDay(event.occurredAt);
    }
    const key = `${event.contributorId}\u0000${lastDay}\u0000${event.model}`;
    let sum = byKey.get(key);
    if (!sum) {
      sum = {
        delta: {
          contributorId: event.contributorId,
          day: lastDay,
          model: event.model,
          events: 0n,
          promptTokens: 0n,
          completionTokens: 0n,
          cachedTokens: 0n,
          cacheWriteTokens: 0n,
          audioTokens: 0n,
          officialAtto: 0n,
          earnedAtto: 0n,
          chargeAtto: 0n,
          marginAtto: 0n,
        },
        events: 0,
        promptTokens: 0,
        completionTokens: 0,
        cachedTokens: 0,
        cacheWriteTokens: 0,
        audioTokens: 0,
      };
      byKey.set(key, sum);
    }
    const delta = sum.delta;
    sum.events += 1;
    sum.promptTokens += event.usage.promptTokens;
    sum.completionTokens += event.usage.completionTokens;
    sum.cachedTokens += event.usage.cachedTokens;
    sum.cacheWriteTokens += event.usage.cacheWrite5mTokens + event.usage.cacheWrite1hTokens;
    sum.audioTokens += event.usage.promptAudioTokens + event.usage.completionAudioTokens;
    delta.officialAtto += amounts.officialAtto;
    delta.earnedAtto += amounts.payoutAtto;
    delta.chargeAtto += amounts.chargeAtto;
    delta.marginAtto += amounts.marginAtto;
  }
  const deltas: RollupDelta[] = [];
  for (const sum of byKey.values()) {
    sum.delta.events = BigInt(sum.events);
    sum.delta.promptTokens = BigInt(sum.promptTokens);
    sum.delta.completionTokens = BigInt(sum.completionTokens);
    sum.delta.cachedTokens = BigInt(sum.cachedTokens);
    sum.delta.cacheWriteTokens = BigInt(sum.cacheWriteTokens);
    sum.delta.audioTokens = BigInt(sum.audioTokens);
    deltas.push(sum.delta);
  }
  return deltas;
}
