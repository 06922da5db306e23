// Pure: prices a set of normalized events and derives their journal entries and rollup deltas.
import type { DecimalMultiplier } from '../../common/money/index.js';
import { contributorPayable, PLATFORM_REVENUE, userAccount } from '../ledger/account-codes.js';
import type { JournalDraft } from '../ledger/journal-draft.js';
import { priceUsage } from '../pricing/pricing-math.js';
import type { PriceBook } from '../pricing/pricing.types.js';
import type { RollupDelta } from './usage.repository.js';
import type { NormalizedEvent } from './usage-event.js';
import type { ContributorTierName, PlannedEvent } from './usage.types.js';

export const USAGE_JOURNAL_KIND = 'usage';

export interface TierBookView {
  tierAt(contributorId: string, at: Date): ContributorTierName | null;
}

export interface Multipliers {
  userMarkup: DecimalMultiplier;
  payoutByTier: Record<ContributorTierName, DecimalMultiplier>;
}

/** Prices one event with the price and tier in force at occurred_at; null tier = unknown contributor. */
export function planEvent(event: NormalizedEvent, books: { prices: PriceBook; tiers: TierBookView }, multipliers: Multipliers): PlannedEvent | null {
  const tier = books.tiers.tierAt(event.contributorId, event.occurredAt);
  if (tier === null) return null;
  const price = books.prices.priceAt(event.model, event.occurredAt);
  if (!price) return { event, tier, priceId: null, userMarkupText: null, payoutMultiplierText: null, amounts: null };
  const payoutMultiplier = multipliers.payoutByTier[tier];
  return {
    event,
    tier,
    priceId: price.id,
    userMarkupText: multipliers.userMarkup.text,
    payoutMultiplierText: payoutMultiplier.text,
    amounts: priceUsage({ usage: event.usage, price, userMarkup: multipliers.userMarkup, payoutMultiplier }),
  };
}

/** One journal transaction per priced event: the user pays the charge, split payout + margin. */
export function usageJournalDraft(planned: PlannedEvent): JournalDraft | null {
  const amounts = planned.amounts;
  if (!amounts) return null;
  return {
    kind: USAGE_JOURNAL_KIND,
    ref: planned.event.eventId,
    postings: [
      { accountCode: userAccount(planned.event.userId), amountAtto: -amounts.chargeAtto },
      { accountCode: contributorPayable(planned.event.contributorId), amountAtto: amounts.payoutAtto },
      { accountCode: PLATFORM_REVENUE, amountAtto: amounts.marginAtto },
    ],
  };
}

export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Priced events summed per contributor, UTC day and model. */
export function rollupDeltas(planned: PlannedEvent[]): RollupDelta[] {
  const byKey = new Map<string, RollupDelta>();
  for (const p of planned) {
    if (!p.amounts) continue;
    const day = utcDay(p.event.occurredAt);
    const key = `${p.event.contributorId}\u0000${day}\u0000${p.event.model}`;
    let delta = byKey.get(key);
    if (!delta) {
      delta = {
        contributorId: p.event.contributorId,
        day,
        model: p.event.model,
        events: 0,
        promptTokens: 0n,
        completionTokens: 0n,
        officialAtto: 0n,
        earnedAtto: 0n,
        chargeAtto: 0n,
        marginAtto: 0n,
      };
      byKey.set(key, delta);
    }
    delta.events += 1;
    delta.promptTokens += BigInt(p.event.usage.promptTokens);
    delta.completionTokens += BigInt(p.event.usage.completionTokens);
    delta.officialAtto += p.amounts.officialAtto;
    delta.earnedAtto += p.amounts.payoutAtto;
    delta.chargeAtto += p.amounts.chargeAtto;
    delta.marginAtto += p.amounts.marginAtto;
  }
  return [...byKey.values()];
}
